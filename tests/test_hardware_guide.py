"""The build guide's commands are the real ones: those in ```sh blocks run here as
written; those in ```console blocks (for the Pi) name real files and parse."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hub.cli.main import _parser

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "hardware" / "README.md"
GENERATED = (
    "hardware/wiring.svg",
    "hardware/wiring-usb.svg",
    "hardware/layout.svg",
    "hardware/README.md",
)
SLOW = ("make stl",)


def blocks(language: str) -> list[str]:
    """Every command line of the guide's code blocks in ``language``."""
    found = re.findall(rf"^```{language}\n(.*?)^```", GUIDE.read_text(), re.S | re.M)
    return [
        line.split("  #")[0].strip()
        for block in found
        for line in block.splitlines()
        if line.strip() and not line.startswith("#")
    ]


SH = blocks("sh")


def test_the_guide_has_commands_to_run_here():
    assert "make hardware" in SH
    assert any(c.startswith("make stl") for c in SH)
    assert any(c.startswith("mtrain-hub selftest --check --backend sim") for c in SH)


# What the guide's commands need of the checkout. They run in a copy of it: ``make
# hardware`` rewrites files the other tests read, ``make stl`` and the self-test write
# into build/, and other tests run at the same time.
PRODUCT = ("hub", "scorer", "web", "firmware_bridge", "tablesim")
CHECKOUT = ("Makefile", "pyproject.toml", "tools", "hardware", *PRODUCT)


def checkout_copy(into: Path) -> Path:
    """The parts of the checkout the guide's commands use, copied under ``into``."""
    junk = shutil.ignore_patterns("__pycache__", "*.pyc")
    into.mkdir()
    for name in CHECKOUT:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, into / name, ignore=junk)
        else:
            shutil.copy2(ROOT / name, into / name)
    return into


@pytest.mark.parametrize(
    "command", [pytest.param(c, marks=pytest.mark.slow) if c.startswith(SLOW) else c for c in SH]
)
def test_each_sh_command_of_the_guide_runs(command, tmp_path):
    if command.startswith("make stl"):
        from tests.conftest import need

        need("openscad")
    root = checkout_copy(tmp_path / "checkout")
    before = {name: (root / name).read_bytes() for name in GENERATED}
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    done = subprocess.run(
        shlex.split(command), cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    after = {name: (root / name).read_bytes() for name in GENERATED}
    assert after == before, "the guide's commands changed a committed file: run make hardware"
    assert before == {name: (ROOT / name).read_bytes() for name in GENERATED}  # as copied
    if command.startswith("mtrain-hub selftest --check"):
        assert done.stdout.splitlines()[-1] == "all checks passed"
        assert (root / "build" / "try").is_dir()  # the copy's, not the checkout's
    if command.startswith("make stl"):
        for part in ("top", "base", "retainer", "marker"):
            assert (root / "build" / "stl" / f"hub-{part}.stl").stat().st_size > 10_000


INSTALLED = "sudo -u mtrain /opt/mtrain-hub/venv/bin/mtrain-hub "


def test_the_pi_commands_parse_and_name_what_the_installer_makes():
    console = blocks("console")
    hub_commands = [c for c in console if c.startswith(INSTALLED)]
    assert len(hub_commands) == 2
    for command in hub_commands:
        words = shlex.split(command)[4:]
        _parser(words[0]).parse_args(words)
        assert "--config /etc/mtrain-hub.toml" in command
    installer = (ROOT / "systemd" / "install.sh").read_text()
    assert "--i2s-amp)" in installer and "PREFIX=/opt/mtrain-hub" in installer
    assert "VENV=$PREFIX/venv" in installer and "/etc/mtrain-hub.toml" in installer
    assert "sudo systemd/install.sh --i2s-amp" in console
    assert {"sudo systemctl stop mtrain-hub", "sudo systemctl start mtrain-hub"} <= set(console)


def test_the_guide_links_to_files_that_exist():
    for target in re.findall(r"\]\(([^)#:]+)\)", GUIDE.read_text()):
        assert (GUIDE.parent / target).exists(), target


def test_the_openscad_command_shown_is_what_make_stl_runs():
    text = GUIDE.read_text()
    shown = re.search(r"^openscad .*$", text, re.M)
    assert shown is not None
    make = (ROOT / "Makefile").read_text()
    assert 'openscad -D "part=' in make and "hardware/enclosure/hub.scad" in shown.group(0)

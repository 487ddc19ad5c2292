"""The build guide's commands are the real ones: those in ```sh blocks run here as
written; those in ```console blocks (for the Pi) name real files and parse."""

from __future__ import annotations

import re
import shlex

import pytest

from hub.cli.main import _parser
from tests.conftest import need
from tests.guide import GENERATED, GUIDE, ROOT, STL_COMMAND, run_in_a_copy

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
    assert STL_COMMAND in SH  # made once per run (tests/guide.py)
    assert any(c.startswith("mtrain-hub selftest --check --backend sim") for c in SH)


@pytest.mark.parametrize(
    "command", [pytest.param(c, marks=pytest.mark.slow) if c.startswith(SLOW) else c for c in SH]
)
def test_each_sh_command_of_the_guide_runs(command, tmp_path, request):
    if command == STL_COMMAND:  # made once per run: tests/deploy/test_enclosure.py checks its parts
        run = request.getfixturevalue("made_stl")
    else:
        if command.startswith("make stl"):
            need("openscad")
        run = run_in_a_copy(command, tmp_path)
    assert run.status == 0, run.output
    assert run.changed == [], "the guide's commands changed a committed file: run make hardware"
    assert all((run.root / name).read_bytes() == (ROOT / name).read_bytes() for name in GENERATED)
    if command.startswith("mtrain-hub selftest --check"):
        assert run.stdout.splitlines()[-1] == "all checks passed"
        assert (run.root / "build" / "try").is_dir()  # the copy's, not the checkout's
    if command.startswith("make stl"):
        for part in ("top", "base", "retainer", "marker"):
            assert (run.root / "build" / "stl" / f"hub-{part}.stl").stat().st_size > 10_000


INSTALLED = "sudo -u mtrain /opt/mtrain-hub/venv/bin/mtrain-hub "


def test_the_pi_commands_parse_and_name_what_the_installer_makes():
    console = blocks("console")
    hub_commands = [c for c in console if c.startswith(INSTALLED)]
    assert len(hub_commands) == 3  # selftest --check, the walk-through, firmware update
    for command in hub_commands:
        words = shlex.split(command)[4:]
        _parser(words[0]).parse_args(words)
        assert words[0] == "firmware" or "--config /etc/mtrain-hub.toml" in command
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

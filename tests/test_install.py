"""systemd/install.sh into a folder (``--root``): every file with its mode, a second run
that changes nothing, uninstall and purge, an upgrade that keeps and migrates the games,
``systemd-analyze verify`` on the unit as installed, shellcheck, and the security figure.

The installs pip-install the hub (``--pip-args --no-deps``: the venv gets the hub, not
its dependencies, which is all ``mtrain-hub migrate`` needs) and take ~15 s each; one
install is shared by the run (every test process) and copied for each test.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from scorer.setup import check_setup
from scorer.store import GameStore
from tests.conftest import need
from tests.helpers import made_once

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "systemd" / "install.sh"
UNIT = REPO / "systemd" / "mtrain-hub.service"
GOAL = 2.0  # the goal for systemd-analyze security's exposure
PIP_ARGS = ["--pip-args", "--no-deps"]

# Every file the installer lays (the venv aside), with its mode.
LAID = {
    "etc/systemd/system/mtrain-hub.service": 0o644,
    "etc/avahi/services/mtrain-hub.service": 0o644,
    "etc/udev/rules.d/60-mtrain-hub-gpio.rules": 0o644,
    "etc/mtrain-hub.toml": 0o640,
    "etc/hostname": 0o644,
    "opt/mtrain-hub/installed-source.sha256": 0o644,
    "opt/mtrain-hub/docs/deploy.md": 0o644,
    "opt/mtrain-hub/venv/bin/mtrain-hub": 0o755,
}
DIRS = {"opt/mtrain-hub": 0o755, "var/lib/mtrain-hub": 0o700}


def install(root: Path, *args: str, source: Path = REPO) -> str:
    """Run the installer (from ``source``) into ``root``; its output, or fail with it."""
    result = subprocess.run(
        ["bash", str(source / "systemd" / "install.sh"), "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def fresh_pi(root: Path) -> Path:
    """A folder that looks like Raspberry Pi OS Lite where the installer looks."""
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text("[all]\ndtparam=audio=on\n")
    (root / "etc").mkdir()
    (root / "etc" / "hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n")
    (root / "etc" / "hostname").write_text("raspberrypi\n")
    return root


def manifest(root: Path) -> dict[str, tuple[int, str]]:
    """Every path under ``root``: its mode and its content's hash (a link: its target)."""
    seen: dict[str, tuple[int, str]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            digest = os.readlink(path)
        elif stat.S_ISREG(info.st_mode):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            digest = ""
        seen[str(path.relative_to(root))] = (stat.S_IMODE(info.st_mode), digest)
    return seen


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One install for the whole run (every test process reads it; :func:`pi` copies it)."""

    def make(folder: Path) -> None:
        output = install(fresh_pi(folder / "pi"), "--i2s-amp", *PIP_ARGS)
        (folder / "output.txt").write_text(output)

    folder = made_once(tmp_path_factory, "install", make)
    return folder / "pi", (folder / "output.txt").read_text()


@pytest.fixture
def pi(installed: tuple[Path, str], tmp_path: Path) -> Path:
    """A copy of the installed folder, for a test to change."""
    copy = tmp_path / "pi"
    shutil.copytree(installed[0], copy, symlinks=True)
    return copy


def test_shellcheck_passes():
    shellcheck = need("shellcheck")
    result = subprocess.run([shellcheck, str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_security_exposure_within_goal_and_recorded(capsys):
    analyze = need("systemd-analyze")
    result = subprocess.run(
        [analyze, "security", "--offline=true", str(UNIT)], capture_output=True, text=True
    )
    match = re.search(r"Overall exposure level for mtrain-hub\.service: (\d+\.\d)", result.stdout)
    assert match, result.stdout + result.stderr
    figure = float(match[1])
    with capsys.disabled():  # the figure shows in every run, not only with -s
        print(
            f"\nsystemd-analyze security --offline=true systemd/mtrain-hub.service: "
            f"exposure {figure} (goal {GOAL} or lower)"
        )
    assert figure <= GOAL, result.stdout
    deploy = (REPO / "docs" / "deploy.md").read_text()
    assert f"exposure **{match[1]}**" in deploy, "docs/deploy.md records another figure"


@pytest.mark.slow
def test_install_lays_every_file_with_its_mode(installed):
    root, output = installed
    for name, mode in {**LAID, **DIRS}.items():
        assert stat.S_IMODE((root / name).stat().st_mode) == mode, name
    assert (root / "etc/systemd/system/mtrain-hub.service").read_bytes() == UNIT.read_bytes()
    wants = root / "etc/systemd/system/multi-user.target.wants/mtrain-hub.service"
    assert os.readlink(wants) == "/etc/systemd/system/mtrain-hub.service"  # enabled
    assert (root / "etc/hostname").read_text() == "mtrain\n"
    assert "127.0.1.1\tmtrain\n" in (root / "etc/hosts").read_text()
    boot = (root / "boot/firmware/config.txt").read_text()
    assert boot.startswith("[all]\ndtparam=audio=on\n") and boot.count("dtoverlay=max98357a") == 1
    config = (root / "etc/mtrain-hub.toml").read_text()
    assert 'device = "default:CARD=MAX98357A"' in config and "port = 80" in config
    assert "_http._tcp" in (root / "etc/avahi/services/mtrain-hub.service").read_text()
    for skipped in (
        "apt-get install",
        "useradd --system",
        "usermod -a -G gpio,audio,dialout",
        "systemctl daemon-reload",
    ):
        assert f"skipped under --root: {skipped}" in output, output
    assert "owner mtrain:mtrain (not set under --root)" in output
    assert "no games yet" in output  # the store's migration step ran


@pytest.mark.slow
def test_second_run_changes_nothing(pi):
    before = manifest(pi)
    output = install(pi, "--i2s-amp", *PIP_ARGS)
    assert manifest(pi) == before
    assert "laid " not in output and "unchanged /opt/mtrain-hub/venv" in output


@pytest.mark.slow
def test_config_is_written_only_when_absent(pi):
    (pi / "etc/mtrain-hub.toml").write_text("[web]\nport = 8081\n")
    output = install(pi, *PIP_ARGS)
    assert (pi / "etc/mtrain-hub.toml").read_text() == "[web]\nport = 8081\n"
    assert "kept /etc/mtrain-hub.toml" in output


@pytest.mark.slow
def test_systemd_analyze_verify_passes_on_the_unit_as_installed(pi):
    analyze = need("systemd-analyze")
    # The folder gets the base system's own units (sysinit.target …), as on a Pi.
    shutil.copytree("/usr/lib/systemd/system", pi / "usr/lib/systemd/system", symlinks=True)
    result = subprocess.run(
        [analyze, "verify", f"--root={pi}", "mtrain-hub.service"], capture_output=True, text=True
    )
    assert result.returncode == 0 and not result.stdout + result.stderr, result.stderr
    # It does look inside the folder: without the hub's executable it fails.
    (pi / "opt/mtrain-hub/venv/bin/mtrain-hub").unlink()
    result = subprocess.run(
        [analyze, "verify", f"--root={pi}", "mtrain-hub.service"], capture_output=True, text=True
    )
    assert result.returncode != 0 and "mtrain-hub" in result.stderr


def _a_game(state: Path) -> int:
    store = GameStore(state / "games.db")
    game_id = store.create_game(
        check_setup({"players": ["Ann", "Bob"], "rules": "consensus"}), token="t" * 24
    )
    store.close()
    return game_id


@pytest.mark.slow
def test_uninstall_keeps_the_games_and_purge_removes_them(pi):
    game_id = _a_game(pi / "var/lib/mtrain-hub")
    output = install(pi, "--uninstall")
    for gone in (
        "etc/systemd/system/mtrain-hub.service",
        "etc/avahi/services/mtrain-hub.service",
        "etc/udev/rules.d/60-mtrain-hub-gpio.rules",
        "opt/mtrain-hub",
        "etc/systemd/system/multi-user.target.wants/mtrain-hub.service",
    ):
        assert not (pi / gone).exists() and not (pi / gone).is_symlink(), gone
    assert (pi / "boot/firmware/config.txt").read_text() == "[all]\ndtparam=audio=on\n"
    assert (pi / "etc/mtrain-hub.toml").exists()
    assert GameStore(pi / "var/lib/mtrain-hub/games.db").get_game(game_id)["players"] == [
        "Ann",
        "Bob",
    ]
    assert "kept the games" in output

    output = install(pi, "--uninstall", "--purge")
    assert not (pi / "var/lib/mtrain-hub").exists() and not (pi / "etc/mtrain-hub.toml").exists()
    assert "skipped under --root: userdel mtrain" in output


@pytest.mark.slow
def test_upgrade_keeps_the_games_and_migrates_the_store(pi, tmp_path):
    state = pi / "var/lib/mtrain-hub"
    game_id = _a_game(state)
    # The next version: its schema has one more step.
    newer = tmp_path / "newer"
    shutil.copytree(
        REPO,
        newer,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "*.egg-info", "build", "state", "test-artifacts"
        ),
    )
    schema = newer / "scorer" / "schema.py"
    text = schema.read_text()
    assert text.rstrip().endswith(")")
    schema.write_text(
        text.rstrip()[:-1] + '    ("CREATE TABLE upgrade_probe (id INTEGER PRIMARY KEY)",),\n)\n'
    )
    output = install(pi, *PIP_ARGS, source=newer)
    assert "upgraded; the games are kept" in output
    assert re.search(r"games\.db: schema (\d+) -> (\d+)", output), output
    conn = sqlite3.connect(state / "games.db")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    names = [r[0] for r in conn.execute("SELECT name FROM players WHERE game_id = ?", (game_id,))]
    conn.close()
    assert names == ["Ann", "Bob"]
    backups = list(state.glob(f"games.db.before-schema-{version}"))
    assert len(backups) == 1
    old = sqlite3.connect(backups[0])
    assert old.execute("PRAGMA user_version").fetchone()[0] == version - 1
    old.close()


def test_refuses_options_that_do_not_go_together(tmp_path):
    for args, status, says in (
        (["--purge"], 1, "--purge goes with --uninstall"),
        (["--bogus"], 2, "unknown option: --bogus"),
        (["--hostname", "Bad_Name"], 1, "not a host name"),
    ):
        result = subprocess.run(
            ["bash", str(INSTALL), "--root", str(tmp_path), *args], capture_output=True, text=True
        )
        assert result.returncode == status and says in result.stderr, result
    assert not any(tmp_path.iterdir())  # nothing was laid


def test_uninstall_of_nothing_is_quiet_and_harmless(tmp_path):
    root = fresh_pi(tmp_path / "pi")
    before = manifest(root)
    output = install(root, "--uninstall")
    assert manifest(root) == before and "removed" not in output

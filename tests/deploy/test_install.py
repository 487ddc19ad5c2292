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

REPO = Path(__file__).resolve().parents[2]
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
    """Run the installer (from ``source``) into ``root``; its output, or fail with it.
    Without PYTHONPATH: the installed hub must import itself, not this checkout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        ["bash", str(source / "systemd" / "install.sh"), "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
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
    (root / "etc" / "os-release").write_text(
        'PRETTY_NAME="Debian GNU/Linux 12"\nVERSION_CODENAME=bookworm\n'
    )
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
    assert "release: bookworm" in output and "warning" not in output
    # The venv sees the system's packages: python3-lgpio comes from apt (issue 22, MED 3).
    cfg = (root / "opt/mtrain-hub/venv/pyvenv.cfg").read_text()
    assert "include-system-site-packages = true" in cfg
    assert "skipped under --root: pip install lgpio (where apt has no python3-lgpio)" in output
    # No half-made files left beside the laid ones (they are renamed into place).
    assert not list(root.rglob(".*.??????")), list(root.rglob(".*.??????"))


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
    store = GameStore(pi / "var/lib/mtrain-hub/games.db")
    assert store.get_game(game_id)["players"] == ["Ann", "Bob"]
    store.close()
    assert "kept the games" in output

    output = install(pi, "--uninstall", "--purge")
    assert not (pi / "var/lib/mtrain-hub").exists() and not (pi / "etc/mtrain-hub.toml").exists()
    assert "skipped under --root: userdel mtrain" in output


@pytest.mark.slow
def test_upgrade_keeps_the_games_and_migrates_the_store(pi, tmp_path, installed):
    state = pi / "var/lib/mtrain-hub"
    game_id = _a_game(state)
    # The next version: its schema has one more step.
    newer = tmp_path / "newer"
    shutil.copytree(
        REPO,
        newer,
        ignore=shutil.ignore_patterns(
            ".venv*", ".git", "__pycache__", "*.egg-info", "build", "state", "test-artifacts"
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
    # The copy was upgraded, not the install it was copied from (which every test
    # process copies: pip run as the copy's bin/pip had upgraded that one).
    for root, newest in ((pi, True), (installed[0], False)):
        found = list(
            (root / "opt/mtrain-hub/venv").glob("lib/python3*/site-packages/scorer/schema.py")
        )
        assert len(found) == 1 and ("upgrade_probe" in found[0].read_text()) is newest, root
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


def bash_with(script: str, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Source the installer (it defines its functions, runs nothing) and run ``script``
    with ``PATH`` set to ``path``."""
    return subprocess.run(
        ["bash", "-c", f'source "$INSTALL" && PATH={path} && {script}', "bash", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "INSTALL": str(INSTALL)},
    )


def test_no_udevadm_no_command_not_found(tmp_path):
    """Where udev is absent (a container) the rule is laid and applied at udev's start;
    the installer says so instead of printing ``udevadm: command not found`` twice."""
    result = bash_with("reload_udev", str(tmp_path))  # an empty PATH: no udevadm
    assert result.returncode == 0, result.stderr
    assert "command not found" not in result.stdout + result.stderr
    assert "no udev runs here" in result.stdout


def test_a_pip_failure_is_reported_as_what_it_is(tmp_path):
    """Not "pyalsaaudio did not build" for every failure: an index pip cannot reach is
    named, and nothing is retried without sound."""
    root = fresh_pi(tmp_path / "pi")
    result = subprocess.run(
        ["bash", str(INSTALL), "--root", str(root), "--pip-args", "--no-index --find-links /none"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "install.sh: pip could not install the hub: ERROR:" in result.stderr, result.stderr
    assert "pyalsaaudio" not in result.stdout + result.stderr
    assert "without sound" not in result.stdout + result.stderr
    assert not (root / "opt/mtrain-hub/installed-source.sha256").exists()


def test_pip_failures_name_the_sound_library_or_lgpio(tmp_path):
    """pip's ERROR lines decide: the sound library (then retried without sound), lgpio
    (its Debian package named), anything else (the install stops)."""
    log = tmp_path / "pip.log"
    cases = {
        "  building...\nERROR: Failed building wheel for pyalsaaudio\n": "sound",
        "ERROR: Failed building wheel for audioop-lts\n": "sound",  # 3.13, no wheel
        "ERROR: Could not build wheels for lgpio, which is required\n": "lgpio",
        "ERROR: Could not find a version that satisfies the requirement flask>=3.0\n": "hub",
        "WARNING: Retrying (pyalsaaudio)\nERROR: No matching distribution for segno\n": "hub",
        "  error: subprocess-exited-with-error\n      ERROR: No matching distribution "
        "found for setuptools>=68\n": "hub",
    }
    for text, kind in cases.items():
        log.write_text(text)
        result = bash_with('PIP_LOG="$1"; pip_trouble; pip_failure', "/usr/bin:/bin", str(log))
        error = next(line.strip() for line in text.splitlines() if "ERROR" in line)
        assert result.stdout.splitlines() == [kind, error], result


def test_the_avahi_file_is_renamed_into_place_never_written_there(pi):
    """avahi reloads when its folder changes: a file written in place is read while
    still 0600 ("Permission denied … ignoring", no _http._tcp). The installer writes a
    temporary name (not ``*.service``) and renames it over the file."""
    strace = need("strace")
    avahi = pi / "etc/avahi/services/mtrain-hub.service"
    avahi.write_text("<!-- an older announcement -->\n")
    trace = pi.parent / "trace"
    result = subprocess.run(
        [
            strace,
            "-f",
            "-qq",
            "-o",
            str(trace),
            "-e",
            "trace=openat,creat,rename,renameat,renameat2",
            "bash",
            str(INSTALL),
            "--root",
            str(pi),
            *PIP_ARGS,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "laid /etc/avahi/services/mtrain-hub.service" in result.stdout
    calls = trace.read_text().splitlines()
    final = f'"{avahi}"'
    writes = [
        c for c in calls if final in c and ("O_WRONLY" in c or "O_RDWR" in c or "creat(" in c)
    ]
    assert not writes, writes
    renames = [c for c in calls if "rename" in c and c.rstrip().endswith(" = 0") and final in c]
    assert len(renames) == 1, calls
    draft = renames[0].split('"')[1]
    assert draft.startswith(str(avahi.parent / ".mtrain-hub.service.")) and not draft.endswith(
        ".service"
    )
    assert stat.S_IMODE(avahi.stat().st_mode) == 0o644
    assert avahi.read_bytes() == (REPO / "systemd/avahi/mtrain-hub.service").read_bytes()


@pytest.mark.slow
def test_a_later_i2s_amp_run_points_the_template_device_at_the_amplifier(pi):
    config = pi / "etc/mtrain-hub.toml"
    # As an install without --i2s-amp left it: the template's device.
    config.write_text(config.read_text().replace('"default:CARD=MAX98357A"', '"default"'))
    output = install(pi, "--i2s-amp", *PIP_ARGS)
    text = config.read_text()
    assert 'device = "default:CARD=MAX98357A"' in text and 'device = "default"' not in text
    assert '[sound] device is now "default:CARD=MAX98357A"' in output
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    # A device the maker chose stays theirs.
    config.write_text(text.replace('"default:CARD=MAX98357A"', '"hw:CARD=Headphones"'))
    output = install(pi, "--i2s-amp", *PIP_ARGS)
    assert 'device = "hw:CARD=Headphones"' in config.read_text()
    assert "kept /etc/mtrain-hub.toml" in output


AMP_MARK = "# mtrain-hub: the I2S amplifier (MAX98357A), added by systemd/install.sh"


def section_of(lines: list[str], wanted: str) -> str:
    """The ``[filter]`` section a config.txt line sits in."""
    section = "[all]"
    for line in lines:
        if line.startswith("["):
            section = line
        if line == wanted:
            return section
    raise AssertionError(f"{wanted!r} is not in {lines}")


@pytest.mark.slow
def test_the_overlay_goes_under_all_without_sdmode_and_replaces_an_older_line(pi):
    """A config.txt that ends in a [pi4] section: a line appended bare would load on a
    Pi 4 only. An older install's stock overlay (holding BCM 4) is replaced."""
    boot = pi / "boot/firmware/config.txt"
    mine = "[all]\ndtparam=audio=on\n[pi4]\ndtoverlay=vc4-kms-v3d-pi4\n"
    boot.write_text(mine + f"{AMP_MARK}\ndtoverlay=max98357a\n")
    output = install(pi, *PIP_ARGS)  # an upgrade without --i2s-amp mends it too
    lines = boot.read_text().splitlines()
    assert "replaced our older amplifier lines" in output
    assert section_of(lines, "dtoverlay=max98357a,no-sdmode") == "[all]"
    assert "dtoverlay=max98357a" not in lines and lines.count(AMP_MARK) == 1
    assert section_of(lines, "dtoverlay=vc4-kms-v3d-pi4") == "[pi4]"  # theirs, as it was
    assert "unchanged /boot/firmware/config.txt" in install(pi, "--i2s-amp", *PIP_ARGS)
    install(pi, "--uninstall")
    assert boot.read_text() == mine


@pytest.mark.slow
def test_a_host_name_set_in_imager_is_kept(pi):
    (pi / "etc/hostname").write_text("kitchen\n")
    hosts = (pi / "etc/hosts").read_text()
    output = install(pi, *PIP_ARGS)
    assert (pi / "etc/hostname").read_text() == "kitchen\n"
    assert (pi / "etc/hosts").read_text() == hosts
    assert "kept the host name kitchen" in output and "http://kitchen.local" in output
    output = install(pi, "--hostname", "mtrain2", *PIP_ARGS)  # asked for: set
    assert (pi / "etc/hostname").read_text() == "mtrain2\n"
    assert "127.0.1.1\tmtrain2\n" in (pi / "etc/hosts").read_text()


@pytest.mark.slow
def test_an_older_venv_is_made_to_see_the_system_packages(pi):
    cfg = pi / "opt/mtrain-hub/venv/pyvenv.cfg"
    cfg.write_text(cfg.read_text().replace("= true", "= false"))
    output = install(pi, *PIP_ARGS)
    assert "include-system-site-packages = true" in cfg.read_text()
    assert "sees the system's packages now (python3-lgpio)" in output


def test_an_unsupported_release_is_named(tmp_path):
    root = tmp_path / "pi"
    (root / "etc").mkdir(parents=True)
    (root / "etc/os-release").write_text('VERSION_CODENAME="bullseye"\n')
    result = bash_with('ROOT="$1"; check_release', "/usr/bin:/bin", str(root))
    assert "release bullseye: this installer supports bookworm trixie" in result.stderr
    (root / "etc/os-release").write_text("VERSION_CODENAME=trixie\n")
    assert bash_with('ROOT="$1"; check_release', "/usr/bin:/bin", str(root)).stdout == (
        "release: trixie\n"
    )


def test_package_data_names_only_files_that_exist():
    """pyproject's package data: every pattern matches a file of the checkout (the
    installer's venv gets what it names; a stale name hides a missing file)."""
    import tomllib

    with open(REPO / "pyproject.toml", "rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    for package, patterns in data.items():
        for pattern in patterns:
            assert list((REPO / package).glob(pattern)), f"{package}/{pattern} matches nothing"

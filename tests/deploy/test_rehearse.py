"""tools/rehearse.sh, the rehearsal's driver, and the Makefile steps that run it.

The rehearsal itself boots a container and takes minutes: ``make test`` runs it after
the suite (``make rehearse-test``), not pytest. Here: the script is clean shell, finds
the machine's Debian mirror in deb822 or one-line sources, boots the installer's own
package list, refuses plainly where it cannot run, and the Makefile wires it as the
issue asks (the packages it needs, images before the tests, arm64 only in torture).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.conftest import need

REPO = Path(__file__).resolve().parents[2]
REHEARSE = REPO / "tools" / "rehearse.sh"
MAKEFILE = (REPO / "Makefile").read_text()


def sourced(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Source the driver (it defines its functions, runs nothing), then run ``script``."""
    return subprocess.run(
        ["bash", "-c", f'source "$REHEARSE" && {script}', "bash", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "REHEARSE": str(REHEARSE)},
    )


def test_shellcheck_passes():
    shellcheck = need("shellcheck")
    result = subprocess.run([shellcheck, str(REHEARSE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_help_and_refusals():
    result = subprocess.run(["bash", str(REHEARSE), "--help"], capture_output=True, text=True)
    assert (
        result.returncode == 0 and "--image-only" in result.stdout and "--prepared" in result.stdout
    )
    for args, says in (
        (["--bogus"], "unknown option: --bogus"),
        (["--arch", "riscv64"], "--arch riscv64: amd64 or arm64"),
        (["--release", "bullseye"], "--release bullseye: bookworm or trixie"),
    ):
        result = subprocess.run(["bash", str(REHEARSE), *args], capture_output=True, text=True)
        assert result.returncode != 0 and says in result.stderr, result


def test_the_mirror_is_the_machines_own(tmp_path):
    """deb822 sources (this machine's form) first, the security archive passed over;
    then a one-line sources.list; Debian's own address only when neither names one."""
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n"
    )
    found = sourced('SOURCES="$1"; mirror', str(tmp_path))
    assert found.stdout == "http://mirror.example/debian\n", found
    (tmp_path / "sources.list.d" / "debian.sources").unlink()
    (tmp_path / "sources.list").write_text(
        "deb http://security.example/debian-security bookworm-security main\n"
        "deb [arch=arm64] http://old.example/debian bookworm main\n"
    )
    assert sourced('SOURCES="$1"; mirror', str(tmp_path)).stdout == "http://old.example/debian\n"
    (tmp_path / "sources.list").unlink()
    assert sourced('SOURCES="$1"; mirror', str(tmp_path)).stdout == (
        "http://deb.debian.org/debian\n"
    )


def test_the_prepared_image_has_the_installers_own_packages():
    match = re.search(r"^PACKAGES=\(([^)]*)\)", (REPO / "systemd/install.sh").read_text(), re.M)
    assert match
    listed = sourced("installer_packages").stdout.split()
    assert listed == [*match[1].split(), "avahi-utils"]


def test_it_says_why_it_cannot_run_and_exits_77():
    result = sourced("id() { echo 1000; }; check_can_run")
    assert result.returncode == 77
    assert result.stderr == "rehearse: cannot run here: not root (a container boot needs root)\n"
    result = sourced("PATH=/nonexistent; id() { echo 0; }; check_can_run")
    assert result.returncode == 77 and "systemd-nspawn is missing" in result.stderr


def test_the_makefile_runs_it_as_the_issue_asks():
    packages = re.search(r"^REHEARSE_PACKAGES := (.*)$", MAKEFILE, re.M)
    assert packages and packages[1].split() == [
        "debootstrap",
        "systemd-container",
        "qemu-user-static",
    ]
    assert re.search(r"^TEST_PACKAGES := .*\\\n\t\$\(REHEARSE_PACKAGES\)$", MAKEFILE, re.M)
    test = re.search(r"^test: .*?\n((?:\t.*\n)+)", MAKEFILE, re.M)
    assert test
    steps = test[1].split("\n")
    images = steps.index("\t$(MAKE) rehearse-image")
    beside = (
        '\ttools/beside.sh build/rehearse-test.log "$(MAKE) --no-print-directory rehearse-test"'
        " $(PYTEST)"
    )
    assert images < steps.index(beside)  # the images made first, then tests and rehearsal
    test_recipe = re.search(r"^rehearse-test:\n((?:\t.*\n)+)", MAKEFILE, re.M)
    assert test_recipe and "$(REHEARSE) --prepared" in test_recipe[1]
    assert "SKIPPED the rehearsal" in test_recipe[1] and "--arch arm64" not in test_recipe[1]
    torture = re.search(r"^torture:.*\n((?:\t.*\n)+)", MAKEFILE, re.M)
    assert torture and "rehearse-arm64" in torture[1]
    assert re.search(r"^rehearse-arm64: .*\n\t\$\(REHEARSE\) --arch arm64$", MAKEFILE, re.M)


def test_beside_runs_both_and_fails_when_either_fails(tmp_path):
    beside = str(REHEARSE.parent / "beside.sh")
    log = tmp_path / "side.log"
    for side, main, status in [
        ("echo side-ran", "true", 0),
        ("echo side-ran; exit 3", "true", 1),
        ("echo side-ran", "false", 1),
    ]:
        result = subprocess.run(
            ["bash", beside, str(log), side, main], capture_output=True, text=True
        )
        assert result.returncode == status, result.stdout
        assert "side-ran" in result.stdout  # its log, shown after the main command
        assert ("FAILED" in result.stdout) == bool(status)


def test_beside_passes_shellcheck():
    shellcheck = need("shellcheck")
    beside = REHEARSE.parent / "beside.sh"
    result = subprocess.run([shellcheck, str(beside)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_under_emulation_the_freezer_finds_the_hubs_pid_on_this_machine():
    """qemu-user has no ptrace for the programs it runs, so the arm64 rehearsal freezes
    the hub's loop from this machine: ``host_pid`` maps a PID in the container's PID
    namespace to this machine's (here a shell in our own namespace maps to itself)."""
    result = sourced('LEADER=$$; host_pid $$; echo "own=$$"')
    assert result.returncode == 0, result.stderr
    found, own = result.stdout.split()
    assert own == f"own={found}"
    assert "host_pid" in sourced("declare -f freeze").stdout

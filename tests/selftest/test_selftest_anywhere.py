"""``selftest --check`` runs from any folder, as another user (issue 36, item 3).

Step 6 of the guide runs ``sudo -u mtrain …/mtrain-hub selftest --check`` from the
maker's checkout, a folder ``mtrain`` may not write; lgpio makes its notify pipe in the
current directory when it loads, so the pins step failed there. Here the real command
runs as ``nobody`` from a folder it may only read, with the real lgpio where the test
venv has it (``.[test]`` on x86_64: no GPIO chip here, so the pins step says lgpio
loaded and names the missing chip; on a Pi it passes).
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

MTRAIN_HUB = Path(sys.executable).with_name("mtrain-hub")
TEMPLATE = Path(__file__).resolve().parents[2] / "systemd" / "mtrain-hub.toml"


def _reaches(user: pwd.struct_passwd, path: Path) -> bool:
    """Whether ``user`` (no groups) may search every folder down to ``path``."""
    for folder in [*reversed(path.resolve().parents)]:
        mode, owner = folder.stat().st_mode, folder.stat().st_uid
        if not (mode & 0o001 or (owner == user.pw_uid and mode & 0o100)):
            return False
    return True


@pytest.fixture
def nobody() -> pwd.struct_passwd:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        if os.environ.get("CI"):
            pytest.fail("needs root and setpriv (util-linux) to run as another user")
        pytest.skip("needs root and setpriv (util-linux) to run as another user")
    return pwd.getpwnam("nobody")


@pytest.fixture
def place(nobody) -> Iterator[Path]:
    """A folder in /tmp (pytest's own is root's alone): a read-only ``checkout``, a
    state folder and a TMPDIR of nobody's, and a copy of the config template."""
    base = Path(tempfile.mkdtemp(prefix="mtrain-anywhere-"))
    try:
        base.chmod(0o755)
        checkout = base / "checkout"
        checkout.mkdir()
        (checkout / "README.md").write_text("the maker's checkout\n")
        checkout.chmod(0o555)  # root's: nobody may read it, not write
        for mine in ("state", "tmp", "home"):
            (base / mine).mkdir()
            os.chown(base / mine, nobody.pw_uid, nobody.pw_gid)
        shutil.copy(TEMPLATE, base / "mtrain-hub.toml")
        (base / "mtrain-hub.toml").chmod(0o644)
        yield base
    finally:
        shutil.rmtree(base)


def selftest_as(user: pwd.struct_passwd, place: Path, backend: str) -> tuple[int, str, str]:
    """``mtrain-hub selftest --check`` as ``user`` from the read-only checkout: its exit
    status, its report (stdout) and its log (stderr)."""
    become = [
        "setpriv",
        f"--reuid={user.pw_uid}",
        f"--regid={user.pw_gid}",
        "--clear-groups",
    ]
    if not _reaches(user, Path(sys.executable)):
        # This machine's interpreter lies under root's home: let nobody read and search
        # it (and only that: CAP_DAC_READ_SEARCH writes nothing), as a system
        # interpreter would let it.
        become += ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
    result = subprocess.run(
        [
            *become,
            str(MTRAIN_HUB),
            "selftest",
            "--check",
            "--config",
            str(place / "mtrain-hub.toml"),
            "--backend",
            backend,
            "--sound-device",
            "null",
            "--state-dir",
            str(place / "state"),
        ],
        cwd=place / "checkout",
        env={**os.environ, "TMPDIR": str(place / "tmp"), "HOME": str(place / "home")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result.returncode, result.stdout, result.stderr


def pins_line(out: str) -> str:
    return next(line for line in out.splitlines() if line[6:].startswith("pins free"))


def test_the_check_passes_from_a_read_only_folder_as_another_user(nobody, place):
    status, out, log = selftest_as(nobody, place, "sim")
    assert status == 0, out + log
    assert out.splitlines()[-1] == "all checks passed"
    assert [p.name for p in (place / "checkout").iterdir()] == ["README.md"]


def test_lgpio_loads_from_a_read_only_folder_as_another_user(nobody, place):
    if importlib.util.find_spec("lgpio") is None:  # (importing it would make a pipe here)
        pytest.skip("lgpio is not installed (pip install -e '.[test]' brings it on x86_64)")
    _, out, log = selftest_as(nobody, place, "gpio")
    line = pins_line(out)
    out += log
    assert "notify pipe" in line or line.startswith("PASS"), out
    assert "cannot make its notify pipe" not in line, out
    if not line.startswith("PASS"):  # off a Pi: lgpio loaded, then no chip
        assert "no GPIO chip" in line and "lgpio itself loaded" in line, out
        assert f"its notify pipe in {place / 'tmp'}/lgpio-" in line, out
    assert list((place / "checkout").glob(".lgd-nfy*")) == []
    assert list((place / "tmp").glob("lgpio-*")) == [], "the private folder is removed"

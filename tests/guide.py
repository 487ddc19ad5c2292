"""The build guide's shell commands (hardware/README.md), run in a copy of the checkout.

They run in a copy because ``make hardware`` rewrites files other tests read, and
``make stl`` and the self-test write into build/, while other tests run at the same
time. ``make stl`` is run once per test run (the ``made_stl`` fixture in
tests/conftest.py): tests/deploy/test_hardware_guide.py checks the command, and
tests/deploy/test_enclosure.py the parts it made.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "hardware" / "README.md"
# Committed files a guide command could rewrite: none may change.
GENERATED = (
    "hardware/wiring.svg",
    "hardware/wiring-usb.svg",
    "hardware/layout.svg",
    "hardware/README.md",
)
PRODUCT = ("hub", "scorer", "web", "firmware_bridge", "tablesim")
# What the guide's commands need of the checkout.
CHECKOUT = ("Makefile", "pyproject.toml", "tools", "hardware", *PRODUCT)
# The guide's command that renders the enclosure (made once per test run).
STL_COMMAND = "make stl DOMINO_SET=12"


def checkout_copy(into: Path, names: Iterable[str] = CHECKOUT) -> Path:
    """The parts of the checkout the guide's commands use (or ``names``), copied under
    ``into`` (made here), without bytecode."""
    junk = shutil.ignore_patterns("__pycache__", "*.pyc")
    into.mkdir()
    for name in names:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, into / name, ignore=junk)
        else:
            shutil.copy2(ROOT / name, into / name)
    return into


@dataclass
class GuideRun:
    """One guide command run in a copy of the checkout (``root``)."""

    root: Path
    status: int
    stdout: str
    stderr: str
    changed: list[str]  # the committed files it changed (GENERATED)

    @property
    def output(self) -> str:
        """All it printed."""
        return self.stdout + self.stderr

    def save(self, path: Path) -> None:
        """Keep it as JSON (for the other test processes)."""
        path.write_text(json.dumps([self.status, self.stdout, self.stderr, self.changed]))

    @classmethod
    def load(cls, root: Path, path: Path) -> GuideRun:
        """As :meth:`save` kept it."""
        status, stdout, stderr, changed = json.loads(path.read_text())
        return cls(root, status, stdout, stderr, changed)


def run_in_a_copy(command: str, folder: Path) -> GuideRun:
    """``command`` as written, in a copy of the checkout under ``folder``, with the
    venv's commands on the PATH."""
    root = checkout_copy(folder / "checkout")
    before = {name: (root / name).read_bytes() for name in GENERATED}
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    done = subprocess.run(
        shlex.split(command), cwd=root, env=env, capture_output=True, text=True, timeout=900
    )
    changed = [name for name in GENERATED if (root / name).read_bytes() != before[name]]
    return GuideRun(root, done.returncode, done.stdout, done.stderr, changed)

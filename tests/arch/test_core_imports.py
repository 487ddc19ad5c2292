"""The pure core and the scorer import only the standard library and each other."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BANNED = {
    "threading",
    "time",
    "sqlite3",
    "socket",
    "subprocess",
    "asyncio",
    "select",
    "datetime",
    "random",
    "os",
}


def pure_files():
    files = [p for d in ("hub/core", "scorer") for p in (ROOT / d).rglob("*.py")]
    return [p for p in files if p.name != "store.py"]


def bad_imports(path: Path) -> list[str]:
    """Every import in ``path`` that the architecture does not allow in the core."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            root = name.split(".")[0]
            if root == "hub" and not name.startswith("hub.core"):
                bad.append(name)
            elif root in ("hub", "scorer"):
                continue
            elif root in BANNED or root not in sys.stdlib_module_names:
                bad.append(name)
    return bad


def test_there_is_a_core_to_check():
    assert len(pure_files()) >= 8


@pytest.mark.parametrize("path", pure_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_module_imports(path):
    assert bad_imports(path) == []


def test_the_check_catches_a_bad_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import time\nfrom gpiozero import Button\nfrom hub.loop import HubLoop\n")
    assert bad_imports(bad) == ["time", "gpiozero", "hub.loop"]

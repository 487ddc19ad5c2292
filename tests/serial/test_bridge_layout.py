"""The bridge's place in the layout: one module imports pyserial, and the bridge never
imports the hub's runtime (the composition root hands it ``post``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("hub", "scorer", "web", "firmware_bridge", "tablesim")


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_exactly_one_module_imports_pyserial():
    found = [
        p.relative_to(ROOT).as_posix()
        for d in PRODUCT
        for p in sorted((ROOT / d).rglob("*.py"))
        if any(n == "serial" or n.startswith("serial.") for n in imported(p))
    ]
    assert found == ["firmware_bridge/link.py"]


def test_the_bridge_imports_only_the_hubs_core():
    for path in sorted((ROOT / "firmware_bridge").rglob("*.py")):
        hub = {n for n in imported(path) if n == "hub" or n.startswith("hub.")}
        assert all(n.startswith("hub.core") for n in hub), (path, hub)

"""Every kind of log entry is one typed value with named fields (hub/core/entries.py),
and docs/api.md's table of kinds says the same."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import pytest

from hub.core import entries
from hub.core.effects import LogEntry
from hub.core.news import Kind, Reason

ROOT = Path(__file__).resolve().parents[2]


def _wire_names(cls: type[entries.Entry]) -> list[str]:
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    return [*names, "why"] if issubclass(cls, entries.ReminderEntry) else names


def _documented() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "api.md").read_text()
    table = text[text.index("| kind | fields |") :].split("\n\n")[0]
    found = {}
    for row in table.splitlines()[2:]:
        kind, described = row.split("|")[1:3]
        # the field names are the back-quoted words not inside a parenthesis
        bare = re.sub(r"\([^)]*\)", "", described)
        found[kind.strip().strip("`")] = re.findall(r"`([a-z_]+)`", bare)
    return found


def test_every_kind_has_one_entry_type_named_after_it() -> None:
    assert set(entries.ENTRIES) == set(Kind)
    for kind, cls in entries.ENTRIES.items():
        assert cls.KIND is kind
        assert cls.__name__ == "".join(w.capitalize() for w in kind.split("-")) + "Entry"


def test_the_api_docs_name_every_kind_and_its_fields_in_order() -> None:
    documented = _documented()
    assert set(documented) == {str(k) for k in Kind}
    for kind, cls in entries.ENTRIES.items():
        assert documented[str(kind)] == _wire_names(cls), kind


def test_an_entry_is_frozen_and_goes_on_the_wire_by_its_field_names() -> None:
    tap = entries.TapEntry(slot=3)
    with pytest.raises(FrozenInstanceError):
        tap.slot = 4  # type: ignore[misc]
    assert LogEntry(tap, 1.0).as_dict() == {"kind": "tap", "slot": 3}
    reminder = LogEntry(entries.ReminderEntry(2, Reason.DRAW), 1.0).as_dict()
    assert json.loads(json.dumps(reminder)) == {
        "kind": "reminder",
        "slot": 2,
        "reason": "draw",
        "why": Reason.DRAW.why,
    }
    undid = entries.UndoEntry("centre", {"kind": "tap", "slot": 3})
    assert dict(undid.items()) == {"by": "centre", "undid": {"kind": "tap", "slot": 3}, "why": None}


def test_the_product_makes_every_log_entry_from_a_typed_value() -> None:
    """``LogEntry(kind, at, pairs)`` and ``eventlog.append(kind, **fields)`` are gone:
    every call passes one of the typed entries."""
    made: list[str] = []
    for path in sorted((ROOT / "hub").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name not in ("LogEntry", "append") or not node.args:
                continue
            first = node.args[0]
            if name == "append" and "eventlog" not in ast.unparse(node.func):
                continue
            if isinstance(first, ast.Attribute) and ast.unparse(first).startswith("Kind."):
                made.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(first, ast.Constant) or node.keywords:
                made.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert made == []

"""The rooms' rules, read from docs/architecture.md ("The rooms and what each may
import") and held against the folder graph computed from the code.

The table is the source: a room is a folder named in its first column, the rooms it
may import are the backticked folders of its last column. Every import counts (module
level, in functions, under ``TYPE_CHECKING``; relative imports resolved), as in
tests/arch/test_architecture.py, whose graph this reads."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from tests.arch.test_architecture import PRODUCT, ROOT, circles, import_graph, product_modules

DOC = ROOT / "docs" / "architecture.md"
ROOMS_HEADER = "| room | holds | may import |"
WEB_HEADER = "| module | why it imports `web/` |"
FOLDER = re.compile(r"`([a-z_]+(?:/[a-z_]+)*/)`")
MODULE = re.compile(r"`([a-z_]+(?:\.[a-z_*]+)+)`")


def _table(text: str, header: str) -> list[list[str]]:
    """The rows (cells, stripped) of the markdown table under ``header``."""
    lines = text.splitlines()
    start = lines.index(header)
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _dotted(folder: str) -> str:
    return folder.rstrip("/").replace("/", ".")


def rooms_table(text: str) -> dict[str, set[str]]:
    """Room (dotted: ``hub.core``) -> the rooms it may import, from the doc's table.
    A backticked folder in the last column that is no room of the table is an error."""
    rows = _table(text, ROOMS_HEADER)
    rules: dict[str, set[str]] = {}
    for row in rows:
        found = FOLDER.match(row[0])
        assert found, f"a room row names no folder first: {row[0]!r}"
        rules[_dotted(found.group(1))] = {_dotted(f) for f in FOLDER.findall(row[-1])}
    unknown = {f"{room} -> {target}" for room, ts in rules.items() for target in ts} - {
        f"{room} -> {target}" for room, ts in rules.items() for target in ts if target in rules
    }
    assert not unknown, f"the table allows rooms it does not list: {sorted(unknown)}"
    return rules


def web_importers(text: str) -> set[str]:
    """The hub's modules the doc lets import web/ (``hub.http.*``: the whole room)."""
    return {MODULE.search(row[0]).group(1) for row in _table(text, WEB_HEADER)}  # type: ignore[union-attr]


def room_of(module: str, rooms: Iterable[str]) -> str | None:
    """The deepest room holding ``module``, or None."""
    holding = [r for r in rooms if module == r or module.startswith(r + ".")]
    return max(holding, key=len) if holding else None


def room_graph(
    graph: Mapping[str, set[str]], rooms: Iterable[str]
) -> dict[tuple[str, str], list[str]]:
    """(room, room it imports) -> the module imports that make that edge."""
    rooms = list(rooms)
    edges: dict[tuple[str, str], list[str]] = {}
    for module, targets in graph.items():
        source = room_of(module, rooms)
        for target in sorted(targets):
            into = room_of(target, rooms)
            if source and into and source != into:
                edges.setdefault((source, into), []).append(f"{module} -> {target}")
    return edges


def folder_rule_breaks(
    graph: Mapping[str, set[str]],
    rules: Mapping[str, set[str]],
) -> list[str]:
    """What the code does that the table forbids, and every pair of rooms that import
    each other, and every circle of rooms."""
    edges = room_graph(graph, rules)
    found = [
        f"{a} may not import {b}: {', '.join(how)}"
        for (a, b), how in sorted(edges.items())
        if b not in rules[a]
    ]
    found += [
        f"{a} and {b} import each other: {', '.join(edges[a, b] + edges[b, a])}"
        for (a, b) in sorted(edges)
        if a < b and (b, a) in edges
    ]
    rooms_graph: dict[str, set[str]] = {}
    for a, b in edges:
        rooms_graph.setdefault(a, set()).add(b)
    found += ["a circle of rooms: " + ", ".join(c) for c in circles(rooms_graph) if len(c) > 2]
    return found


def web_reach(graph: Mapping[str, set[str]], allowed: set[str]) -> set[str]:
    """The hub's imports of web/ by modules the doc does not list."""

    def listed(module: str) -> bool:
        return any(
            module == ok or (ok.endswith(".*") and module.startswith(ok[:-1])) for ok in allowed
        )

    return {
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == "hub" and not listed(module)
        for target in targets
        if target.split(".")[0] == "web"
    }


def test_the_table_names_every_product_folder_and_each_folder_once():
    rules = rooms_table(DOC.read_text(encoding="utf-8"))
    folders = {
        _dotted(init.parent.relative_to(ROOT).as_posix() + "/")
        for package in PRODUCT
        for init in (ROOT / package).rglob("__init__.py")
    }
    assert folders - set(rules) == set(), "folders the table does not name as rooms"
    assert set(rules) - folders == set(), "rooms in the table that are no folder"
    assert len(_table(DOC.read_text(encoding="utf-8"), ROOMS_HEADER)) == len(rules)


def test_the_table_itself_runs_one_way():
    rules = rooms_table(DOC.read_text(encoding="utf-8"))
    allowed = {room: set(targets) for room, targets in rules.items()}
    assert [c for c in circles(allowed)] == []


def test_the_code_keeps_the_rooms_rules():
    text = DOC.read_text(encoding="utf-8")
    graph = import_graph(product_modules())
    assert folder_rule_breaks(graph, rooms_table(text)) == []


def test_the_hub_imports_web_only_where_the_doc_says_why():
    text = DOC.read_text(encoding="utf-8")
    graph = import_graph(product_modules())
    allowed = web_importers(text)
    assert allowed <= {"hub.app", "hub.cli.restore"}  # the composition roots, no more
    assert web_reach(graph, allowed) == set()


def _package(root: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return import_graph(product_modules(root, ["pkg"]))


def test_the_check_catches_a_forbidden_import_anywhere_and_a_pair(tmp_path):
    graph = _package(
        tmp_path,
        {
            "pkg/__init__.py": '"""A package."""\n',
            "pkg/low/__init__.py": '"""Below."""\n',
            "pkg/low/a.py": "def f():\n    from ..high import b\n",  # relative, in a function
            "pkg/high/__init__.py": '"""Above."""\n',
            "pkg/high/b.py": "from pkg.low import a\n",
            "pkg/side/__init__.py": '"""Beside."""\n',
            "pkg/side/c.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.high.b\n"
            ),
        },
    )
    rules = {"pkg": set(), "pkg.low": set(), "pkg.high": {"pkg.low"}, "pkg.side": set()}
    assert folder_rule_breaks(graph, rules) == [
        "pkg.low may not import pkg.high: pkg.low.a -> pkg.high.b",
        "pkg.side may not import pkg.high: pkg.side.c -> pkg.high.b",
        "pkg.high and pkg.low import each other: pkg.high.b -> pkg.low.a, pkg.low.a -> pkg.high.b",
    ]
    rules["pkg.low"] = {"pkg.high"}  # allowed both ways: still a pair
    rules["pkg.side"] = {"pkg.high"}
    assert folder_rule_breaks(graph, rules) == [
        "pkg.high and pkg.low import each other: pkg.high.b -> pkg.low.a, pkg.low.a -> pkg.high.b",
    ]


def test_the_check_catches_a_circle_of_three_rooms():
    graph = {"a.x": {"b.x"}, "b.x": {"c.x"}, "c.x": {"a.x"}}
    rules = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    assert folder_rule_breaks(graph, rules) == ["a circle of rooms: a, b, c"]


def test_the_table_parser_reads_rooms_and_refuses_an_unknown_one():
    text = f"{ROOMS_HEADER}\n|---|---|---|\n| `a/` | x | — |\n| `a/b/` | y | `a/` (why) |\n"
    assert rooms_table(text) == {"a": set(), "a.b": {"a"}}
    try:
        rooms_table(text + "| `c/` | z | `d/` |\n")
    except AssertionError as exc:
        assert "c -> d" in str(exc)
    else:
        raise AssertionError("an unknown room was taken")


def test_the_web_list_takes_a_whole_room():
    graph = {"hub.http.server": {"web.service"}, "hub.games.trust": {"web.service"}}
    assert web_reach(graph, {"hub.http.*"}) == {"hub.games.trust -> web.service"}


# The project's design card and house style live beside the repository, not in it.
OUTSIDE = tuple(f"{name}.md" for name in ("DESIGN", "STYLE"))
CITING = ("hub", "scorer", "web", "firmware_bridge", "tablesim", "tests", "bench", "tools")
CITING += ("systemd", "hardware", "docs", "README.md", "Makefile", "pyproject.toml")


def test_the_product_cites_no_file_outside_the_repository():
    """The code and docs say what they rely on in docs/ (docs/architecture.md, "What the
    code relies on"); CHANGELOG.md keeps its history as it was written."""
    found = []
    for place in CITING:
        path = ROOT / place
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for file in files:
            if not file.is_file() or "node_modules" in file.parts or "__pycache__" in file.parts:
                continue
            try:
                text = file.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # a sound, an image
            found += [f"{file.relative_to(ROOT)}: {name}" for name in OUTSIDE if name in text]
    assert found == []

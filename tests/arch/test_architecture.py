"""The house docs/architecture.md draws, held by tests: rooms by kind, no import circle,
the wheel free of test doubles, and no import tricks (what each room may import:
tests/arch/test_rooms.py, from the doc's table).

The import graph counts every import statement of the product packages: at module
level, inside functions and under ``TYPE_CHECKING`` alike (a circle that only the type
checker walks is still two parts that know each other)."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tests.guide import checkout_copy

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("hub", "scorer", "web", "firmware_bridge", "tablesim")
BUILT_FROM = ("pyproject.toml", "README.md", *PRODUCT)  # what pip builds the wheel from
MOST_MODULES_IN_HUB = 8


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def product_modules(root: Path = ROOT, packages: Iterable[str] = PRODUCT) -> dict[str, Path]:
    """Every product module by its dotted name."""
    return {
        _module_name(path, root): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
    }


def _imported(node: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    """The dotted names one import statement asks for (``from a import b`` gives
    ``a.b`` and ``a``: the caller keeps whichever is a module)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".")
            base = base if is_package else base[:-1]
            base = base[: len(base) - (node.level - 1)]
            parent = ".".join(base + ([node.module] if node.module else []))
        else:
            parent = node.module or ""
        for alias in node.names:
            yield f"{parent}.{alias.name}"
        yield parent


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the product modules it imports (the most specific module each import
    names: ``from hub.io import pins`` is an edge to ``hub.io.pins``)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            wanted = list(_imported(node, name, path.name == "__init__.py"))
            if isinstance(node, ast.ImportFrom):
                found = [w for w in wanted[:-1] if w in modules] or (
                    [wanted[-1]] if wanted[-1] in modules else []
                )
            else:
                found = [w for w in wanted if w in modules]
            edges.update(found)
        edges.discard(name)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_product_has_modules_and_imports_to_check():
    modules = product_modules()
    graph = import_graph(modules)
    assert len(modules) > 100
    assert "hub.runtime.loop" in graph["hub.app"]
    assert "hub.io.pins" in graph["hub.app"]  # a from-import of a name in a module


def test_no_import_circle_in_the_product():
    found = circles(import_graph(product_modules()))
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_circle_check_catches_a_circle_through_a_function_and_type_checking(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""A package."""\n')
    (pkg / "a.py").write_text("def f():\n    from pkg import b\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.c\n"
    )
    (pkg / "c.py").write_text("from . import a\n")
    (pkg / "d.py").write_text("from pkg.a import f\n")
    graph = import_graph(product_modules(tmp_path, ["pkg"]))
    assert graph["pkg.d"] == {"pkg.a"}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_nothing_but_the_composition_root_and_tablesim_imports_hub_app():
    graph = import_graph(product_modules())
    importers = {name for name, targets in graph.items() if "hub.app" in targets}
    assert {name for name in importers if not name.startswith("tablesim.")} <= {"hub.cli.run"}


def test_hub_holds_a_handful_of_modules_and_rooms_named_for_what_they_hold():
    modules = sorted(p.name for p in (ROOT / "hub").glob("*.py"))
    assert len(modules) <= MOST_MODULES_IN_HUB, modules
    rooms = sorted(p.name for p in (ROOT / "hub").iterdir() if (p / "__init__.py").exists())
    for room in (
        "board",
        "cli",
        "core",
        "games",
        "http",
        "io",
        "mqtt",
        "persist",
        "runtime",
        "voice",
    ):
        assert room in rooms


def _packages() -> list[Path]:
    return sorted(init for package in PRODUCT for init in (ROOT / package).rglob("__init__.py"))


@pytest.mark.parametrize("init", _packages(), ids=lambda p: p.parent.relative_to(ROOT).as_posix())
def test_every_folder_says_what_lives_there(init):
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc, f"{init.relative_to(ROOT)} has no docstring"
    first = doc.splitlines()[0]
    assert len(first) <= 100 and first[0].isupper() or first.startswith(("``", "tablesim"))


def _is_sys_modules(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _sys_modules_writes(tree: ast.AST) -> list[int]:
    """The lines that change ``sys.modules`` (item set or deleted, or a mutating call)."""
    lines = []
    mutators = ("update", "setdefault", "pop", "popitem", "clear")
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
            if _is_sys_modules(node.value):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in mutators and _is_sys_modules(node.func.value):
                lines.append(node.lineno)
    return lines


def test_no_product_module_edits_sys_modules():
    found = {
        name: lines
        for name, path in product_modules().items()
        if (lines := _sys_modules_writes(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert found == {}


def test_the_sys_modules_check_catches_an_edit():
    tree = ast.parse(
        "import sys\nsys.modules['x'] = 1\nsys.modules.pop('y')\nsys.modules.get('z')\n"
    )
    assert _sys_modules_writes(tree) == [2, 3]


def test_one_argument_parser_in_the_product():
    found = [
        name
        for name, path in product_modules().items()
        if "ArgumentParser(" in path.read_text(encoding="utf-8")
    ]
    assert found == ["hub.cli.main"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel ``pip`` builds from this checkout's files, copied apart as the installer
    does (systemd/install.sh, ``stage_source``): setuptools writes ``build/`` and the
    egg-info beside the sources, and two test processes building in the checkout at once
    trip over each other's files."""
    source = checkout_copy(tmp_path_factory.mktemp("wheel-source") / "checkout", BUILT_FROM)
    out = tmp_path_factory.mktemp("wheel")
    # The test extra's setuptools builds it (no download: pip's isolated build would
    # fetch setuptools from the index at every run).
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    built = subprocess.run(
        [*command, "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, f"pip wheel failed:\n{built.stdout}{built.stderr}"
    (path,) = out.glob("mtrain_hub-*.whl")
    return zipfile.ZipFile(path)


# The test doubles and the simulator's stand-ins: none lives in the hub's own packages.
DOUBLE_PREFIXES = ("Fake", "Recording", "Inline", "Memory", "Freezable")
THE_SIMULATORS = {"FakeClock": "tablesim.virtual", "RecordingPlayer": "tablesim.virtual"}
# A tool the product offers by name: ``mtrain-hub fake-mcu`` runs the box's real firmware.
TOOLS = {"FakeMcu": "firmware_bridge.fake_mcu"}


def test_the_wheel_ships_the_product_and_no_tests(wheel):
    modules = {
        name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for name in wheel.namelist()
        if name.endswith(".py")
    }
    assert modules == set(product_modules())
    assert not any(name.split(".")[0] == "tests" for name in modules)
    assert not any("fake_service" in name for name in modules)
    assert "hub/board/static/board.js" in wheel.namelist()
    assert "web/static/app.js" in wheel.namelist()
    for lang in ("en", "es"):
        assert f"web/static/i18n/{lang}.json" in wheel.namelist()


def test_the_wheel_ships_no_test_double_in_the_hub(wheel):
    """A fake is the tests' or the simulator's: no class of ``hub``, ``scorer``, ``web``
    or ``firmware_bridge`` in the wheel is a double (but the fake box a maker runs), and
    the simulator's stand-ins (virtual time, a listening player) are defined in its own
    module only."""
    defined: dict[str, list[str]] = {}
    for name in wheel.namelist():
        if name.endswith(".py"):
            module = name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            for node in ast.walk(ast.parse(wheel.read(name).decode("utf-8"))):
                if isinstance(node, ast.ClassDef):
                    defined.setdefault(node.name, []).append(module)
    doubles = {
        cls: [m for m in modules if m.split(".")[0] != "tablesim"]
        for cls, modules in defined.items()
        if cls.startswith(DOUBLE_PREFIXES) and cls not in TOOLS
    }
    assert {cls: modules for cls, modules in doubles.items() if modules} == {}
    for cls, home in {**THE_SIMULATORS, **TOOLS}.items():
        assert defined[cls] == [home], cls


def test_no_wheel_module_imports_the_tests(wheel):
    for name in wheel.namelist():
        if name.endswith(".py"):
            tree = ast.parse(wheel.read(name).decode("utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom | ast.Import):
                    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                    names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
                    assert not any(n.split(".")[0] == "tests" for n in names), name

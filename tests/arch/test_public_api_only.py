"""The product uses its libraries through their front door (issue 32).

A library's private names (``_name``, ``lib._module``) and its undocumented classes can
change in any release; the old web server subclassed four of waitress's classes, wrote
its buffers and ran its own loop over waitress's socket map, and had to pin waitress to
one minor version. Read from the code with ``ast``, over the product's folders:

- no import of a private name or module of a third-party package
  (``from lib import _name``, ``import lib._module``, ``from lib._module import x``);
- no attribute access ``obj._name`` (nor ``getattr(obj, "_name")``) whose name the
  product does not define itself: an object's private attribute that none of our
  code defines can only be a library's (the standard library's ``os._exit`` and its
  like are named public in its docs and are left alone);
- a third-party class is subclassed only where its documentation offers it for that
  (:data:`DOCUMENTED_BASES`, each with where it says so).

There are no exceptions.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("hub", "web", "scorer", "firmware_bridge", "tablesim")
STDLIB = set(sys.stdlib_module_names)

# Third-party classes the product subclasses, and where their documentation offers it.
DOCUMENTED_BASES = {
    # "Subclasses must implement fileno, close_fd, write_to_fd, read_from_fd"
    # (tornado.iostream.BaseIOStream); IOStream is its socket implementation.
    "tornado.iostream.IOStream": "tornado.iostream.BaseIOStream docs",
    # "Implement this interface to handle requests from HTTPServer" (tornado.httputil).
    "tornado.httputil.HTTPServerConnectionDelegate": "tornado.httputil docs",
    # "Implement this interface to handle an HTTP request or response" (tornado.httputil).
    "tornado.httputil.HTTPMessageDelegate": "tornado.httputil docs",
}
ATTRIBUTE_CALLS = {"getattr", "setattr", "hasattr", "delattr"}


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def product_files() -> list[Path]:
    return [path for folder in PRODUCT for path in sorted((ROOT / folder).rglob("*.py"))]


def trees() -> Iterator[tuple[Path, ast.Module]]:
    for path in product_files():
        yield path.relative_to(ROOT), ast.parse(path.read_text(), str(path))


def third_party(module: str) -> bool:
    top = module.split(".")[0]
    return top not in STDLIB and top not in PRODUCT


def imported_names(tree: ast.Module) -> dict[str, str]:
    """Each name an import binds: the dotted name it stands for."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def defined_names(forest: list[tuple[Path, ast.Module]]) -> set[str]:
    """Every name the product defines: functions, classes, assignment targets (names
    and attributes), parameters, keyword arguments, ``__slots__`` entries."""
    names: set[str] = set()
    for _, tree in forest:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
            ):
                names.update(
                    e.value
                    for e in ast.walk(node.value)
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                )
    return names


def root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def private_imports(forest: list[tuple[Path, ast.Module]]) -> list[str]:
    """Imports of a library's private name or module."""
    wrong = []
    for path, tree in forest:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if third_party(alias.name) and any(map(private, alias.name.split("."))):
                        wrong.append(f"{path}:{node.lineno}: import {alias.name}")
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if not third_party(node.module):
                    continue
                if any(map(private, node.module.split("."))):
                    wrong.append(f"{path}:{node.lineno}: from {node.module} import ...")
                wrong += [
                    f"{path}:{node.lineno}: from {node.module} import {alias.name}"
                    for alias in node.names
                    if private(alias.name)
                ]
    return wrong


def private_attributes(forest: list[tuple[Path, ast.Module]]) -> list[str]:
    """Private attributes read or written that the product does not define itself."""
    ours = defined_names(forest)
    wrong = []
    for path, tree in forest:
        stdlib = {name for name, dotted in imported_names(tree).items() if not third_party(dotted)}
        for node in ast.walk(tree):
            attr, target = None, None
            if isinstance(node, ast.Attribute):
                attr, target = node.attr, node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ATTRIBUTE_CALLS
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                attr, target = node.args[1].value, node.args[0]
            if attr is None or target is None or not private(attr) or attr in ours:
                continue
            if root_name(target) in stdlib:
                continue
            wrong.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return wrong


def library_bases(forest: list[tuple[Path, ast.Module]]) -> dict[str, str]:
    """Third-party classes subclassed where their docs do not offer it: name, where."""
    found = {}
    for path, tree in forest:
        names = imported_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                root = root_name(base)
                if root is None or root not in names or not third_party(names[root]):
                    continue
                dotted = names[root] + ast.unparse(base)[len(root) :]
                if dotted not in DOCUMENTED_BASES:
                    found[dotted] = f"{path}:{node.lineno}"
    return found


def test_no_private_import_from_a_library():
    assert private_imports(list(trees())) == []


def test_no_private_attribute_that_only_a_library_defines():
    assert private_attributes(list(trees())) == []


def test_library_classes_are_subclassed_only_where_their_docs_offer_it():
    assert library_bases(list(trees())) == {}


def test_the_rules_catch_what_the_old_server_did():
    """Each check finds its reach in a sample of the old server's code."""
    old = (
        "from waitress import wasyncore\n"
        "from waitress.channel import HTTPChannel\n"
        "from waitress.task import _private_helper\n"
        "class LiveChannel(HTTPChannel):\n"
        "    def touch(self, obj):\n"
        "        return getattr(obj, '_map', None), self.server._fileno\n"
    )
    forest = [(Path("old.py"), ast.parse(old))]
    assert private_imports(forest) == ["old.py:3: from waitress.task import _private_helper"]
    assert private_attributes(forest) == [
        "old.py:6: getattr(obj, '_map', None)",
        "old.py:6: self.server._fileno",
    ]
    assert library_bases(forest) == {"waitress.channel.HTTPChannel": "old.py:4"}

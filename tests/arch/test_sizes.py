"""Small pieces, one name per class: docs/architecture.md's modules under 400 lines and functions
under 50, and no class name defined in two product modules (``import`` never a question).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("hub", "scorer", "web", "firmware_bridge", "tablesim")
MODULE_LINES = 400
FUNCTION_LINES = 50


def product_modules(root: Path = ROOT) -> list[Path]:
    """Every Python module of the product packages under ``root``."""
    return [p for d in PRODUCT for p in sorted((root / d).rglob("*.py"))]


def _name(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def too_big(paths: list[Path], root: Path = ROOT) -> list[str]:
    """``path: N lines`` for each module over the limit, and ``path:line name: N lines``
    for each function (or method) over it, decorators and docstring included."""
    found = []
    for path in paths:
        text = path.read_text()
        lines = len(text.splitlines())
        if lines > MODULE_LINES:
            found.append(f"{_name(path, root)}: {lines} lines")
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                length = (node.end_lineno or node.lineno) - first + 1
                if length > FUNCTION_LINES:
                    found.append(f"{_name(path, root)}:{node.lineno} {node.name}: {length} lines")
    return found


def shared_class_names(paths: list[Path], root: Path = ROOT) -> dict[str, list[str]]:
    """Each class name defined in more than one module, with those modules."""
    homes: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and _name(path, root) not in homes[node.name]:
                homes[node.name].append(_name(path, root))
    return {name: where for name, where in sorted(homes.items()) if len(where) > 1}


def test_there_are_modules_to_measure():
    assert len(product_modules()) > 100


def test_no_product_module_or_function_is_too_big():
    assert too_big(product_modules()) == []


def test_no_two_product_modules_define_a_class_of_the_same_name():
    assert shared_class_names(product_modules()) == {}


def _write(root: Path, name: str, text: str) -> Path:
    path = root / "hub" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_size_check_catches_a_long_module_and_a_long_function(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(50))
    long_function = _write(tmp_path, "long.py", f"@staticmethod\ndef play():\n{body}")
    long_module = _write(tmp_path, "big.py", "x = 1\n" * 401)
    short = _write(tmp_path, "short.py", "def play():\n" + "".join(body.splitlines(True)[:48]))
    assert too_big([long_function, long_module, short], tmp_path) == [
        "hub/long.py:2 play: 52 lines",
        "hub/big.py: 401 lines",
    ]


def test_the_name_check_catches_a_class_defined_twice(tmp_path):
    one = _write(tmp_path, "one.py", "class Train:\n    pass\nclass Double:\n    pass\n")
    two = _write(tmp_path, "io/two.py", "def f():\n    class Train:\n        pass\n")
    assert shared_class_names([one, two], tmp_path) == {"Train": ["hub/one.py", "hub/io/two.py"]}

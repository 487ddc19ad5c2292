"""Code that runs inside test processes never draws from the process-wide ``random``.

Hypothesis checks that the global generator's state is the same before and after it
draws an example: a background thread of an earlier test (a fake box restarting, the
server spreading a refused connection's pause) that drew from it made a property test
fail as "flaky" (seen in a ``make test`` run). Each such user keeps a generator of its
own (``random.Random()``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hub", "web", "scorer", "firmware_bridge", "tablesim")
# Where the global generator is fine: the firmware runs on MicroPython, on the Pico
# (its `random` has no Random class); the demo picks its seed once, at the command line.
ALLOWED = {
    "firmware_bridge/firmware/main.py": "runs on the Pico, not in a test process",
    "tablesim/demo.py": "the demo's seed, once, in its own process",
}


def global_draws(path: Path, root: Path = ROOT) -> list[str]:
    """``random.<name>(...)`` calls in ``path`` other than ``random.Random(...)``,
    named by ``path`` relative to ``root``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "random"
            and node.func.attr not in ("Random", "SystemRandom")
        ):
            found.append(f"{path.relative_to(root)}:{node.lineno} random.{node.func.attr}")
    return found


def test_no_module_draws_from_the_process_wide_random():
    found = [
        draw
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in ALLOWED
        for draw in global_draws(path)
    ]
    assert found == []


def test_the_check_finds_a_draw(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import random\nx = random.uniform(0, 1)\ny = random.Random(3)\n")
    assert global_draws(sample, tmp_path) == ["sample.py:2 random.uniform"]

"""ESLint over the page's code (``tests/eslint.config.mjs``; ``make eslint``, which
``make test`` runs): the page passes, and the config catches what it is there for.

ESLint is a pinned npm package used only by the tests (tests/package.json and its lock;
``make test`` installs it into tests/node_modules with ``npm ci``, beside axe-core).
Snippets are linted through stdin under a name in the page's folders, so the config's
own blocks apply and no file is written into the tree. Without Node.js or ESLint the
tests skip and say so, or fail when ``CI`` is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ESLINT = ROOT / "tests" / "node_modules" / ".bin" / "eslint"
CONFIG = ROOT / "tests" / "eslint.config.mjs"
PAGE_CODE = ["web/static", "hub/board/static"]
WIDTH = 100  # ruff's line-length in pyproject.toml


def eslint() -> Path:
    """The installed ESLint, or a skip (a failure under CI) saying how to get it."""
    missing = None
    if shutil.which("node") is None:
        missing = "Node.js (apt install nodejs npm)"
    elif not ESLINT.is_file():
        missing = f"{ESLINT} (cd tests && npm ci)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} is missing (make test installs it)")
        pytest.skip(f"{missing} is missing")
    return ESLINT


def lint(*args: str, source: str | None = None) -> subprocess.CompletedProcess[str]:
    """ESLint with the page's config, run from the repository's root as make runs it."""
    command = [str(eslint()), "-c", str(CONFIG), "--max-warnings", "0", *args]
    return subprocess.run(
        command, cwd=ROOT, input=source, capture_output=True, text=True, timeout=120
    )


def findings(source: str, as_file: str) -> list[tuple[int, str]]:
    """(line, rule) of every problem ESLint finds in ``source`` linted as ``as_file``,
    in order."""
    done = lint("--format", "json", "--stdin", "--stdin-filename", as_file, source=source)
    assert done.returncode in (0, 1), done.stderr
    (report,) = json.loads(done.stdout)
    return sorted((m["line"], m.get("ruleId") or m["message"]) for m in report["messages"])


def test_the_page_code_passes() -> None:
    done = lint(*PAGE_CODE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_module_naming_an_undefined_name_and_a_long_line_fails() -> None:
    source = (
        'import { t } from "./i18n.js";\n'
        "export const shown = (n) => t(nosuch(n));\n"
        f"export const wide = {'1 + ' * 30}1;\n"
    )
    assert findings(source, "web/static/snippet.js") == [(2, "no-undef"), (3, "max-len")]


def test_lines_of_exactly_the_width_pass() -> None:
    def line(width: int) -> str:
        head = "export const fits = "
        return head + '"' + "w" * (width - len(head) - 3) + '";\n'

    assert len(line(WIDTH)) == WIDTH + 1
    assert findings(line(WIDTH), "web/static/snippet.js") == []
    assert findings(line(WIDTH + 1), "web/static/snippet.js") == [(1, "max-len")]


def test_the_board_script_is_held_too() -> None:
    source = '"use strict";\nlet left = 0;\ndocument.title = String(nosuch);\n'
    found = findings(source, "hub/board/static/snippet.js")
    assert found == [(2, "no-unused-vars"), (2, "prefer-const"), (3, "no-undef")]


def test_loose_comparison_and_var_are_refused() -> None:
    source = "export function same(a, b) {\n  var c = a == b;\n  return c;\n}\n"
    found = findings(source, "web/static/snippet.js")
    assert found == [(2, "eqeqeq"), (2, "no-var")]

"""Text follows the phone's text-size setting (issue 23, "also seen"): every font size
in the scorepad's styles, its page and its scripts is in rem or em (or a keyword),
never in px, pt or a fixed SVG attribute, so a phone set to larger text gets it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
FILES = sorted(p for p in STATIC.iterdir() if p.suffix in (".css", ".html", ".js"))
# font-size: 12px · font: 700 14px/1.2 sans · font-size="12" (an SVG attribute) · fontSize = "12px"
FIXED = re.compile(
    r"font-size\s*:\s*[\d.]+(px|pt)\b"
    r"|font\s*:[^;{}]*?\b[\d.]+(px|pt)\b"
    r"|font-size\s*=\s*[\"']?[\d.]+(px|pt)?[\"'\s>]"
    r"|fontSize\s*=\s*[\"'`][\d.]+(px|pt)",
    re.I,
)


def test_the_scorepad_has_files_to_check() -> None:
    assert {p.name for p in FILES} >= {"app.css", "index.html", "table.js", "round.js"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_font_size_is_fixed_in_pixels(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    fixed = [
        f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in FIXED.finditer(text)
    ]
    assert not fixed, f"{path.name} sizes text in px/pt (use rem): {fixed}"


@pytest.mark.parametrize(
    "css",
    [".a { font-size: 12px; }", ".b { font: 700 14px/1.2 sans-serif; }", '<text font-size="12">'],
)
def test_the_check_finds_a_fixed_size(css: str) -> None:
    assert FIXED.search(css)

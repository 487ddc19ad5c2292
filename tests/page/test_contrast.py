"""Text contrast of the scorepad, light and dark, computed from app.css (WCAG 2.x).

Every pair of text colour and the background it is drawn on is at least 4.5:1 in
both schemes, the chart's series labels included. The colours are read from the
custom properties of ``:root`` and of its ``prefers-color-scheme: dark`` override;
every text colour app.css sets is one of those properties, and no script sets a
colour of its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
CSS = (STATIC / "app.css").read_text()
MINIMUM = 4.5

# (text, background, where): both are custom properties of app.css.
PAIRS = [
    ("fg", "bg", "body text, the chart's axis labels, the hub's centre"),
    ("fg", "panel", "header, tabs, buttons, fields, the virtual hub, a slot's name"),
    ("muted", "bg", "notes, tie-break notes, history, the hub's centre notes"),
    ("muted", "panel", "a slot's number on its disc"),
    ("fg", "empty", "an empty slot's name"),
    ("muted", "empty", "an empty slot's number"),
    ("on-public", "public", "a public train's slot text"),
    ("fg", "tile", "the engine tile, dominoes"),
    ("accent", "bg", "links, the current tab"),
    ("accent", "panel", "the current tab"),
    ("on-accent", "accent", "primary buttons, pressed tiles and chips"),
    ("bad", "bg", "field errors"),
    ("bad", "panel", "field errors in panels"),
    ("ok", "bg", "the deal line, went-out cells"),
    ("bg", "ok", "the Scorekeeper badge"),
    ("turn", "bg", "whose turn in the status line"),
    ("double", "bg", "the open double's note"),
    ("on-double", "double", "the reconnecting banner, a double's badge"),
    ("bg", "fg", "the toast"),
    *[(f"c{i}", "bg", f"the chart's series {i} label") for i in range(8)],
]
# Colours only ever drawn as lines or fills behind text already paired above.
NOT_TEXT = {"line", "turn", "mex", "tile-off", "public", "double", "empty", "panel", "bg", "tile"}


def variables(block: str) -> dict[str, str]:
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", block))


def schemes() -> dict[str, dict[str, str]]:
    light_block = re.search(r":root\s*\{(.*?)\}", CSS, re.S)
    dark_media = re.search(
        r"@media\s*\(prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{(.*?)\}", CSS, re.S
    )
    assert light_block and dark_media, "app.css must set :root colours and a dark override"
    light = variables(light_block.group(1))
    return {"light": light, "dark": {**light, **variables(dark_media.group(1))}}


def luminance(colour: str) -> float:
    hex_ = colour.lstrip("#")
    if len(hex_) == 3:
        hex_ = "".join(c * 2 for c in hex_)
    channels = [int(hex_[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_formula():
    assert contrast("#000", "#fff") == pytest.approx(21)
    assert contrast("#777", "#fff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("text, background, where", PAIRS)
def test_text_contrast(scheme, text, background, where):
    colours = schemes()[scheme]
    ratio = contrast(colours[text], colours[background])
    assert ratio >= MINIMUM, f"{scheme}: {text} on {background} ({where}) is {ratio:.2f}:1"


def test_every_text_colour_is_a_checked_property():
    """``color:`` and text ``fill:`` in app.css name a custom property that PAIRS checks."""
    checked = {text for text, _, _ in PAIRS}
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", CSS):
        for prop, value in re.findall(r"(?<![\w-])(color|fill)\s*:\s*([^;]+)", body):
            value = value.strip()
            if value in ("inherit", "none", "currentColor"):
                continue
            name = re.fullmatch(r"var\(--([\w-]+)\)", value)
            assert name, f"{selector.strip()}: {prop}: {value} is not a custom property"
            if prop == "fill" and name.group(1) in NOT_TEXT and "text" not in selector:
                continue
            assert name.group(1) in checked, f"{selector.strip()}: {prop}: {value} is not checked"


def test_scripts_set_no_colours():
    """Colours live in app.css (where this test checks them), never in a script."""
    for path in STATIC.glob("*.js"):
        text = path.read_text()
        found = re.findall(r"""[\s"'(:=]#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?\b(?![\w/-])""", text)
        assert not found, (path.name, found)
        assert "style=" not in text, path.name

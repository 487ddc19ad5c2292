"""One home per fact, across Python, the page and the firmware.

Each fact below is defined once. Python reads it from its home; the page gets it from
the hub (the snapshot, ``GET /api/rules``) where it can; where neither can carry it
(the page's own startup, its stylesheet, the standalone MicroPython firmware) a copy
is held to the home here, so a copy that drifts fails."""

from __future__ import annotations

import colorsys
import json
import re
from pathlib import Path

import pytest

from firmware_bridge.firmware import board, proto
from hub.core.state import PHASES, PLAYING
from hub.io.lights import MEXICAN, PLAYER_COLOURS
from hub.runtime.settings import SettingsError, check
from hub.voice.engine import VOICES
from hub.wire import i18n
from scorer.names import MAX_NAME
from scorer.player_stats import COLOURS
from scorer.profiles import SLOTS, rules_view

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "web" / "static"
BOARD_JS = ROOT / "hub" / "board" / "static" / "board.js"
PAGE_JS = sorted(STATIC.glob("*.js")) + [BOARD_JS]
PYTHON = sorted(
    path
    for package in ("hub", "scorer", "web", "firmware_bridge", "tablesim")
    for path in (ROOT / package).rglob("*.py")
)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _where(paths: list[Path], pattern: str) -> list[str]:
    """``file:line`` of each match of ``pattern`` in ``paths``."""
    found = []
    for path in paths:
        for number, line in enumerate(_text(path).splitlines(), 1):
            if re.search(pattern, line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


# --- the phases: hub/core/state.py, PHASES -------------------------------------------


def test_every_phase_the_code_names_is_one_of_the_phases():
    python = r"""phase"?\]?\s*(?:==|!=|=)\s*["']([a-z-]+)["']"""
    page = r"""phase\s*[!=]==\s*["']([a-z-]+)["']"""
    named = {
        (where, phase)
        for paths, pattern in ((PYTHON, python), (PAGE_JS, page))
        for where in _where(paths, pattern)
        for phase in re.findall(pattern, where.split(": ", 1)[1])
    }
    assert len(named) > 10  # the scan finds the comparisons
    assert {(where, phase) for where, phase in named if phase not in PHASES} == set()


def test_the_phases_are_listed_in_one_place():
    """No second list of the phases, nor of the playing ones: the page reads the
    snapshot's ``playing`` and words a phase as ``phase.<phase>``."""
    listed = r"""["']first-turn["'],\s*["']?play"""
    (home,) = _where(PYTHON + PAGE_JS, listed)
    assert home.startswith("hub/core/state.py:") and "PHASES = (" in home
    assert PLAYING == ("first-turn", "play")


def test_every_phase_has_words_on_the_page_and_the_board():
    for lang in i18n.LANGUAGES:
        words = i18n.catalog(lang)
        for phase in PHASES:
            assert f"phase.{phase}" in words and f"board.phase.{phase}" in words


# --- the languages: hub/wire/i18n.py, LANGUAGES --------------------------------------


def _js_list(path: Path, name: str) -> list[str]:
    found = re.search(rf"const {name} = (\[[^\]]*\]);", _text(path))
    assert found, f"{path.name} has no {name}"
    return json.loads(found.group(1))


def test_the_languages_are_the_catalogs_and_every_copy_says_the_same():
    languages = list(i18n.LANGUAGES)
    assert sorted(p.stem for p in i18n.CATALOGS.glob("*.json")) == sorted(languages)
    # The page must know them before it fetches anything; the board is one classic script.
    assert _js_list(STATIC / "i18n.js", "LANGUAGES") == languages
    assert _js_list(BOARD_JS, "LANGUAGES") == languages
    assert sorted(VOICES) == sorted(languages)  # the voice speaks each of them


def test_the_language_choice_is_built_from_the_list():
    """index.html offers only "as the phone is set": join.js adds one option a language."""
    html = _text(STATIC / "index.html")
    select = re.search(r'<select id="language">(.*?)</select>', html, re.S)
    assert select and re.findall(r'<option value="([^"]*)"', select.group(1)) == [""]


# --- a name's length: scorer/names.py, MAX_NAME --------------------------------------


def test_a_name_is_as_long_in_the_store_the_settings_and_the_page():
    assert rules_view()["name_length"] == MAX_NAME
    spelled = {"x" * MAX_NAME: "ex"}
    assert check({"spoken_names": spelled})["spoken_names"] == spelled
    with pytest.raises(SettingsError):
        check({"spoken_names": {"x" * (MAX_NAME + 1): "ex"}})
    # The page's name fields take the number from GET /api/rules.
    assert _where(PAGE_JS, r'maxlength="\d') == []


# --- the players' colours: hub/io/lights.py, PLAYER_COLOURS --------------------------


def _schemes() -> tuple[dict[str, str], dict[str, str]]:
    css = _text(STATIC / "app.css")
    light = re.search(r":root\s*\{(.*?)\}", css, re.S)
    dark = re.search(r"prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{(.*?)\}", css, re.S)
    assert light and dark

    def colours(block: str) -> dict[str, str]:
        return {k: v.lower() for k, v in re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})\b", block)}

    return colours(light.group(1)), colours(dark.group(1))


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _hls(hex_colour: str) -> tuple[float, float, float]:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)


def test_the_page_shows_the_rings_colours():
    light, dark = _schemes()
    ring = [_hex(c) for c in PLAYER_COLOURS] + [_hex(MEXICAN)]
    names = [f"c{i}" for i in range(len(PLAYER_COLOURS))] + ["mex"]
    assert [dark[name] for name in names] == ring
    for name, colour in zip(names, ring, strict=True):
        # The light scheme: the same hue, darker, to be read on white (tests/page/test_contrast.py).
        hue, lightness, saturation = _hls(colour)
        hue_light, lightness_light, _ = _hls(light[name])
        if saturation > 0.1:
            turn = abs(hue - hue_light) * 360
            assert min(turn, 360 - turn) <= 8, name
        assert lightness_light < lightness, name
    assert len(PLAYER_COLOURS) == len(SLOTS) == COLOURS  # a colour for every seat
    assert sorted(k for k in dark if re.fullmatch(r"c\d+", k)) == names[:-1]


# --- the page's rest after an answer: web/static/core.js, REST_MS --------------------


def test_the_page_rests_by_one_rule():
    (home,) = _where(PAGE_JS, r"REST_MS = ")
    assert home.startswith("web/static/core.js:") and home.endswith("REST_MS = 600;")
    for view in ("selftest.js", "fixes.js"):
        assert "rest(" in _text(STATIC / view), view
    assert _where(PAGE_JS, r"\b600\b") == [home]


def test_the_page_holds_as_long_as_the_hubs_thresholds_say():
    """The virtual hub's presses take their lengths from the snapshot's gestures."""
    assert _where(PAGE_JS, r"hold_ms:\s*\d") == []


# --- the slots: scorer/profiles.py, SLOTS --------------------------------------------


def test_the_slot_count_is_the_hubs_everywhere():
    count = len(SLOTS)
    assert SLOTS == tuple(range(1, count + 1))
    assert rules_view()["slots"] == count
    # The firmware runs standalone: its protocol's copy, and the pins it reads.
    assert proto.SLOTS == count
    assert len(board.BUTTON_PINS) == len(board.MARKER_PINS) == count
    # The bridge's side, and the firmware's loop over its inputs, count them by proto.SLOTS
    # (proto.py's own 8s are a byte's bits).
    bridge = sorted((ROOT / "firmware_bridge").glob("*.py")) + [
        ROOT / "firmware_bridge" / "firmware" / "mcu.py"
    ]
    bare = r"(range\(\s*[89]\s*\)|<=?\s*8\b|\*\s*8\b|\b1, 8\b|, 8, )"
    assert _where(bridge, bare) == []
    assert _where([STATIC / "newgame.js", STATIC / "ring.js"], r"[<>=/]\s*8\b|\b8\s*[),;]") == []

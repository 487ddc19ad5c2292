"""hardware/pinmap.md and the default config describe the same wiring."""

from __future__ import annotations

import re
from pathlib import Path

from hub.io.pinmap import BCM_TO_HEADER, HEADER, RESERVED, check_pins, free_pins
from hub.runtime.config import (
    DEFAULT_BUTTON_PINS,
    DEFAULT_CENTRE_PIN,
    DEFAULT_MARKER_PINS,
    DEFAULTS,
)


def test_pinmap_table_matches_default_config():
    text = (Path(__file__).parent.parent / "hardware" / "pinmap.md").read_text()
    rows = re.findall(r"^\|\s*(\d)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|$", text, re.M)
    assert [int(r[0]) for r in rows] == list(range(1, 9))
    assert [int(r[1]) for r in rows] == DEFAULT_BUTTON_PINS
    assert [int(r[2]) for r in rows] == DEFAULT_MARKER_PINS


def test_pinmap_names_the_centre_button_of_the_default_config():
    text = (Path(__file__).parent.parent / "hardware" / "pinmap.md").read_text()
    centre = re.search(r"^\|\s*centre\s*\|\s*(\d+)\s*\|", text, re.M)
    assert centre and int(centre.group(1)) == DEFAULT_CENTRE_PIN


def test_the_default_pins_are_free_of_clashes():
    uses = check_pins(DEFAULTS["pins"])
    assert len(uses) == 17 and not {u.pin for u in uses} & set(RESERVED)
    assert uses[0].where == "BCM 4 (header pin 7)"
    assert free_pins(DEFAULTS["pins"]) == [2, 3, 9]
    assert 20 in RESERVED and "I2S" in RESERVED[20]


def test_the_header_holds_every_gpio_once():
    assert sorted(BCM_TO_HEADER) == list(range(28))
    assert sorted(HEADER) == list(range(1, 41))

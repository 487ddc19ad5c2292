"""hardware/pinmap.md and the default config describe the same wiring."""

from __future__ import annotations

import re
from pathlib import Path

from hub.config import DEFAULT_BUTTON_PINS, DEFAULT_MARKER_PINS


def test_pinmap_table_matches_default_config():
    text = (Path(__file__).parent.parent / "hardware" / "pinmap.md").read_text()
    rows = re.findall(r"^\|\s*(\d)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|$", text, re.M)
    assert [int(r[0]) for r in rows] == list(range(1, 9))
    assert [int(r[1]) for r in rows] == DEFAULT_BUTTON_PINS
    assert [int(r[2]) for r in rows] == DEFAULT_MARKER_PINS

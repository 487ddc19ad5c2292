"""Tiles of a double-N set, private to the simulator: ``(high, low)`` pairs.

A set "double-N" holds every tile ``a-b`` with ``0 <= b <= a <= N``; the simulator
supports double-6 to double-18. A tile is written ``"6-5"`` (higher end first), the
notation the scorepad API takes. The double-blank option is what ``0-0`` is worth.
"""

from __future__ import annotations

from collections.abc import Iterable

Tile = tuple[int, int]

MIN_SET = 6
MAX_SET = 18
DOUBLE_BLANK_VALUES = (0, 25, 50)


def tile(a: int, b: int) -> Tile:
    """The tile with ends ``a`` and ``b``, higher end first."""
    return (a, b) if a >= b else (b, a)


def full_set(set_max: int) -> list[Tile]:
    """Every tile of the double-``set_max`` set, in a fixed order."""
    return [(a, b) for a in range(set_max + 1) for b in range(a + 1)]


def set_size(set_max: int) -> int:
    """How many tiles a double-``set_max`` set holds (91 for double-12)."""
    return (set_max + 1) * (set_max + 2) // 2


def is_double(t: Tile) -> bool:
    """True for a double such as ``(6, 6)``."""
    return t[0] == t[1]


def pips(t: Tile) -> int:
    """The pips on both ends."""
    return t[0] + t[1]


def matches(t: Tile, value: int) -> bool:
    """True when one end of ``t`` shows ``value``."""
    return value in t


def other_end(t: Tile, value: int) -> int:
    """The end left open when ``t`` is laid against ``value``."""
    return t[1] if t[0] == value else t[0]


def tile_points(t: Tile, double_blank: int = 0, blanks: bool = False) -> int:
    """What ``t`` scores left in a hand: its pips, or ``double_blank`` for ``0-0``;
    with ``blanks`` each blank half scores 25."""
    if blanks:
        return sum(25 if end == 0 else end for end in t)
    return double_blank if t == (0, 0) else pips(t)


def hand_points(hand: Iterable[Tile], double_blank: int = 0, blanks: bool = False) -> int:
    """The points a hand left at the end of a round scores."""
    return sum(tile_points(t, double_blank, blanks) for t in hand)


def tile_name(t: Tile) -> str:
    """``"6-5"`` for ``(6, 5)``."""
    return f"{t[0]}-{t[1]}"

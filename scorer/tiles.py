"""Domino sets, tile notation and pip counting.

A set "double-N" holds every tile ``a-b`` with ``0 <= b <= a <= N``: ``(N+1)(N+2)/2``
tiles (28 for double-6, 91 for double-12, 190 for double-18). The hub supports
double-6 to double-18 (a new game picks one of the sets that are made:
:data:`scorer.profiles.SETS`; a stored game's set is scored whatever it is).

A tile is written ``"6-5"``; ``"5-6"`` is the same tile. The canonical form puts the
higher end first (``"6-5"``, ``"12-0"``, ``"0-0"``).

The double-blank option (``0``, ``25`` or ``50``) is what the ``0-0`` tile is worth;
every other tile is worth its pips. The ``blanks`` option (``consensus``) counts every
blank half 25, so ``6-0`` scores 31 and ``0-0`` 50.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scorer.errors import FieldError, clip
from scorer.profiles import DOUBLE_BLANK_VALUES, SETS

MIN_SET = SETS[0]
MAX_SET = SETS[-1]


class TileError(FieldError):
    """A tile, a hand or a set that cannot be scored; the message says which and why.

    ``field``, when given, is the request body path at fault (``tiles.Ann``).
    """


@dataclass(frozen=True, order=True)
class Tile:
    """One domino: ``high`` and ``low`` are its two ends' pips, ``high >= low >= 0``."""

    high: int
    low: int

    def __post_init__(self) -> None:
        if not 0 <= self.low <= self.high:
            raise TileError(
                f"tile {self.high}-{self.low}: ends must satisfy 0 <= low <= high",
                code="tile_ends",
                tile=f"{self.high}-{self.low}",
            )

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    @property
    def pips(self) -> int:
        """The number of pips on both ends (``0-0`` has 0, whatever the option)."""
        return self.high + self.low

    @property
    def is_double(self) -> bool:
        """True for a double such as ``6-6``."""
        return self.high == self.low


def check_set_max(set_max: int) -> int:
    """Return ``set_max`` if it names a supported set (double-6 … double-18), else raise."""
    if isinstance(set_max, bool) or not isinstance(set_max, int):
        raise TileError(
            f"set {clip(set_max)}: must be a whole number from {MIN_SET} to {MAX_SET}",
            code="set_range",
            value=set_max,
            low=MIN_SET,
            high=MAX_SET,
        )
    if not MIN_SET <= set_max <= MAX_SET:
        raise TileError(
            f"set double-{set_max}: the hub supports double-{MIN_SET} to double-{MAX_SET}",
            code="set_range",
            value=set_max,
            low=MIN_SET,
            high=MAX_SET,
        )
    return set_max


def check_double_blank(double_blank: int) -> int:
    """Return the double-blank value if it is one of 0, 25 or 50, else raise."""
    if isinstance(double_blank, bool) or double_blank not in DOUBLE_BLANK_VALUES:
        raise TileError(
            f"double-blank worth {clip(double_blank)}: must be 0, 25 or 50",
            code="double_blank",
            value=double_blank,
            allowed=tuple(str(value) for value in sorted(DOUBLE_BLANK_VALUES)),
        )
    return double_blank


def set_size(set_max: int) -> int:
    """The number of tiles in a double-``set_max`` set: ``(N+1)(N+2)/2``."""
    check_set_max(set_max)
    return (set_max + 1) * (set_max + 2) // 2


def set_tiles(set_max: int) -> tuple[Tile, ...]:
    """Every tile of a double-``set_max`` set, in canonical order (``0-0``, ``1-0``, ``1-1`` …)."""
    check_set_max(set_max)
    return tuple(Tile(high, low) for high in range(set_max + 1) for low in range(high + 1))


def _parse_end(text: str, part: str) -> int:
    part = part.strip()
    if not part.isdigit() or not part.isascii():
        raise TileError(
            f"tile {clip(text)!r}: {clip(part)!r} is not a number of pips "
            "(write a tile as two numbers, like '6-5')",
            code="tile_text",
            tile=text,
        )
    return int(part)


def parse_tile(text: str | Tile, set_max: int = MAX_SET) -> Tile:
    """Parse ``"6-5"``/``"5-6"`` into a :class:`Tile` of the double-``set_max`` set.

    Raises :class:`TileError` (a ``ValueError``) for malformed text (``"6-"``,
    ``"a-b"``) and for a tile outside the set (``"13-2"`` in a double-12 set).
    """
    check_set_max(set_max)
    if isinstance(text, Tile):
        tile = text
    else:
        if not isinstance(text, str):
            raise TileError(
                f"tile {clip(text)}: must be text like '6-5'", code="tile_text", tile=text
            )
        parts = text.split("-")
        if len(parts) != 2:
            raise TileError(
                f"tile {clip(text)!r}: write a tile as two numbers joined by '-', like '6-5'",
                code="tile_text",
                tile=text,
            )
        first, second = (_parse_end(text, part) for part in parts)
        tile = Tile(max(first, second), min(first, second))
    if tile.high > set_max:
        raise TileError(
            f"tile {text!s}: not in a double-{set_max} set (ends go from 0 to {set_max})",
            code="tile_not_in_set",
            tile=str(tile),
            most=set_max,
        )
    return tile


def canonical(text: str, set_max: int = MAX_SET) -> str:
    """The canonical spelling of a tile, higher end first: ``"5-6"`` → ``"6-5"``."""
    return str(parse_tile(text, set_max))


BLANK_HALF = 25  # what a blank half scores under the ``blanks`` option


def tile_points(tile: Tile, double_blank: int = 0, blanks: bool = False) -> int:
    """Points a tile left in a hand scores: its pips; ``0-0`` scores the double-blank
    option; with ``blanks`` every blank half scores 25 (``0-0``: 50)."""
    check_double_blank(double_blank)
    if blanks:
        return sum(BLANK_HALF if end == 0 else end for end in (tile.high, tile.low))
    if tile == Tile(0, 0):
        return double_blank
    return tile.pips


def _whose(player: str | None) -> str:
    return f" in {player}'s hand" if player is not None else ""


def _hand(player: str | None) -> str | None:
    return f"tiles.{player}" if player is not None else None


def parse_hand(
    tiles: Iterable[str | Tile],
    set_max: int,
    player: str | None = None,
    engine: int | None = None,
) -> tuple[Tile, ...]:
    """Parse a hand, refusing malformed and out-of-set tiles, duplicates and the engine.

    ``player`` only names the hand in error messages; ``engine`` (the round's engine
    pips) is refused because the engine sits in the hub, not in anyone's hand.
    """
    if isinstance(tiles, str):
        raise TileError(
            f"hand{_whose(player)}: must be a list of tiles, not the text {clip(tiles)!r}",
            _hand(player),
            code="hand_list",
            name=player,
        )
    seen: set[Tile] = set()
    hand: list[Tile] = []
    for text in tiles:
        try:
            tile = parse_tile(text, set_max)
        except TileError as error:
            raise TileError(
                f"{error}{_whose(player)}", _hand(player), code=error.code, **error.params
            ) from None
        if tile in seen:
            raise TileError(
                f"tile {tile} appears twice{_whose(player)}",
                _hand(player),
                code="tile_twice",
                tile=str(tile),
            )
        if engine is not None and tile == Tile(engine, engine):
            raise TileError(
                f"tile {tile}{_whose(player)} is this round's engine",
                _hand(player),
                code="tile_engine",
                tile=str(tile),
            )
        seen.add(tile)
        hand.append(tile)
    return tuple(hand)


def hand_points(
    tiles: Iterable[str | Tile],
    set_max: int,
    double_blank: int = 0,
    player: str | None = None,
    engine: int | None = None,
    blanks: bool = False,
) -> int:
    """Points for one hand: the sum of :func:`tile_points` after :func:`parse_hand`'s checks."""
    check_double_blank(double_blank)
    hand = parse_hand(tiles, set_max, player, engine)
    return sum(tile_points(tile, double_blank, blanks) for tile in hand)


def hands_points(
    hands: Mapping[str, Sequence[str | Tile]],
    set_max: int,
    double_blank: int = 0,
    engine: int | None = None,
    blanks: bool = False,
) -> dict[str, int]:
    """Points for every player's hand, refusing a tile held twice, even by two players.

    The error names the tile and the player(s): ``tile 6-5 is in both Ann's and Bo's hand``.
    """
    check_double_blank(double_blank)
    holder: dict[Tile, str] = {}
    points: dict[str, int] = {}
    for player, tiles in hands.items():
        hand = parse_hand(tiles, set_max, player, engine)
        for tile in hand:
            if tile in holder:
                raise TileError(
                    f"tile {tile} is in both {holder[tile]}'s and {player}'s hand",
                    _hand(player),
                    code="tile_two_hands",
                    tile=str(tile),
                    one=holder[tile],
                    other=player,
                )
            holder[tile] = player
        points[player] = sum(tile_points(tile, double_blank, blanks) for tile in hand)
    return points


def max_hand_points(set_max: int, engine: int, double_blank: int = 0, blanks: bool = False) -> int:
    """The most points one hand could hold in a round: every tile but the engine.

    Used to refuse typed-in points that no hand could reach. With engine 0 the
    ``0-0`` tile is in the hub, so the double-blank option adds nothing.
    """
    check_set_max(set_max)
    if isinstance(engine, bool) or not isinstance(engine, int) or not 0 <= engine <= set_max:
        raise TileError(
            f"engine {clip(engine)}: not a double of a double-{set_max} set",
            "engine",
            code="engine_range",
            value=engine,
            most=set_max,
        )
    total = sum(tile_points(tile, double_blank, blanks) for tile in set_tiles(set_max))
    return total - tile_points(Tile(engine, engine), double_blank, blanks)

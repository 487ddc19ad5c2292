"""The deal helper: which set a profile plays by default and how many tiles each player takes.

The tables themselves are rule data and live in :mod:`scorer.profiles`
(``Profile.tiles_each`` and ``Profile.default_set``, the rows of ``docs/rules.md``);
this module looks them up and does the arithmetic.

**The boneyard figure includes the engine.** ``boneyard = set size - players × tiles
each``. The consensus seed's own example (Galt, 3 players, double-12: "the players
hold 45 tiles, leaving 46 tiles in the boneyard", 91 - 45) counts it that way, and so
do the engine-holder profiles, where the engine is dealt or drawn like any tile. A
table that sets the engine aside before shuffling has ``boneyard - 1`` tiles to draw.
"""

from __future__ import annotations

from typing import NamedTuple

from scorer.errors import FieldError, clip
from scorer.profiles import PROFILE_IDS, PROFILES, Rows
from scorer.tiles import check_set_max, set_size

__all__ = [
    "PROFILE_IDS",
    "Deal",
    "DealError",
    "check_players",
    "check_profile",
    "deal",
    "default_set",
    "player_range",
    "tiles_each",
]


class DealError(FieldError):
    """A profile, player count or set the deal tables do not cover; the message says why."""


class Deal(NamedTuple):
    """Tiles dealt to each player, and the tiles left undealt (engine included)."""

    tiles_each: int
    boneyard: int


def check_profile(profile: str) -> str:
    """Return ``profile`` if it is one of :data:`PROFILE_IDS`, else raise :class:`DealError`."""
    if profile not in PROFILE_IDS:
        raise DealError(
            f"rules {clip(profile)}: unknown profile; choose one of {', '.join(PROFILE_IDS)}",
            "rules",
            code="no_such_rules",
            value=profile,
            allowed=PROFILE_IDS,
        )
    return profile


def player_range(profile: str) -> tuple[int, int]:
    """The fewest and most players ``profile`` supports (e.g. ``(2, 8)``)."""
    rows = PROFILES[check_profile(profile)].tiles_each
    return rows[0][0], rows[-1][1]


def _lookup(rows: Rows, profile: str, players: int) -> int:
    if isinstance(players, bool) or not isinstance(players, int):
        raise DealError(
            f"players {clip(players)}: must be a whole number",
            "players",
            code="whole_number",
            value=players,
        )
    for fewest, most, value in rows:
        if fewest <= players <= most:
            return value
    fewest, most = player_range(profile)
    raise DealError(
        f"{players} players: {profile} rules are for {fewest} to {most} players",
        "players",
        code="rules_players",
        rules=profile,
        fewest=fewest,
        most=most,
        given=players,
    )


def check_players(profile: str, players: int) -> int:
    """Return ``players`` if ``profile`` supports that many players, else raise."""
    _lookup(PROFILES[check_profile(profile)].tiles_each, profile, players)
    return players


def tiles_each(profile: str, players: int, set_max: int | None = None) -> int:
    """How many tiles each player draws under ``profile`` with ``players`` players (on
    a double-``set_max`` set: ``consensus`` deals fewer on the smaller sets)."""
    check_players(profile, players)
    return _lookup(PROFILES[profile].deal_rows(set_max), profile, players)


def default_set(profile: str, players: int) -> int:
    """The set (its max pips) ``profile`` plays with ``players`` players by default."""
    check_players(profile, players)
    return _lookup(PROFILES[profile].default_set, profile, players)


def deal(profile: str, players: int, set_max: int | None = None) -> Deal:
    """Tiles each and boneyard for ``players`` players under ``profile``.

    ``set_max=None`` uses :func:`default_set`. The boneyard counts the engine (see
    the module docstring): 3 players, double-12, consensus → ``Deal(15, 46)``.
    Raises :class:`DealError` for an unknown profile, an unsupported player count,
    or a set too small to deal that many tiles.
    """
    if set_max is None:
        set_max = default_set(profile, players)
    try:
        size = set_size(check_set_max(set_max))
    except FieldError as error:
        raise DealError(str(error), "set", code=error.code, **error.params) from None
    try:
        each = tiles_each(profile, players, set_max)
    except DealError:
        check_players(profile, players)  # the profile's own limit is named first
        raise DealError(
            f"{players} players: no deal for a double-{set_max} set",
            "set",
            code="no_deal",
            given=players,
            set=set_max,
        ) from None
    # At least the engine must remain outside the hands.
    if players * each > size - 1:
        raise DealError(
            f"{players} players × {each} tiles need more than the "
            f"{size} tiles of a double-{set_max} set",
            "set",
            code="no_deal",
            given=players,
            set=set_max,
        )
    return Deal(each, size - players * each)

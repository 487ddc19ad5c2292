"""The four rule profiles as the simulator plays them (``docs/rules.md``'s table).

Only what changes the tile-level game is here: who starts, the first turn, what a
double obliges, the deal and the default set. Kept apart from ``scorer/profiles.py`` on
purpose: the simulator is the independent "truth" the hub is checked against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

# (fewest players, most players, value)
Rows = tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class OracleProfile:
    """One rule system.

    ``starter``: ``rotate``, ``engine-holder`` or ``engine-left``. ``first_turn``:
    ``string`` (as many tiles as the player strings on their own train) or
    ``single``. ``after_double``: ``again``, ``answer``, ``cover`` or ``satisfy``.
    """

    name: str
    starter: str
    first_turn: str
    after_double: str
    out_waits_first_turns: bool
    chickenfoot_allowed: bool
    partnerships_allowed: bool
    tiles_each: Rows
    default_set: Rows
    mexican_in_first_turn: bool = False
    mexican_double_one_cover: bool = False
    privatising_double_free: bool = False
    last_tile_reminder: bool = False
    engine_chosen: bool = False
    blanks_allowed: bool = False
    last_tile_call_allowed: bool = False  # the call as an option (consensus)
    small_set_deals: tuple[tuple[int, Rows], ...] = ()  # (set, rows): fewer tiles each
    string_double_waits: bool = False  # a first-turn string ending on a double: it waits
    variants: tuple[str, ...] = ()  # the consensus seed's variations a game may switch on
    has_mexican: bool = True  # triples (seed 004) names only "public trains": none
    continuous_draw: bool = False  # a double back with its player: they draw till it fits
    doubled_doubles: bool = False  # more doubles in the doubler's turn, covered in order

    def with_variants(self, switched: tuple[str, ...]) -> OracleProfile:
        """The profile as played with these variations (:data:`VARIANTS`) switched on."""
        played = self
        for name in switched:
            if name not in self.variants:
                raise ValueError(f"{name}: not a variation of the {self.name} profile")
            played = replace(played, **VARIANTS[name])
        return played

    @property
    def tracks_doubles(self) -> bool:
        """True when a played double stays open until covered (all but ``again``)."""
        return self.after_double != "again"

    def hand_size(self, players: int, set_max: int | None = None) -> int:
        """Tiles each player is dealt with ``players`` players (on a double-``set_max``)."""
        for small, rows in self.small_set_deals:
            if small == set_max:
                return _lookup(rows, players, f"{self.name} on double-{small}")
        return _lookup(self.tiles_each, players, self.name)

    def set_for(self, players: int) -> int:
        """The set (its max pips) played by default with ``players`` players."""
        return _lookup(self.default_set, players, self.name)


def _lookup(rows: Rows, players: int, name: str) -> int:
    for fewest, most, value in rows:
        if fewest <= players <= most:
            return value
    raise ValueError(f"{players} players: the {name} profile is for 2 to 8 players")


# The consensus seed's "Variations" as the simulator plays them: a fast game builds
# everyone's own train first (a string, own train only; a string ending on a double
# leaves it for the player's second turn); "cover optional" obliges nobody (like aces);
# "any train to cover" lets a cover go on any public train (like triples); "continuous
# draw": a double that went round uncovered is covered by its player, who draws until
# they can; "doubled doubles": the doubler may lay more doubles before covering the
# first, and the doubles are covered in order, one a turn.
VARIANTS: dict[str, dict[str, Any]] = {
    "fast_game": {
        "first_turn": "string",
        "mexican_in_first_turn": False,
        "string_double_waits": True,
    },
    "cover_optional": {"after_double": "again"},
    "any_train_cover": {"after_double": "satisfy"},
    "continuous_draw": {"continuous_draw": True},
    "doubled_doubles": {"doubled_doubles": True},
}

PROFILES: dict[str, OracleProfile] = {
    "aces": OracleProfile(
        name="aces",
        starter="engine-left",
        first_turn="string",
        after_double="again",
        out_waits_first_turns=True,
        chickenfoot_allowed=False,
        partnerships_allowed=False,
        tiles_each=((2, 4, 15), (5, 6, 12), (7, 8, 10)),
        default_set=((2, 8, 12),),
        engine_chosen=True,
    ),
    "mexicantrainfun": OracleProfile(
        name="mexicantrainfun",
        starter="engine-holder",
        first_turn="single",
        after_double="answer",
        out_waits_first_turns=False,
        chickenfoot_allowed=True,
        partnerships_allowed=False,
        tiles_each=((2, 3, 8), (4, 6, 12), (7, 8, 10)),
        default_set=((2, 3, 9), (4, 8, 12)),
        mexican_in_first_turn=True,
        mexican_double_one_cover=True,
        last_tile_reminder=True,
    ),
    "consensus": OracleProfile(
        name="consensus",
        starter="rotate",
        first_turn="single",
        after_double="cover",
        out_waits_first_turns=False,
        chickenfoot_allowed=True,
        partnerships_allowed=True,
        tiles_each=((2, 4, 15), (5, 6, 12), (7, 8, 11)),
        default_set=((2, 8, 12),),
        privatising_double_free=True,
        blanks_allowed=True,
        last_tile_call_allowed=True,
        # seed 003's table: Glowing Look Games on double-6; Bauguess 2012 (2-4) and
        # the unattributed row (5-7) on double-9.
        variants=(
            "fast_game",
            "cover_optional",
            "any_train_cover",
            "continuous_draw",
            "doubled_doubles",
        ),
        small_set_deals=(
            (6, ((2, 2, 9), (3, 3, 8), (4, 4, 6))),
            (9, ((2, 2, 15), (3, 3, 13), (4, 4, 10), (5, 5, 9), (6, 7, 7))),
        ),
    ),
    "triples": OracleProfile(
        name="triples",
        string_double_waits=True,
        has_mexican=False,
        starter="engine-holder",
        first_turn="string",
        after_double="satisfy",
        out_waits_first_turns=False,
        chickenfoot_allowed=False,
        partnerships_allowed=False,
        tiles_each=((2, 4, 15), (5, 6, 12), (7, 8, 11)),
        default_set=((2, 8, 12),),
    ),
}

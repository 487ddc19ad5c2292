"""The rule data, in one place: profiles, deal tables, default sets, sets and options.

Everything a rule system fixes lives here (``docs/rules.md`` says why each value is
what it is): :data:`PROFILES` (how the table plays, how many tiles each player draws,
which set is the default, which options are offered), :data:`SETS` (the domino sets a
new game may use) and :data:`OPTIONS` (each game option with its allowed values).
The hub's core (:mod:`hub.core.turns`), the new-game check (:mod:`scorer.setup`), the
deal helper (:mod:`scorer.deal`), the store and ``GET /api/rules`` all read it from
here; nothing else keeps a copy (``tablesim`` keeps an independent oracle that a test
holds against this data, field by field).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from scorer.names import MAX_NAME

# (fewest players, most players, value): tiles each, or the default set's max pips.
Rows = tuple[tuple[int, int, int], ...]

# The domino sets a new game may use, by their highest double: the sets that are made
# and that the seeds' deal tables name (double-6, -9, -12, -15, -18).
SETS: tuple[int, ...] = (6, 9, 12, 15, 18)

# The hub's slots, 1 to 8 clockwise (README.md): where players sit and trains start.
SLOTS: tuple[int, ...] = tuple(range(1, 9))

# A game seats 2 players up to one a slot, whatever the profile's deal table.
HUB_PLAYERS: tuple[int, int] = (2, len(SLOTS))

# The most rounds a series may have under a profile whose series is open (``aces``:
# "whoever has the fewest points at the end of the series"); others play set + 1.
SERIES_MAX = 99

# What the 0-0 tile may score (the ``double_blank`` option).
DOUBLE_BLANK_VALUES: tuple[int, ...] = (0, 25, 50)


@dataclass(frozen=True)
class Option:
    """A game option: the values it accepts (the first is the default) and its label.

    ``players``: the player counts it needs, or ``None`` for any. ``requires``: when
    the option is not at its default, the values other options must have (``blanks``
    scores the double blank 50, so ``double_blank`` may only be 0, its default, or 50).
    ``overrides``: a variant of the rules, switched on: the profile fields it changes
    (:meth:`Profile.played`).
    """

    id: str
    values: tuple[bool | int, ...]
    label: str
    players: tuple[int, ...] | None = None
    requires: tuple[tuple[str, tuple[bool | int, ...]], ...] = ()
    overrides: tuple[tuple[str, object], ...] = ()

    @property
    def default(self) -> bool | int:
        """The value a game has when the option is not given."""
        return self.values[0]


OPTIONS: dict[str, Option] = {
    option.id: option
    for option in (
        Option("chickenfoot", (False, True), "Chickenfoot: a double needs three tiles on it"),
        Option(
            "partnerships",
            (False, True),
            "Partners: partners sit opposite and score as a team",
            (4, 6, 8),
        ),
        Option("double_blank", DOUBLE_BLANK_VALUES, "The double blank scores"),
        Option(
            "blanks",
            (False, True),
            "Blanks: every blank half scores 25, the double blank 50",
            requires=(("double_blank", (0, 50)),),
        ),
        Option(
            "last_tile_call",
            (False, True),
            "Last-tile call: tap the table with one tile left, or draw two if caught",
        ),
        # The consensus seed's variations the hub can follow (docs/rules.md).
        Option(
            "fast_game",
            (False, True),
            "Fast game: first, everyone builds their own train as far as they can",
            overrides=(
                ("first_turn", "string"),
                ("public_in_first_turn", False),
                ("mexican_in_first_turn", False),
                ("double_waits_in_first_turn", True),
            ),
        ),
        Option(
            "cover_optional",
            (False, True),
            "Cover optional: a double obliges nobody",
            requires=(("chickenfoot", (False,)), ("any_train_cover", (False,))),
            overrides=(("after_double", "again"),),
        ),
        Option(
            "any_train_cover",
            (False, True),
            "Any-train cover: a double may be covered on any public train",
            requires=(("chickenfoot", (False,)),),
            overrides=(("after_double", "satisfy"),),
        ),
        Option(
            "continuous_draw",
            (False, True),
            "Continuous draw: when nobody could cover a double, its player draws until they can",
            requires=(
                ("chickenfoot", (False,)),
                ("cover_optional", (False,)),
                ("any_train_cover", (False,)),
            ),
            overrides=(("continuous_draw", True),),
        ),
        Option(
            "doubled_doubles",
            (False, True),
            "Doubled doubles: several doubles in one turn, covered in order, one a turn",
            requires=(
                ("chickenfoot", (False,)),
                ("cover_optional", (False,)),
                ("any_train_cover", (False,)),
                ("continuous_draw", (False,)),
            ),
            overrides=(("doubled_doubles", True),),
        ),
    )
}


@dataclass(frozen=True)
class Profile:
    """One rule system: how the hub keeps the table, and the deal.

    ``starter``: ``rotate`` (a designated player, one seat clockwise each round),
    ``engine-holder`` (whoever places the engine starts) or ``engine-left`` (the
    player clockwise of whoever placed it).
    ``after_double``: ``again`` (same player plays again, nothing owed), ``answer``
    (own double must be answered; followers who fail pass without a marker),
    ``cover`` (every player who fails marks public), ``satisfy`` (cover on the
    double or on any public train).
    ``options``: the ids of :data:`OPTIONS` a game under this profile may set.
    ``tiles_each`` and ``default_set``: the seed's deal table and default set by
    player count (rows may go beyond the hub's 8 players: the seed's figures).
    ``mexican_in_first_turn``: the Mexican Train may be played in the first turns
    (marked trains only when ``public_in_first_turn``). ``doubler_must_mark``: a
    doubler who cannot answer must put their marker down (reminded), though followers
    need not. ``mexican_double_one_cover``: with chickenfoot, a double on the Mexican
    Train needs one cover. ``privatising_double_free``: a double played on one's own
    public train to make it private again needs no cover (Galt's second exception).
    ``last_tile_reminder``: the last-tile call is always in force (with the option
    ``last_tile_call`` where the profile offers it): going out without having called
    is noted in the log (see :meth:`last_tile_call`).
    ``engine_chosen``: the engine is the highest double anyone holds, so the table
    names it each round (default: the next lower double).
    ``tiles_by_set``: the seed's deal for a set other than the default's, where it
    gives one (set, rows); ``tiles_each`` holds for every other set.
    ``open_series``: a game may have more rounds than the set has engines (up to
    :data:`SERIES_MAX`; the table names each engine, so the series goes round again).
    ``mexican_train``: the game has a Mexican Train (``triples``' seed has none: no
    Mexican slot, and the centre never stands for one).
    ``continuous_draw``: when a double has gone round the table uncovered, its player
    draws until they can cover it: the hub accepts no failure from them (option
    ``continuous_draw``). ``doubled_doubles``: the doubler may lay more doubles in the
    same turn before covering the first; they wait in order, each covered by the
    player whose turn follows the last one's cover (option ``doubled_doubles``).
    """

    id: str
    name: str
    starter: str
    first_turn: str
    public_in_first_turn: bool
    after_double: str
    fail_reminder: bool
    out_waits_first_turns: bool
    double_waits_in_first_turn: bool
    options: tuple[str, ...]
    tiles_each: Rows
    default_set: Rows
    players: tuple[int, int] = field(default=HUB_PLAYERS)
    mexican_in_first_turn: bool = True
    doubler_must_mark: bool = False
    mexican_double_one_cover: bool = False
    privatising_double_free: bool = False
    last_tile_reminder: bool = False
    engine_chosen: bool = False
    tiles_by_set: tuple[tuple[int, Rows], ...] = ()
    open_series: bool = False
    mexican_train: bool = True
    continuous_draw: bool = False
    doubled_doubles: bool = False

    def most_rounds(self, set_max: int) -> int:
        """The most rounds a game on a double-``set_max`` set may have."""
        return SERIES_MAX if self.open_series else set_max + 1

    def played(self, options: Mapping[str, object]) -> Profile:
        """The profile as a game with these options plays it: each variant switched
        on (an option with ``overrides`` that this profile offers) changes its fields."""
        changes = {
            key: value
            for name in self.options
            if options.get(name) and OPTIONS[name].overrides
            for key, value in OPTIONS[name].overrides
        }
        return replace(self, **changes) if changes else self  # type: ignore[arg-type]

    def deal_rows(self, set_max: int | None = None) -> Rows:
        """The deal table (tiles each by player count) for a double-``set_max`` set."""
        return dict(self.tiles_by_set).get(set_max, self.tiles_each) if set_max else self.tiles_each

    @property
    def blanks_allowed(self) -> bool:
        """True when every blank half may score 25 (option ``blanks``)."""
        return "blanks" in self.options

    @property
    def chickenfoot_allowed(self) -> bool:
        """True when a game may play doubles with three covers."""
        return "chickenfoot" in self.options

    @property
    def partnerships_allowed(self) -> bool:
        """True when a game may be played in partnerships."""
        return "partnerships" in self.options

    def covers(self, options: dict[str, object], on_mexican: bool = False) -> int:
        """Covers a double needs under this profile with these game options (one on
        the Mexican Train where the profile says so)."""
        if self.chickenfoot_allowed and options.get("chickenfoot"):
            return 1 if on_mexican and self.mexican_double_one_cover else 3
        return 1

    def last_tile_call(self, options: dict[str, object]) -> bool:
        """True when the last-tile call is in force: always (``last_tile_reminder``), or
        when the profile offers it as the ``last_tile_call`` option and it is on."""
        offered = "last_tile_call" in self.options and bool(options.get("last_tile_call"))
        return self.last_tile_reminder or offered

    @property
    def tracks_doubles(self) -> bool:
        """True when a played double stays open until covered."""
        return self.after_double != "again"


PROFILES: dict[str, Profile] = {
    "aces": Profile(
        id="aces",
        name="Standard rules",
        starter="engine-left",
        first_turn="string",
        public_in_first_turn=False,
        after_double="again",
        fail_reminder=False,
        out_waits_first_turns=True,
        double_waits_in_first_turn=False,
        options=("double_blank",),
        tiles_each=((2, 4, 15), (5, 6, 12), (7, 8, 10)),
        default_set=((2, 8, 12),),
        mexican_in_first_turn=False,
        engine_chosen=True,
        open_series=True,  # "a progression of games … the end of the series"
    ),
    "mexicantrainfun": Profile(
        id="mexicantrainfun",
        name="Mexican Train Fun rules",
        starter="engine-holder",
        first_turn="single",
        public_in_first_turn=False,
        after_double="answer",
        fail_reminder=False,
        out_waits_first_turns=False,
        double_waits_in_first_turn=False,
        options=("chickenfoot", "double_blank"),
        tiles_each=((2, 3, 8), (4, 6, 12), (7, 8, 10), (9, 14, 11)),
        default_set=((2, 3, 9), (4, 8, 12), (9, 12, 15), (13, 14, 18)),
        doubler_must_mark=True,
        mexican_double_one_cover=True,
        last_tile_reminder=True,
    ),
    "consensus": Profile(
        id="consensus",
        name="Tournament rules (Galt)",
        starter="rotate",
        first_turn="single",
        public_in_first_turn=True,
        after_double="cover",
        fail_reminder=True,
        out_waits_first_turns=False,
        double_waits_in_first_turn=False,
        options=(
            "chickenfoot",
            "partnerships",
            "double_blank",
            "blanks",
            "last_tile_call",
            "fast_game",
            "cover_optional",
            "any_train_cover",
            "continuous_draw",
            "doubled_doubles",
        ),
        tiles_each=((2, 4, 15), (5, 6, 12), (7, 8, 11)),
        default_set=((2, 8, 12),),
        privatising_double_free=True,
        # The seed's deal table by set (docs/rules.md): Galt's double-12 figures hold
        # for double-12 and up; the smaller sets deal fewer tiles.
        tiles_by_set=(
            (6, ((2, 2, 9), (3, 3, 8), (4, 4, 6))),
            (9, ((2, 2, 15), (3, 3, 13), (4, 4, 10), (5, 5, 9), (6, 7, 7))),
        ),
    ),
    "triples": Profile(
        id="triples",
        name="Triples",
        starter="engine-holder",
        first_turn="string",
        public_in_first_turn=False,
        after_double="satisfy",
        fail_reminder=True,
        out_waits_first_turns=False,
        double_waits_in_first_turn=True,
        options=("double_blank",),
        tiles_each=((2, 4, 15), (5, 6, 12), (7, 8, 11)),
        default_set=((2, 8, 12),),
        mexican_in_first_turn=False,
        mexican_train=False,  # seed 004 names only "public trains": no Mexican Train
    ),
}

PROFILE_IDS: tuple[str, ...] = tuple(PROFILES)

# What a new game plays when it names no rules, and what the page recommends: the rules
# most families play (docs/rules.md, "The default rules"); the config may name others.
DEFAULT_RULES = "aces"


def _rows(rows: Rows, key: str) -> list[dict[str, object]]:
    """Deal rows as the page reads them, clipped to the player counts the hub seats."""
    fewest, most = HUB_PLAYERS
    return [
        {"players": [max(low, fewest), min(high, most)], key: value}
        for low, high, value in rows
        if low <= most and high >= fewest
    ]


def _profile_view(profile: Profile) -> dict[str, object]:
    return {
        "id": profile.id,
        "name": profile.name,
        "players": list(profile.players),
        "starter": profile.starter,
        "mexican_train": profile.mexican_train,
        "options": list(profile.options),
        "tiles_each": _rows(profile.tiles_each, "tiles"),
        "tiles_by_set": {
            str(set_max): _rows(rows, "tiles") for set_max, rows in profile.tiles_by_set
        },
        "default_set": _rows(profile.default_set, "set"),
        # default null: set + 1 (13 on double-12); max null: set + 1 too
        "rounds": {"default": None, "max": SERIES_MAX if profile.open_series else None},
    }


def _option_view(option: Option) -> dict[str, object]:
    view: dict[str, object] = {
        "values": list(option.values),
        "default": option.default,
        "label": option.label,
    }
    if option.players is not None:
        view["players"] = list(option.players)
    if option.requires:
        view["requires"] = {key: list(values) for key, values in option.requires}
    return view


def rules_view(default_rules: str = DEFAULT_RULES) -> dict[str, object]:
    """The rule data as ``GET /api/rules`` answers it (``docs/api.md``): every profile,
    set and option a new game may choose, with the deal tables; and the hub's slots and
    the longest name, which the page's forms are drawn to (their one home)."""
    return {
        "default_rules": default_rules,
        "slots": len(SLOTS),
        "name_length": MAX_NAME,
        "sets": list(SETS),
        "profiles": [_profile_view(profile) for profile in PROFILES.values()],
        "options": {key: _option_view(option) for key, option in OPTIONS.items()},
    }

"""The four rule profiles as data (see ``docs/rules.md`` for the decisions behind them).

The hub only sees buttons and markers, so a profile here is only what changes the
table's state: who starts a round, the first-turn phase, what a double obliges, and
which failures deserve a reminder.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """What one rule system means for the table the hub keeps.

    ``starter``: ``rotate`` (a designated player, one seat clockwise each round),
    ``engine-holder`` (whoever places the engine starts) or ``engine-left`` (the
    player clockwise of whoever placed it).
    ``after_double``: ``again`` (same player plays again, nothing owed), ``answer``
    (own double must be answered; followers who fail pass without a marker),
    ``cover`` (every player who fails marks public), ``satisfy`` (cover on the
    double or on any public train).
    """

    id: str
    starter: str
    first_turn: str
    public_in_first_turn: bool
    after_double: str
    fail_reminder: bool
    chickenfoot_allowed: bool
    out_waits_first_turns: bool
    double_waits_in_first_turn: bool
    partnerships_allowed: bool

    def covers(self, options: dict[str, object]) -> int:
        """Covers a double needs under this profile with these game options."""
        if self.chickenfoot_allowed and options.get("chickenfoot"):
            return 3
        return 1

    @property
    def tracks_doubles(self) -> bool:
        """True when a played double stays open until covered."""
        return self.after_double != "again"


PROFILES: dict[str, Profile] = {
    "aces": Profile(
        id="aces",
        starter="engine-left",
        first_turn="string",
        public_in_first_turn=True,
        after_double="again",
        fail_reminder=False,
        chickenfoot_allowed=False,
        out_waits_first_turns=True,
        double_waits_in_first_turn=False,
        partnerships_allowed=False,
    ),
    "mexicantrainfun": Profile(
        id="mexicantrainfun",
        starter="engine-holder",
        first_turn="single",
        public_in_first_turn=True,
        after_double="answer",
        fail_reminder=False,
        chickenfoot_allowed=True,
        out_waits_first_turns=False,
        double_waits_in_first_turn=False,
        partnerships_allowed=False,
    ),
    "consensus": Profile(
        id="consensus",
        starter="rotate",
        first_turn="single",
        public_in_first_turn=True,
        after_double="cover",
        fail_reminder=True,
        chickenfoot_allowed=True,
        out_waits_first_turns=False,
        double_waits_in_first_turn=False,
        partnerships_allowed=True,
    ),
    "triples": Profile(
        id="triples",
        starter="engine-holder",
        first_turn="string",
        public_in_first_turn=False,
        after_double="satisfy",
        fail_reminder=True,
        chickenfoot_allowed=False,
        out_waits_first_turns=False,
        double_waits_in_first_turn=True,
        partnerships_allowed=False,
    ),
}

# Options a game may set, with the values each accepts.
OPTION_VALUES: dict[str, tuple[object, ...]] = {
    "chickenfoot": (True, False),
    "partnerships": (True, False),
    "double_blank": (0, 25, 50),
}

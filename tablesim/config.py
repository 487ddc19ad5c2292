"""A simulated game's set-up: profile, seats, set, rounds and options, validated."""

from __future__ import annotations

from dataclasses import dataclass

from scorer.profiles import SLOTS
from tablesim.profiles import PROFILES, OracleProfile
from tablesim.tiles import DOUBLE_BLANK_VALUES, MAX_SET, MIN_SET, set_size

OPEN_SERIES = 99  # the most rounds of a series the table names the engines of (aces)


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a game but the bots; ``None`` fields take the defaults.

    ``seats`` are hub slots (1..8), played clockwise by slot number whatever the
    order given. ``mexican_slot`` defaults to the lowest free slot (none with 8
    players: then there is no Mexican Train). ``first`` names round 1's starter
    (``rotate``: the designated player, default the first seat; the engine
    profiles: round 1 starts there with no engine tap). ``tiles_each`` overrides the
    profile's deal table (e.g. for a small set). Invalid values raise ``ValueError``.
    """

    rules: str
    seats: tuple[int, ...]
    seed: int = 0
    mexican_slot: int | None = None
    first: int | None = None
    set_max: int | None = None
    rounds: int | None = None
    tiles_each: int | None = None
    chickenfoot: bool = False
    partnerships: bool = False
    double_blank: int = 0
    blanks: bool = False
    last_tile_call: bool = False
    variants: tuple[str, ...] = ()  # the consensus variations switched on (fast_game, …)

    def __post_init__(self) -> None:
        if self.rules not in PROFILES:
            raise ValueError(f"rules {self.rules!r}: choose one of {', '.join(PROFILES)}")
        seats = tuple(sorted(self.seats))
        _check_seats(seats)
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "mexican_slot", self._mexican(seats))
        set_max = self.set_max if self.set_max is not None else self.profile.set_for(len(seats))
        _check_set(set_max)
        object.__setattr__(self, "set_max", set_max)
        rounds = self.rounds if self.rounds is not None else set_max + 1
        # The table names each engine (aces): the series may go round again.
        most = OPEN_SERIES if self.profile.engine_chosen else set_max + 1
        if not 1 <= rounds <= most:
            raise ValueError(f"rounds {rounds}: a double-{set_max} game has 1 to {most}")
        object.__setattr__(self, "rounds", rounds)
        self._check_deal()
        self._check_options()

    @classmethod
    def for_players(cls, rules: str, players: int, **options: object) -> GameConfig:
        """A game with ``players`` players seated at slots 1..players."""
        return cls(rules, tuple(range(1, players + 1)), **options)  # type: ignore[arg-type]

    @property
    def profile(self) -> OracleProfile:
        """The rule profile played, with the game's variations."""
        return PROFILES[self.rules].with_variants(self.variants)

    @property
    def hand_size(self) -> int:
        """Tiles dealt to each player."""
        if self.tiles_each is not None:
            return self.tiles_each
        return self.profile.hand_size(len(self.seats), self.set_max)

    @property
    def covers(self) -> int:
        """Covers a double needs: 3 with the chickenfoot option, else 1."""
        return 3 if self.chickenfoot else 1

    @property
    def mexican(self) -> int | None:
        """Where the Mexican Train is: its slot, or the hub's centre (0) with none free;
        None when the profile has no Mexican Train (``triples``)."""
        if not self.profile.has_mexican:
            return None
        return 0 if self.mexican_slot is None else self.mexican_slot

    @property
    def mexican_trains(self) -> list[int]:
        """The Mexican Train's slot as a list (empty when the game has none)."""
        mexican = self.mexican
        return [] if mexican is None else [mexican]

    def covers_on(self, slot: int) -> int:
        """Covers a double on train ``slot`` needs (mexicantrainfun: 1 on the Mexican)."""
        if slot == self.mexican and self.profile.mexican_double_one_cover:
            return 1
        return self.covers

    # -- who sits where -----------------------------------------------------------------

    def next_seat(self, slot: int) -> int:
        """The next seated slot clockwise."""
        return self.seats[(self.seats.index(slot) + 1) % len(self.seats)]

    def partner(self, slot: int) -> int | None:
        """The partner opposite ``slot`` when playing partnerships."""
        if not self.partnerships:
            return None
        half = len(self.seats) // 2
        return self.seats[(self.seats.index(slot) + half) % len(self.seats)]

    def open_trains(self, p: int, public: set[int]) -> list[int]:
        """The trains ``p`` may play on, own first: their own, their partner's, the
        ``public`` ones and the Mexican Train."""
        slots = [p]
        partner = self.partner(p)
        if partner is not None:
            slots.append(partner)
        slots += [s for s in sorted(public) if s not in slots]
        return slots + self.mexican_trains

    def public_others(self, p: int, public: set[int]) -> list[int]:
        """Trains a ``satisfy`` double may be satisfied on: public, and not ``p``'s own."""
        return [*(s for s in sorted(public) if s != p), *self.mexican_trains]

    def _mexican(self, seats: tuple[int, ...]) -> int | None:
        if not self.profile.has_mexican:
            if self.mexican_slot is not None:
                raise ValueError(f"mexican_slot: the {self.rules} profile has no Mexican Train")
            return None
        free = [s for s in SLOTS if s not in seats]
        if self.mexican_slot is None:
            return free[0] if free else None
        if self.mexican_slot not in free:
            raise ValueError(f"mexican_slot {self.mexican_slot}: must be a free slot {free}")
        return self.mexican_slot

    def _check_deal(self) -> None:
        assert self.set_max is not None
        if self.first is not None and self.first not in self.seats:
            raise ValueError(f"first {self.first}: not a seated slot {list(self.seats)}")
        each, available = self.hand_size, set_size(self.set_max) - 1
        if each < 1 or each * len(self.seats) > available:
            raise ValueError(
                f"{len(self.seats)} players × {each} tiles do not fit the {available} "
                f"tiles of a double-{self.set_max} set without its engine"
            )

    def _check_options(self) -> None:
        if self.chickenfoot and not self.profile.chickenfoot_allowed:
            raise ValueError(f"chickenfoot: not an option of the {self.rules} profile")
        if self.partnerships and not self.profile.partnerships_allowed:
            raise ValueError(f"partnerships: not an option of the {self.rules} profile")
        if self.partnerships and len(self.seats) not in (4, 6, 8):
            raise ValueError(f"partnerships: need 4, 6 or 8 players, not {len(self.seats)}")
        if self.blanks and (not self.profile.blanks_allowed or self.double_blank not in (0, 50)):
            raise ValueError(f"blanks: a {self.rules} option? (needs double_blank 0 or 50)")
        if self.last_tile_call and not self.profile.last_tile_call_allowed:
            raise ValueError(f"last_tile_call: not an option of the {self.rules} profile")
        if self.chickenfoot and set(self.variants) & {"cover_optional", "any_train_cover"}:
            raise ValueError("chickenfoot: not with cover_optional or any_train_cover")
        if {"cover_optional", "any_train_cover"} <= set(self.variants):
            raise ValueError("cover_optional: not with any_train_cover")
        for variant in ("continuous_draw", "doubled_doubles"):
            others = {"cover_optional", "any_train_cover"} | (
                {"continuous_draw"} if variant == "doubled_doubles" else set()
            )
            if variant in self.variants and (self.chickenfoot or set(self.variants) & others):
                raise ValueError(f"{variant}: not with chickenfoot, {', '.join(sorted(others))}")
        if self.double_blank not in DOUBLE_BLANK_VALUES:
            raise ValueError(f"double_blank {self.double_blank}: one of {DOUBLE_BLANK_VALUES}")


def _check_seats(seats: tuple[int, ...]) -> None:
    if not 2 <= len(seats) <= len(SLOTS):
        raise ValueError(f"seats {list(seats)}: the hub seats 2 to {len(SLOTS)} players")
    if len(set(seats)) != len(seats) or any(s not in SLOTS for s in seats):
        raise ValueError(f"seats {list(seats)}: distinct slots from 1 to {len(SLOTS)}")


def _check_set(set_max: int) -> None:
    if not MIN_SET <= set_max <= MAX_SET:
        raise ValueError(f"set double-{set_max}: supported are double-{MIN_SET}..{MAX_SET}")

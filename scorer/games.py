"""A game's record and the decisions on it, kept apart from SQLite (pure).

:mod:`scorer.store` loads a :class:`GameRecord` from the database, asks this module
what a change means (:func:`check_setup`, :func:`plan_round`, :func:`check_went_out`,
:func:`plan_finish`), writes the answer, and shows the game with :func:`game_view`.
Every refusal is a :class:`GameError` (a ``ValueError``) raised before anything is
written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from scorer.deal import check_players, check_profile, default_set
from scorer.partnerships import partnership_points, team_ranking, team_totals, teams
from scorer.rounds import check_round_points, round_schedule, totals
from scorer.standings import ranking, standings
from scorer.tiles import check_double_blank, check_set_max, hands_points, max_hand_points

SLOTS = range(1, 9)


class GameError(ValueError):
    """A change the game's rules refuse; the message says what and why."""


class Keep(Enum):
    """Sentinel for ``went_out``: keep what the round already records."""

    KEEP = "keep"


KEEP = Keep.KEEP
WentOut = str | None | Keep


@dataclass
class RoundRecord:
    """One round as stored: ``points`` is empty until the round is scored."""

    round: int
    engine: int
    went_out: str | None = None
    blocked: bool = False
    finished: bool = False
    points: dict[str, int] = field(default_factory=dict)


@dataclass
class GameRecord:
    """One game as stored (without its token). ``players`` and ``seats`` in seat order."""

    id: int
    created_at: str
    rules: str
    set_max: int
    round_count: int
    options: dict[str, Any]
    players: list[str]
    seats: list[int | None]
    rounds: list[RoundRecord]
    mexican_slot: int | None = None
    first: int | None = None
    finished_at: str | None = None
    winner: str | None = None

    @property
    def double_blank(self) -> int:
        """What the 0-0 tile scores in this game (option ``double_blank``, default 0)."""
        return int(self.options.get("double_blank", 0))

    @property
    def partnerships(self) -> bool:
        """True when the partnerships option is on."""
        return bool(self.options.get("partnerships", False))

    def scored(self, rnd: RoundRecord) -> dict[str, int]:
        """A round's points as they count (a went-out player's partner scores 0)."""
        if self.partnerships and rnd.points:
            return partnership_points(self.players, rnd.points, rnd.went_out)
        return dict(rnd.points)

    def scored_rounds(self) -> list[dict[str, int]]:
        """The finished rounds' points as they count."""
        return [self.scored(r) for r in self.rounds if r.finished]

    def round_at(self, number: object) -> RoundRecord:
        """Round ``number``, or :class:`GameError` if it does not exist (yet)."""
        if isinstance(number, bool) or not isinstance(number, int):
            raise GameError(f"round {number!r}: must be a round number")
        for rnd in self.rounds:
            if rnd.round == number:
                return rnd
        if not 1 <= number <= self.round_count:
            raise GameError(f"round {number}: game {self.id} has rounds 1 to {self.round_count}")
        last = self.rounds[-1].round if self.rounds else 0
        raise GameError(
            f"round {number} has not been played yet in game {self.id} (the last round is {last})"
        )


@dataclass(frozen=True)
class GameSetup:
    """A checked new game: names and slots in seat order, the set, the engines."""

    players: list[str]
    seats: list[int | None]
    set_max: int
    engines: tuple[int, ...]
    options: dict[str, Any]


def _check_names(players: object) -> list[str]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise GameError("players: must be a list of names")
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise GameError(f"player {name!r}: a name must be non-empty text")
    if len(set(players)) != len(players):
        raise GameError("players: each name must appear once")
    return list(players)


def _check_slot(slot: object) -> None:
    if slot is not None and (isinstance(slot, bool) or slot not in SLOTS):
        raise GameError(f"slot {slot!r}: slots are 1 to 8")


def _check_slots(count: int, seats: object, mexican: object, first: object) -> list[int | None]:
    if seats is None:
        if first is not None:
            raise GameError("first: naming a first slot needs seats")
        return [None] * count
    if isinstance(seats, str) or not isinstance(seats, Sequence) or len(seats) != count:
        raise GameError(f"seats: must list one slot for each of the {count} players")
    for slot in [*seats, mexican, first]:
        _check_slot(slot)
    taken = [s for s in seats if s is not None]
    if len(set(taken)) != len(taken) or (mexican is not None and mexican in taken):
        raise GameError("seats: each slot can hold one player or the Mexican Train")
    if first is not None and first not in taken:
        raise GameError(f"first: slot {first} has no player")
    return list(seats)


def _check_options(rules: str, count: int, options: object) -> dict[str, Any]:
    options = {} if options is None else options
    if not isinstance(options, Mapping):
        raise GameError("options: must be an object")
    check_double_blank(options.get("double_blank", 0))
    if options.get("partnerships"):
        if rules != "consensus":
            raise GameError(f"partnerships: an option of the consensus rules, not {rules}")
        teams([str(n) for n in range(count)])
    try:  # stored as JSON text
        json.dumps(options)
    except (TypeError, ValueError) as error:
        raise GameError(f"options: not JSON ({error})") from None
    return dict(options)


def check_setup(
    players: object,
    rules: str,
    seats: object = None,
    mexican_slot: object = None,
    first: object = None,
    set_max: int | None = None,
    rounds: int | None = None,
    options: object = None,
) -> GameSetup:
    """Check a new game's set-up and fill in the defaults.

    ``players``: names in seat order (clockwise), unique, 2 or more as the profile
    allows; ``rules``: a profile id (``aces``, ``mexicantrainfun``, ``consensus``,
    ``triples``); ``seats``: each player's hub slot (1-8), or ``None``; ``mexican_slot``:
    the Mexican Train's slot; ``first``: round 1's starting slot (needs seats);
    ``set_max``: default the profile's set for this many players; ``rounds``: a
    shorter series, default ``set_max + 1``; ``options``: ``double_blank`` (0, 25,
    50), ``partnerships`` (consensus, 4/6/8 players), others kept as given.
    """
    names = _check_names(players)
    check_players(check_profile(rules), len(names))
    slots = _check_slots(len(names), seats, mexican_slot, first)
    _check_slot(mexican_slot)
    set_max = default_set(rules, len(names)) if set_max is None else check_set_max(set_max)
    engines = round_schedule(set_max, rounds)
    return GameSetup(names, slots, set_max, engines, _check_options(rules, len(names), options))


@dataclass(frozen=True)
class RoundChange:
    """What scoring a round changes: ``edits`` are ``(player, old or None, new)``;
    ``next_engine`` is the next round's engine when one starts; ``finishes`` when
    the game ends with this round."""

    round: int
    went_out: str | None
    points: dict[str, int]
    edits: tuple[tuple[str, int | None, int], ...]
    next_engine: int | None
    finishes: bool


def plan_round(
    game: GameRecord, number: int, points: Mapping[str, int], went_out: WentOut = KEEP
) -> RoundChange:
    """Check a round's points and say what recording them changes (nothing is written)."""
    rnd = game.round_at(number)
    went = rnd.went_out if isinstance(went_out, Keep) else went_out
    limit = max_hand_points(game.set_max, rnd.engine, game.double_blank)
    checked = check_round_points(points, game.players, went, limit)
    edits = tuple(
        (name, rnd.points.get(name), value)
        for name, value in checked.items()
        if rnd.points.get(name) != value
    )
    starts_next = not rnd.finished and rnd.round < game.round_count
    next_engine = round_schedule(game.set_max)[rnd.round] if starts_next else None
    finishes = not rnd.finished and rnd.round == game.round_count
    return RoundChange(rnd.round, went, checked, edits, next_engine, finishes)


def tile_scores(
    game: GameRecord, number: int, tiles: object, went_out: WentOut = KEEP
) -> dict[str, int]:
    """Round ``number``'s points from each player's remaining tiles ({name: ["6-5", …]}).

    Checks the tiles against the game's set, for duplicates (in a hand or across
    hands) and for the round's engine, counts pips with the double-blank option, and
    refuses tiles in the hand of whoever went out (``KEEP``: as the round records).
    """
    rnd = game.round_at(number)
    if not isinstance(tiles, Mapping):
        raise GameError("tiles: must map each player's name to a list of tiles")
    went = rnd.went_out if isinstance(went_out, Keep) else went_out
    if went is not None and tiles.get(went):
        raise GameError(f"{went} went out, so holds no tiles")
    return hands_points(tiles, game.set_max, game.double_blank, rnd.engine)


def check_went_out(game: GameRecord, number: int, name: str) -> RoundRecord:
    """Check that ``name`` can be recorded as having gone out of round ``number``."""
    rnd = game.round_at(number)
    if name not in game.players:
        raise GameError(f"went out: {name!r} is not a player in game {game.id}")
    if rnd.points.get(name, 0) != 0:
        raise GameError(f"{name} scored {rnd.points[name]} in round {number}, so did not go out")
    return rnd


def plan_finish(game: GameRecord) -> int:
    """Check that a game can stop early; return how many rounds were played."""
    if game.finished_at is not None:
        raise GameError(f"game {game.id} is already finished")
    played = sum(1 for r in game.rounds if r.finished)
    if not played:
        raise GameError(f"game {game.id}: no round has been scored yet")
    return played


def winner_of(game: GameRecord) -> str | None:
    """The winner by the standings so far: a player, or a team name with partnerships;
    ``None`` when the best place is a true tie."""
    if game.partnerships:
        return team_ranking(game.players, game.scored_rounds()).winner
    return ranking(game.players, game.scored_rounds()).winner


def _round_view(game: GameRecord, rnd: RoundRecord) -> dict[str, Any]:
    return {
        "round": rnd.round,
        "engine": rnd.engine,
        "points": game.scored(rnd),
        "went_out": rnd.went_out,
        "blocked": rnd.blocked,
        "finished": rnd.finished,
    }


def _standings_view(game: GameRecord, scored: list[dict[str, int]]) -> dict[str, Any]:
    order = ranking(game.players, scored)
    view: dict[str, Any] = {
        "totals": totals(game.players, scored),
        "standings": list(order.names),
        "places": [asdict(entry) for entry in standings(game.players, scored)],
        "ties": [list(group) for group in order.ties],
    }
    if game.partnerships:
        order = team_ranking(game.players, scored)
        view["teams"] = [list(team.members) for team in teams(game.players)]
        view["team_totals"] = team_totals(game.players, scored)
        view["team_standings"] = list(order.names)
    finished = game.finished_at is not None
    view["winner"] = game.winner if finished else None
    view["winners"] = list(order.groups[0]) if finished and order.groups else []
    return view


def game_view(game: GameRecord) -> dict[str, Any]:
    """The game shaped like DESIGN.md's ``GET /api/games/<id>`` (see ``GameStore.get_game``)."""
    current = game.rounds[-1] if game.rounds else None
    return {
        "id": game.id,
        "created_at": game.created_at,
        "rules": game.rules,
        "set": game.set_max,
        "round_count": game.round_count,
        "options": dict(game.options),
        "players": list(game.players),
        "seats": list(game.seats),
        "mexican_slot": game.mexican_slot,
        "first": game.first,
        "round": current.round if current else None,
        "engine": current.engine if current else None,
        "finished": game.finished_at is not None,
        "finished_at": game.finished_at,
        "rounds": [_round_view(game, rnd) for rnd in game.rounds],
    } | _standings_view(game, game.scored_rounds())

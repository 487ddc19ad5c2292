"""A game's record and the decisions on it, kept apart from SQLite (pure).

:mod:`scorer.store` loads a :class:`GameRecord` from the database, asks this module
what a change means (:func:`plan_round`, :func:`check_went_out`, :func:`plan_finish`),
writes the answer, and shows the game with :func:`game_view`. Every refusal is a
:class:`GameError` (a ``ValueError``) raised before anything is written. A new game is
checked by :func:`scorer.setup.check_setup`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from scorer.errors import FieldError, clip
from scorer.partnerships import partnership_points, team_ranking, team_totals, teams
from scorer.profiles import PROFILES
from scorer.rounds import check_round_points, round_schedule, totals
from scorer.standings import ranking, standings
from scorer.tiles import hands_points, max_hand_points


class GameError(FieldError):
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
    abandoned_at: str | None = None  # replaced on the table by another game
    version: int = 0  # bumped by every write, so a stale score edit can be refused

    @property
    def double_blank(self) -> int:
        """What the 0-0 tile scores in this game (option ``double_blank``, default 0)."""
        return int(self.options.get("double_blank", 0))

    @property
    def blanks(self) -> bool:
        """True when every blank half scores 25 (option ``blanks``)."""
        return bool(self.options.get("blanks", False))

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
            raise GameError(
                f"round {clip(number)}: must be a round number",
                code="whole_number",
                value=number,
            )
        for rnd in self.rounds:
            if rnd.round == number:
                return rnd
        if not 1 <= number <= self.round_count:
            raise GameError(
                f"round {number}: game {self.id} has rounds 1 to {self.round_count}",
                code="round_outside",
                round=number,
                last=self.round_count,
            )
        last = self.rounds[-1].round if self.rounds else 0
        raise GameError(
            f"round {number} has not been played yet in game {self.id} (the last round is {last})",
            code="round_not_played",
            round=number,
            now=last,
        )


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
    limit = max_hand_points(game.set_max, rnd.engine, game.double_blank, game.blanks)
    checked = check_round_points(points, game.players, went, limit)
    edits = tuple(
        (name, rnd.points.get(name), value)
        for name, value in checked.items()
        if rnd.points.get(name) != value
    )
    starts_next = not rnd.finished and rnd.round < game.round_count
    next_engine = next_engine_of(game, rnd) if starts_next else None
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
        raise GameError(
            "tiles: must map each player's name to a list of tiles", "tiles", code="tiles_object"
        )
    went = rnd.went_out if isinstance(went_out, Keep) else went_out
    if went is not None and tiles.get(went):
        raise GameError(
            f"{went} went out, so holds no tiles",
            f"tiles.{went}",
            code="out_holds_tiles",
            name=went,
        )
    return hands_points(tiles, game.set_max, game.double_blank, rnd.engine, game.blanks)


def next_engine_of(game: GameRecord, rnd: RoundRecord) -> int:
    """The engine of the round after ``rnd``: the schedule's, or (a profile whose table
    names the engine) the next lower double than ``rnd``'s, the set's top after 0."""
    if PROFILES[game.rules].engine_chosen:
        return rnd.engine - 1 if rnd.engine > 0 else game.set_max
    return round_schedule(game.set_max)[rnd.round]


def check_engine(game: GameRecord, number: int, engine: object) -> RoundRecord:
    """Check that round ``number``'s engine may be set to ``engine`` (an unscored round
    of a game whose table names its engines, a double of the set)."""
    rnd = game.round_at(number)
    if not PROFILES[game.rules].engine_chosen:
        raise GameError(
            f"engine: fixed by the {game.rules} rules (round {number}: "
            f"{rnd.engine}); only aces tables name the engine",
            "engine",
            code="engine_fixed",
            rules=game.rules,
        )
    if isinstance(engine, bool) or not isinstance(engine, int) or not (0 <= engine <= game.set_max):
        raise GameError(
            f"engine {clip(engine)}: a double of the double-{game.set_max} set, "
            f"0 to {game.set_max}",
            "engine",
            code="engine_range",
            value=engine,
            most=game.set_max,
        )
    if rnd.finished:
        raise GameError(
            f"round {number} is already scored: its engine stays {rnd.engine}",
            code="round_scored",
            round=number,
        )
    return rnd


def check_went_out(game: GameRecord, number: int, name: str) -> RoundRecord:
    """Check that ``name`` can be recorded as having gone out of round ``number``."""
    rnd = game.round_at(number)
    if name not in game.players:
        raise GameError(
            f"went out: {clip(name)!r} is not a player in game {game.id}",
            "went_out",
            code="out_unknown",
            name=name,
        )
    if rnd.points.get(name, 0) != 0:
        raise GameError(
            f"{name} scored {rnd.points[name]} in round {number}, so did not go out",
            "went_out",
            code="out_scores_zero",
            name=name,
            value=rnd.points[name],
        )
    return rnd


def plan_finish(game: GameRecord) -> int:
    """Check that a game can stop early; return how many rounds were played."""
    if game.finished_at is not None:
        raise GameError(f"game {game.id} is already finished", code="game_finished", game=game.id)
    played = sum(1 for r in game.rounds if r.finished)
    if not played:
        raise GameError(
            f"game {game.id}: no round has been scored yet", code="nothing_scored", game=game.id
        )
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
    """The game shaped like docs/api.md's ``GET /api/games/<id>`` (see ``GameStore.get_game``)."""
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
        "abandoned": game.abandoned_at is not None,
        "version": game.version,
        "rounds": [_round_view(game, rnd) for rnd in game.rounds],
    } | _standings_view(game, game.scored_rounds())

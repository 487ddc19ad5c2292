"""The round schedule, round outcomes and totals.

A game on a double-N set plays the engines N, N-1, … 0: N+1 rounds (13 on double-12,
10 on double-9). A shorter series can be chosen at set-up: ``rounds=k`` plays the
engines N … N-k+1.

A round ends in one of two ways: someone went out (they score 0) or it was blocked
(nobody could play and the boneyard was empty; nobody went out). Every other player
scores the points left in their hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scorer.errors import FieldError, clip
from scorer.tiles import check_set_max


class RoundError(FieldError):
    """Round points or a schedule that cannot be accepted; the message says why.

    ``field``, when given, is the request body path at fault (``points.Ann``).
    """


def round_schedule(set_max: int, rounds: int | None = None) -> tuple[int, ...]:
    """The engines of a game, first round first: ``(N, N-1, …)``, ``rounds`` of them.

    ``rounds=None`` plays the full series (N+1 rounds, ending on the double-blank).
    """
    check_set_max(set_max)
    full = set_max + 1
    if rounds is None:
        rounds = full
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= full:
        raise RoundError(
            f"rounds {clip(rounds)}: a double-{set_max} game plays 1 to {full} rounds",
            "rounds",
            code="rounds_range",
            value=rounds,
            low=1,
            high=full,
        )
    return tuple(range(set_max, set_max - rounds, -1))


def engine_of(set_max: int, round_number: int) -> int:
    """The engine (the double in the hub) of round ``round_number`` (1-based)."""
    schedule = round_schedule(set_max)
    if isinstance(round_number, bool) or not 1 <= round_number <= len(schedule):
        raise RoundError(
            f"round {clip(round_number)}: a double-{set_max} game has rounds 1 to {len(schedule)}",
            code="round_outside",
            round=round_number,
            last=len(schedule),
        )
    return schedule[round_number - 1]


@dataclass(frozen=True)
class RoundOutcome:
    """One finished round: each player's points and who went out (``None``: blocked)."""

    round: int
    engine: int
    points: Mapping[str, int] = field(default_factory=dict)
    went_out: str | None = None

    @property
    def blocked(self) -> bool:
        """True when nobody went out (the round was blocked)."""
        return self.went_out is None


def _check_names(points: Mapping[str, int], players: Sequence[str]) -> None:
    unknown = [name for name in points if name not in players]
    if unknown:
        raise RoundError(
            f"unknown player {clip(unknown[0])!r}: the players are {', '.join(players)}",
            "points",
            code="not_a_player",
            name=unknown[0],
        )
    missing = [name for name in players if name not in points]
    if missing:
        raise RoundError(
            f"no points for {missing[0]}: every player needs a score (0 for whoever went out)",
            f"points.{missing[0]}",
            code="points_missing",
            name=missing[0],
        )


def _check_points(name: str, value: object, max_points: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RoundError(
            f"{name}'s points {clip(value)}: must be a whole number",
            f"points.{name}",
            code="points_whole",
            name=name,
            value=value,
        )
    if value < 0:
        raise RoundError(
            f"{name}'s points {value}: cannot be negative",
            f"points.{name}",
            code="points_negative",
            name=name,
            value=value,
        )
    if max_points is not None and value > max_points:
        raise RoundError(
            f"{name}'s points {value}: more than any hand can hold this round ({max_points})",
            f"points.{name}",
            code="points_too_many",
            name=name,
            value=value,
            most=max_points,
        )
    return value


def check_round_points(
    points: Mapping[str, int],
    players: Sequence[str],
    went_out: str | None,
    max_points: int | None = None,
) -> dict[str, int]:
    """Validate one round's points and return them in seat order.

    Every player (and nobody else) needs a whole, non-negative score, at most
    ``max_points`` (see :func:`scorer.tiles.max_hand_points`). ``went_out`` must be a
    player, and one who went out must score 0; ``None`` means the round was blocked.
    """
    if not isinstance(points, Mapping):
        raise RoundError(
            "points: must map each player's name to their points", "points", code="points_object"
        )
    _check_names(points, players)
    checked = {name: _check_points(name, points[name], max_points) for name in players}
    if went_out is not None:
        if went_out not in players:
            raise RoundError(
                f"went out: {clip(went_out)!r} is not a player in this game",
                "went_out",
                code="out_unknown",
                name=went_out,
            )
        if checked[went_out] != 0:
            raise RoundError(
                f"{went_out} went out, so scores 0, not {checked[went_out]}",
                f"points.{went_out}",
                code="out_scores_zero",
                name=went_out,
                value=checked[went_out],
            )
    return checked


def totals(players: Sequence[str], rounds: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """Each player's total over the given rounds' points (a missing entry counts 0)."""
    return {name: sum(points.get(name, 0) for points in rounds) for name in players}

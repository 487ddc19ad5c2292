"""Tests for scorer.rounds: the schedule, round validation and totals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rounds import (
    RoundError,
    RoundOutcome,
    check_round_points,
    engine_of,
    round_schedule,
    totals,
)

PLAYERS = ["Ann", "Bo", "Cy"]


def test_a_double_9_game_has_10_rounds() -> None:
    assert round_schedule(9) == (9, 8, 7, 6, 5, 4, 3, 2, 1, 0)


def test_a_double_12_game_has_13_rounds_ending_on_the_double_blank() -> None:
    schedule = round_schedule(12)
    assert len(schedule) == 13
    assert schedule[0] == 12 and schedule[-1] == 0


def test_a_shorter_series_starts_at_the_top() -> None:
    assert round_schedule(12, rounds=3) == (12, 11, 10)


@pytest.mark.parametrize("rounds", [0, 14, -1])
def test_impossible_round_counts_are_refused(rounds: int) -> None:
    with pytest.raises(RoundError, match="1 to 13 rounds"):
        round_schedule(12, rounds)


def test_engine_of_round() -> None:
    assert engine_of(12, 1) == 12
    assert engine_of(12, 13) == 0
    with pytest.raises(RoundError, match="rounds 1 to 13"):
        engine_of(12, 14)


def test_outcome_went_out_or_blocked() -> None:
    assert RoundOutcome(1, 12, {"Ann": 0}, "Ann").blocked is False
    assert RoundOutcome(1, 12, {"Ann": 3}, None).blocked is True


def test_valid_points_come_back_in_seat_order() -> None:
    points = check_round_points({"Cy": 4, "Ann": 0, "Bo": 7}, PLAYERS, "Ann", 1000)
    assert list(points.items()) == [("Ann", 0), ("Bo", 7), ("Cy", 4)]


def test_blocked_round_needs_no_zero() -> None:
    assert check_round_points({"Ann": 1, "Bo": 2, "Cy": 3}, PLAYERS, None)["Cy"] == 3


@pytest.mark.parametrize(
    ("points", "went_out", "message"),
    [
        ({"Ann": 0, "Bo": 1, "Cy": 2, "Di": 3}, "Ann", "unknown player 'Di'"),
        ({"Ann": 0, "Bo": 1}, "Ann", "no points for Cy"),
        ({"Ann": 0, "Bo": -1, "Cy": 2}, "Ann", "Bo's points -1: cannot be negative"),
        ({"Ann": 0, "Bo": 1001, "Cy": 2}, "Ann", "more than any hand can hold"),
        ({"Ann": 0, "Bo": 1.5, "Cy": 2}, "Ann", "must be a whole number"),
        ({"Ann": 0, "Bo": True, "Cy": 2}, "Ann", "must be a whole number"),
        ({"Ann": 0, "Bo": "3", "Cy": 2}, "Ann", "must be a whole number"),
        ({"Ann": 5, "Bo": 1, "Cy": 2}, "Ann", "Ann went out, so scores 0, not 5"),
        ({"Ann": 0, "Bo": 1, "Cy": 2}, "Di", "'Di' is not a player"),
    ],
)
def test_bad_points_are_refused(points: dict[str, int], went_out: str | None, message: str) -> None:
    with pytest.raises(RoundError, match=message):
        check_round_points(points, PLAYERS, went_out, 1000)


@given(st.lists(st.fixed_dictionaries({n: st.integers(0, 500) for n in PLAYERS}), max_size=19))
def test_totals_are_the_sum_of_the_rounds(rounds: list[dict[str, int]]) -> None:
    result = totals(PLAYERS, rounds)
    for name in PLAYERS:
        assert result[name] == sum(points[name] for points in rounds)

"""Tests for scorer.games: round plans and the game view (no SQLite)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.games import (
    KEEP,
    GameError,
    GameRecord,
    RoundRecord,
    check_went_out,
    game_view,
    plan_finish,
    plan_round,
    tile_scores,
    winner_of,
)

PLAYERS = ["Ann", "Bo", "Cy"]


def record(rounds: list[RoundRecord], **kwargs: object) -> GameRecord:
    fields: dict[str, object] = {
        "id": 1,
        "created_at": "2024-05-01T12:00:00",
        "rules": "consensus",
        "set_max": 12,
        "round_count": 13,
        "options": {},
        "players": list(PLAYERS),
        "seats": [1, 2, 3],
        "rounds": rounds,
    }
    return GameRecord(**(fields | kwargs))  # type: ignore[arg-type]


def scored(number: int, points: dict[str, int], went_out: str | None = None) -> RoundRecord:
    return RoundRecord(number, 13 - number, went_out, went_out is None, True, points)


def test_planning_the_current_round_starts_the_next() -> None:
    game = record([RoundRecord(1, 12)])
    change = plan_round(game, 1, {"Ann": 0, "Bo": 3, "Cy": 4}, "Ann")
    assert change.edits == (("Ann", None, 0), ("Bo", None, 3), ("Cy", None, 4))
    assert (change.next_engine, change.finishes, change.went_out) == (11, False, "Ann")


def test_planning_the_last_round_finishes_the_game() -> None:
    game = record(
        [scored(1, {"Ann": 0, "Bo": 3, "Cy": 4}, "Ann"), RoundRecord(2, 11)], round_count=2
    )
    change = plan_round(game, 2, {"Ann": 1, "Bo": 3, "Cy": 4}, None)
    assert (change.next_engine, change.finishes) == (None, True)


def test_a_correction_lists_only_changed_scores_and_keeps_went_out() -> None:
    game = record([scored(1, {"Ann": 0, "Bo": 3, "Cy": 4}, "Ann"), RoundRecord(2, 11)])
    change = plan_round(game, 1, {"Ann": 0, "Bo": 30, "Cy": 4}, KEEP)
    assert change.edits == (("Bo", 3, 30),)
    assert (change.went_out, change.next_engine, change.finishes) == ("Ann", None, False)


def test_a_round_not_yet_played_is_refused() -> None:
    with pytest.raises(GameError, match="round 2 has not been played yet"):
        plan_round(record([RoundRecord(1, 12)]), 2, {"Ann": 0, "Bo": 0, "Cy": 0})


def test_tile_scores_use_the_games_set_and_engine() -> None:
    game = record([RoundRecord(1, 12)], options={"double_blank": 50})
    assert tile_scores(game, 1, {"Ann": [], "Bo": ["0-0"], "Cy": ["3-4"]}) == {
        "Ann": 0,
        "Bo": 50,
        "Cy": 7,
    }
    with pytest.raises(ValueError, match="12-12 in Bo's hand is this round's engine"):
        tile_scores(game, 1, {"Ann": [], "Bo": ["12-12"], "Cy": []})


def test_went_out_needs_a_player_with_zero() -> None:
    game = record([scored(1, {"Ann": 0, "Bo": 3, "Cy": 4}, "Ann")])
    assert check_went_out(game, 1, "Ann").round == 1
    with pytest.raises(GameError, match="Bo scored 3"):
        check_went_out(game, 1, "Bo")
    with pytest.raises(GameError, match="'Di' is not a player"):
        check_went_out(game, 1, "Di")


def test_finishing_early_needs_a_scored_round() -> None:
    with pytest.raises(GameError, match="no round has been scored"):
        plan_finish(record([RoundRecord(1, 12)]))
    assert plan_finish(record([scored(1, {"Ann": 0, "Bo": 3, "Cy": 4}), RoundRecord(2, 11)])) == 1


def test_partnership_winner_is_a_team() -> None:
    four = ["Ann", "Bo", "Cy", "Di"]
    game = record(
        [scored(1, {"Ann": 0, "Bo": 3, "Cy": 40, "Di": 4}, "Ann")],
        players=four,
        seats=[1, 2, 3, 4],
        options={"partnerships": True},
    )
    assert winner_of(game) == "Ann & Cy"
    view = game_view(game)
    assert view["rounds"][0]["points"]["Cy"] == 0
    assert view["team_standings"] == ["Ann & Cy", "Bo & Di"]


def test_unfinished_rounds_do_not_count() -> None:
    game = record([scored(1, {"Ann": 0, "Bo": 3, "Cy": 4}, "Ann"), RoundRecord(2, 11)])
    view = game_view(game)
    assert view["totals"] == {"Ann": 0, "Bo": 3, "Cy": 4}
    assert (view["round"], view["engine"], view["winner"], view["winners"]) == (2, 11, None, [])


@given(st.lists(st.fixed_dictionaries({n: st.integers(0, 100) for n in PLAYERS}), max_size=13))
def test_view_totals_are_the_sum_of_the_rounds(rounds: list[dict[str, int]]) -> None:
    game = record([scored(i, points) for i, points in enumerate(rounds, start=1)])
    view = game_view(game)
    assert view["totals"] == {n: sum(r[n] for r in rounds) for n in PLAYERS}
    assert sorted(view["standings"]) == sorted(PLAYERS)

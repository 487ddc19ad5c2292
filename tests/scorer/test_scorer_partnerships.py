"""Tests for scorer.partnerships: partners opposite, team scores."""

from __future__ import annotations

import pytest

from scorer.partnerships import (
    PartnershipError,
    Team,
    partner_of,
    partnership_points,
    team_ranking,
    team_totals,
    teams,
)

FOUR = ["Ann", "Bo", "Cy", "Di"]


def test_partners_sit_opposite() -> None:
    assert teams(FOUR) == (Team("Ann", "Cy"), Team("Bo", "Di"))
    assert [t.name for t in teams(FOUR + ["Ed", "Flo", "Gus", "Hal"])][0] == "Ann & Ed"
    assert partner_of(FOUR, "Di") == "Bo"


@pytest.mark.parametrize("count", [2, 3, 5, 7, 9])
def test_only_4_6_or_8_players_pair_up(count: int) -> None:
    with pytest.raises(PartnershipError, match="4, 6 or 8 players"):
        teams([f"P{i}" for i in range(count)])


def test_the_partner_of_who_went_out_scores_0() -> None:
    points = {"Ann": 0, "Bo": 7, "Cy": 12, "Di": 3}
    assert partnership_points(FOUR, points, "Ann") == {"Ann": 0, "Bo": 7, "Cy": 0, "Di": 3}
    assert partnership_points(FOUR, points, None) == points


def test_team_totals_sum_the_partners() -> None:
    rounds = [{"Ann": 0, "Bo": 7, "Cy": 0, "Di": 3}, {"Ann": 5, "Bo": 0, "Cy": 1, "Di": 0}]
    assert team_totals(FOUR, rounds) == {"Ann & Cy": 6, "Bo & Di": 10}
    assert team_ranking(FOUR, rounds).names == ("Ann & Cy", "Bo & Di")


def test_unknown_player_has_no_partner() -> None:
    with pytest.raises(PartnershipError, match="'Ed' is not a player"):
        partner_of(FOUR, "Ed")

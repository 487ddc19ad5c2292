"""The players' statistics computed by SQL (scorer/player_stats.py) against an
independent computation over a seeded generated history (tests/history.py)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from scorer.store import GameStore
from tests import history

SEED, GAMES = 26, 60


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[GameStore, list[history.PlayedGame]]:
    path: Path = tmp_path_factory.mktemp("players") / "games.db"
    games = history.generate(SEED, GAMES)
    store = GameStore(path)
    history.store_history(store, games)
    yield store, games
    store.close()


def _ids(store: GameStore) -> dict[str, int]:
    """Each remembered person's id, by the name the generator first typed."""
    return {p["name"]: p["id"] for p in store.players()}


def test_every_spelling_of_a_person_is_one_player(played):
    store, games = played
    seen = {person for game in games for person in game.people}
    assert sorted(_ids(store)) == sorted(seen)


def test_the_list_counts_games_and_wins_most_recent_first(played):
    store, games = played
    listed = store.players()
    for entry in listed:
        expected = history.player_stats(games, entry["name"])
        assert (entry["games"], entry["wins"]) == (expected["games"], expected["wins"])
        assert 0 <= entry["colour"] < 8
    last_seen = [entry["last_seen"] for entry in listed]
    assert last_seen == sorted(last_seen, reverse=True)
    newest = games[-1]
    assert {e["name"] for e in listed[: len(newest.people)]} == set(newest.people)


@pytest.mark.parametrize("person", list(history.FAMILY))
def test_a_players_statistics_match_the_independent_computation(played, person):
    store, games = played
    page = store.player(_ids(store)[person])
    expected = history.player_stats(games, person)
    assert {key: page[key] for key in expected} == expected
    assert sum(month["games"] for month in page["months"]) == expected["games"]
    assert sum(month["wins"] for month in page["months"]) == expected["wins"]
    assert [r["game"] for r in page["recent"]] == sorted(
        (r["game"] for r in page["recent"]), reverse=True
    )


def test_head_to_head_matches_for_every_pair(played):
    store, games = played
    ids = _ids(store)
    for a, b in combinations(sorted(ids), 2):
        answer = store.head_to_head(ids[a], ids[b])
        expected = history.head_to_head(games, a, b)
        got = {
            "games": answer["games"],
            "a_wins": answer["a"]["wins"],
            "b_wins": answer["b"]["wins"],
            "a_ahead": answer["a"]["ahead"],
            "b_ahead": answer["b"]["ahead"],
            "level": answer["level"],
        }
        assert got == expected, (a, b)
        assert answer["a"]["name"] == a and answer["b"]["name"] == b


@pytest.mark.parametrize("since", [None, "2024-03-01", "2024-12-31"])
def test_season_table_matches_and_is_ordered(played, since):
    store, games = played
    table = store.season(since)
    expected = history.season(games, since or "")
    got = {r["name"]: (r["games"], r["wins"], r["average_place"]) for r in table["players"]}
    assert got == expected
    assert table["games"] == len(list(history.finished(games, since or "")))
    order = [(-r["wins"], -r["win_rate"], r["average_place"]) for r in table["players"]]
    assert order == sorted(order)


def test_a_tie_for_first_gives_no_winner_and_shares_the_place(tmp_path):
    tied = history.PlayedGame(
        [("Ann", "Ann"), ("Bob", "Bob")], [({"Ann": 0, "Bob": 0}, None)], [], "2025-01-01T20:00:00"
    )
    store = GameStore(tmp_path / "games.db")
    history.store_history(store, [tied])
    ids = _ids(store)
    answer = store.head_to_head(ids["Ann"], ids["Bob"])
    assert (answer["games"], answer["level"], answer["a"]["wins"], answer["b"]["wins"]) == (
        1,
        1,
        0,
        0,
    )
    store.close()


def test_a_player_with_no_finished_game_has_empty_figures(tmp_path):
    store = GameStore(tmp_path / "games.db")
    game = history.generate(1, 4)[-1]  # the unfinished one
    history.store_history(store, [game])
    page = store.player(store.players()[0]["id"])
    assert (page["games"], page["wins"], page["win_rate"], page["best_round"]) == (0, 0, None, None)
    store.close()

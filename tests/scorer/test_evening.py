"""An evening's summary (scorer/evening.py) against an independent computation over a
generated history of three games an evening, and its CSV (scorer/export.py)."""

from __future__ import annotations

import csv
import io

import pytest

from scorer import export
from scorer.store import GameNotFound, GameStore
from tests import history

KEYS = ("games", "wins", "points", "zero_rounds", "went_out", "doubles")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    games = history.generate(11, 20, per_day=3)  # evenings of three games; the last unfinished
    store = GameStore(tmp_path_factory.mktemp("evening") / "games.db")
    ids = history.store_history(store, games)
    yield store, games, ids
    store.close()


def expected(games: list[history.PlayedGame], day: str) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for game in history.finished(games):
        if not game.at.startswith(day):
            continue
        for person in game.people:
            entry = table.setdefault(person, dict.fromkeys(KEYS, 0))
            scores = [points[person] for points, _ in game.rounds]
            entry["games"] += 1
            entry["wins"] += history.winner(game) == person
            entry["points"] += sum(scores)
            entry["zero_rounds"] += scores.count(0)
            entry["went_out"] += sum(out == person for _, out in game.rounds)
            entry["doubles"] += sum(w == person and k == "double" for _, w, k in game.plays)
    return table


def _table(summary):
    return {e["name"]: {k: e[k] for k in KEYS} for e in summary["players"]}


def test_the_latest_evening_is_the_last_finished_games_of_one_evening(played):
    store, games, ids = played
    last = games[-2]  # the newest finished game
    summary = store.evening()
    assert _table(summary) == expected(games, last.at[:10])
    same_day = [
        i for i, g in zip(ids, games, strict=True) if g.finished and g.at[:10] == last.at[:10]
    ]
    assert [g["id"] for g in summary["games"]] == same_day
    order = [(-e["wins"], e["points"] / e["games"]) for e in summary["players"]]
    assert order == sorted(order)


def test_any_finished_games_evening_and_its_highlights(played):
    store, games, ids = played
    summary = store.evening(ids[4])
    table = expected(games, games[4].at[:10])
    assert _table(summary) == table
    wins = max(e["wins"] for e in table.values())
    by_kind = {h["kind"]: h for h in summary["highlights"]}
    if wins:
        assert by_kind["wins"]["value"] == wins
        assert set(by_kind["wins"]["names"]) == {n for n, e in table.items() if e["wins"] == wins}
    lowest = min(p["total"] for g in summary["games"] for p in g["players"])
    assert by_kind["best_game"]["value"] == lowest


def test_an_unfinished_or_unknown_game_has_no_evening(played):
    store, _, ids = played
    for game in (ids[-1], 999):
        with pytest.raises(GameNotFound):
            store.evening(game)


def test_no_finished_game_no_evening(tmp_path):
    store = GameStore(tmp_path / "games.db")
    assert store.evening() == {
        "started": None,
        "ended": None,
        "games": [],
        "players": [],
        "highlights": [],
    }
    store.close()


def test_an_evening_past_midnight_is_one_evening(tmp_path):
    late = [
        history.PlayedGame(
            [("Ann", "Ann"), ("Bob", "Bob")], [({"Ann": 0, "Bob": 5}, "Ann")], [], at
        )
        for at in ("2025-03-01T23:10:00+00:00", "2025-03-02T01:40:00+00:00")
    ]
    store = GameStore(tmp_path / "games.db")
    history.store_history(store, late)
    summary = store.evening()
    assert len(summary["games"]) == 2 and summary["players"][0]["wins"] == 2
    store.close()


def test_the_evening_csv_has_the_same_numbers(played):
    store, _, _ = played
    summary = store.evening()
    rows = list(csv.reader(io.StringIO(export.evening_csv(summary))))
    assert rows[0] == list(export.EVENING_COLUMNS)
    for entry, row in zip(summary["players"], rows[1:], strict=False):
        assert row == [entry["name"], *(str(entry[k]) for k in export.EVENING_COLUMNS[1:])]
    games = rows[len(summary["players"]) + 3 :]
    assert [int(r[0]) for r in games] == [g["id"] for g in summary["games"]]

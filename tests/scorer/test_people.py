"""Players across evenings in the store (scorer/people.py): remembered at a new game,
brought in by the schema 3 migration, renamed, merged and forgotten (the name nowhere
in the database's files afterwards: issue 26, acceptance 3)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from scorer.people import PersonBusy, PersonNotFound
from scorer.schema import MIGRATIONS
from scorer.setup import check_setup
from scorer.store import GameStore, StoreError
from tests import history

TOKEN = "t" * 24


def _game(store: GameStore, players: list[str], at: str, finish: bool = True, **kw) -> int:
    game_id = store.create_game(
        check_setup({"players": players, "rules": "consensus", "set": 9, "rounds": 1}),
        token=TOKEN,
        at=at,
        **kw,
    )
    if finish:
        points = {name: 5 * i for i, name in enumerate(players)}
        store.record_round(game_id, 1, points, went_out=players[0], at=at)
    return game_id


def _by_name(store: GameStore) -> dict[str, dict]:
    return {p["name"]: p for p in store.players()}


def test_a_new_game_remembers_its_players_by_their_skeleton(tmp_path):
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00")
    _game(store, ["ANN", "Cy"], "2025-01-02T20:00:00")
    _game(store, ["bob", "Cy"], "2025-01-03T20:00:00")
    listed = store.players()
    assert [p["name"] for p in listed] == ["Bob", "Cy", "Ann"]  # most recent first, by seat
    assert {p["name"]: p["games"] for p in listed} == {"Ann": 2, "Bob": 2, "Cy": 2}
    assert listed[0]["last_seen"] == "2025-01-03T20:00:00"
    store.close()


def test_not_remembering_leaves_no_player(tmp_path):
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00", remember=False)
    assert store.players() == []
    store.close()


def test_the_migration_brings_existing_games_in(tmp_path):
    path = tmp_path / "games.db"
    store = GameStore(path)
    games = history.generate(7, 12)
    history.store_history(store, games)
    expected = {p: history.player_stats(games, p) for g in games for p in g.people}
    store.close()
    conn = sqlite3.connect(path)  # back to schema 2, as an older hub left it
    conn.executescript(
        "DROP TABLE plays; DROP INDEX players_by_person; DROP INDEX rounds_went_out;"
        " DROP INDEX games_by_finish; ALTER TABLE players DROP COLUMN person;"
        " ALTER TABLE players DROP COLUMN place; ALTER TABLE players DROP COLUMN won;"
        " DROP TABLE people; PRAGMA user_version = 2;"
    )
    conn.close()
    store = GameStore(path)
    assert store.settings()["user_version"] == len(MIGRATIONS)
    ids = {p["name"]: p["id"] for p in store.players()}
    assert sorted(ids) == sorted(expected)
    for person, stats in expected.items():
        page = store.player(ids[person])
        # The table's plays were not kept before schema 3: nothing to bring in.
        stats |= {"doubles": 0, "last_tiles": 0}
        assert {k: page[k] for k in stats} == stats
    assert store.integrity_ok()
    store.close()


def test_rename_changes_every_game_at_once(tmp_path):
    store = GameStore(tmp_path / "games.db")
    first = _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00")
    second = _game(store, ["ann", "Cy"], "2025-01-02T20:00:00")
    ann = _by_name(store)["Ann"]["id"]
    page = store.rename_player(ann, "Annie")
    assert (page["name"], page["games"], page["wins"]) == ("Annie", 2, 2)
    assert store.get_game(first)["players"] == ["Annie", "Bob"]
    assert store.get_game(second)["winner"] == "Annie"
    assert store.get_game(second)["rounds"][0]["went_out"] == "Annie"
    assert store.round_history(first, 1)[0]["player"] == "Annie"
    assert store.integrity_ok()
    with pytest.raises(PersonBusy, match="merge them instead"):
        store.rename_player(ann, "BOB")
    store.close()


def test_rename_refuses_a_name_that_clashes_at_one_of_their_games(tmp_path):
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Cy"], "2025-01-02T20:00:00")
    store.forget_player(_by_name(store)["Ann"]["id"])  # the seat is "Player 1" now
    with pytest.raises(PersonBusy, match="could not tell them apart"):
        store.rename_player(_by_name(store)["Cy"]["id"], "PLAYER 1")
    assert store.get_game(1)["players"] == ["Player 1", "Cy"]
    store.close()


def test_merge_moves_a_typo_into_the_right_player(tmp_path):
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00")
    typo = _game(store, ["Anm", "Cy"], "2025-01-02T20:00:00")
    people = _by_name(store)
    page = store.merge_players(people["Anm"]["id"], people["Ann"]["id"])
    assert (page["games"], page["wins"]) == (2, 2)
    assert "Anm" not in _by_name(store)
    assert store.get_game(typo)["players"] == ["Ann", "Cy"]
    with pytest.raises(PersonNotFound):
        store.player(people["Anm"]["id"])
    with pytest.raises(StoreError, match="themself"):
        store.merge_players(people["Ann"]["id"], people["Ann"]["id"])
    store.close()


def test_merge_refuses_two_players_who_sat_at_one_game(tmp_path):
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00")
    people = _by_name(store)
    with pytest.raises(PersonBusy, match="game 1"):
        store.merge_players(people["Bob"]["id"], people["Ann"]["id"])
    store.close()


def test_a_player_at_the_table_cannot_be_changed_until_the_game_ends(tmp_path):
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00", finish=False)
    ann = _by_name(store)["Ann"]["id"]
    for change in (
        lambda: store.rename_player(ann, "Annie"),
        lambda: store.forget_player(ann),
    ):
        with pytest.raises(PersonBusy, match="on the table"):
            change()
    assert store.get_game(1)["players"] == ["Ann", "Bob"]
    store.close()


def _files(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


def test_forgetting_a_player_leaves_their_name_nowhere_in_the_files(tmp_path):
    path = tmp_path / "games.db"
    store = GameStore(path)
    name = "Zanzibar"
    for day in range(1, 6):
        game_id = _game(store, [name, "Bob", "Cy"], f"2025-01-0{day}T20:00:00")
        store.note_play(game_id, 1, name, "double")
    _game(store, ["Bob", "Cy"], "2025-01-09T20:00:00", finish=False)  # a game on the table
    assert name.encode() in _files(path)
    store.forget_player(_by_name(store)[name]["id"])
    game = store.get_game(1)
    assert game["players"] == ["Player 1", "Bob", "Cy"]
    assert game["winner"] == "Player 1" and game["rounds"][0]["went_out"] == "Player 1"
    assert name not in _by_name(store)
    assert store.integrity_ok()
    store.close()
    found = _files(path)
    assert found, "the database files were read"
    for spelling in (name, name.lower(), name.upper()):
        for encoding in ("utf-8", "utf-16-le", "utf-16-be"):
            assert spelling.encode(encoding) not in found, (spelling, encoding)


def test_an_anonymous_seat_never_clashes_with_a_real_player(tmp_path):
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Player 1"], "2025-01-01T20:00:00")
    store.forget_player(_by_name(store)["Ann"]["id"])
    assert store.get_game(1)["players"] == ["Player 1 (2)", "Player 1"]
    store.close()


def test_unknown_players_and_plays_are_refused(tmp_path):
    store = GameStore(tmp_path / "games.db")
    game_id = _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00", finish=False)
    with pytest.raises(PersonNotFound):
        store.player(99)
    with pytest.raises(PersonNotFound):
        store.head_to_head(1, 99)
    with pytest.raises(StoreError, match="kind"):
        store.note_play(game_id, 1, "Ann", "triple")
    with pytest.raises(sqlite3.IntegrityError):
        store.note_play(game_id, 1, "Zed", "double")
    store.close()


def test_rename_refuses_a_name_that_shows_nothing(tmp_path):
    """Only combining marks would show a blank player (issue 33, item 6)."""
    store = GameStore(tmp_path / "games.db")
    _game(store, ["Ann", "Bob"], "2025-01-01T20:00:00")
    ann = _by_name(store)["Ann"]["id"]
    with pytest.raises(StoreError) as caught:  # the store's refusal, the code kept
        store.rename_player(ann, "\u0301\u0308")
    assert (caught.value.code, caught.value.field) == ("name_blank", "name")
    assert _by_name(store)["Ann"]["id"] == ann
    store.close()

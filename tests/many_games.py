"""Many finished games written straight into a game store's file, in one transaction:
years of history in a second, for the tests that ask what a read costs when the store
has grown (tests/scorer/test_store_pages.py, tests/selftest/test_selftest_cost.py).

Each game seats Ann and Bob, has one scored round that Ann went out of, and is
finished with Ann the winner; the players are remembered (``people``). The store must
be closed while this writes (the file is then opened by the store as it left it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from scorer.names import skeleton
from scorer.store import GameStore, hash_token
from scorer.tokens import new_token

PLAYERS = ("Ann", "Bob")


def fill(path: Path, count: int) -> list[int]:
    """``count`` finished games added to the store at ``path`` (created at the current
    schema if missing); returns their ids, oldest first."""
    GameStore(path).close()  # created, or migrated, as the hub would
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        start = conn.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0] + 1
        ids = list(range(start, start + count))
        people = _people(conn)
        conn.executemany(
            "INSERT INTO games (id, created_at, rules, set_max, rounds, token, finished_at,"
            " winner) VALUES (?, ?, 'consensus', 12, 1, ?, ?, 'Ann')",
            [(i, _day(i), hash_token(new_token()), _day(i)) for i in ids],
        )
        for sql, rows in _details(ids, people):
            conn.executemany(sql, rows)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return ids


def _day(number: int) -> str:
    """A game's time: three games an evening, one evening a day, from 2016 on."""
    day, game = divmod(number, 3)
    return f"{2016 + day // 336:04d}-{day % 336 // 28 + 1:02d}-{day % 28 + 1:02d}T19:{game:02d}:00"


def _people(conn: sqlite3.Connection) -> dict[str, int]:
    """Ann's and Bob's person ids (remembered now if they were not)."""
    for name in PLAYERS:
        conn.execute(
            "INSERT OR IGNORE INTO people (name, skeleton, seen_at) VALUES (?, ?, ?)",
            (name, skeleton(name), _day(0)),
        )
    rows = conn.execute("SELECT name, id FROM people").fetchall()
    return {name: person for name, person in rows if name in PLAYERS}


Rows = list[tuple[object, ...]]


def _details(ids: list[int], people: dict[str, int]) -> list[tuple[str, Rows]]:
    """The seats, the round and its scores of every game."""
    each: Callable[[Callable[[int], Rows]], Rows] = lambda make: [r for i in ids for r in make(i)]  # noqa: E731
    return [
        (
            "INSERT INTO players (game_id, name, slot, position, person, place, won)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            each(
                lambda i: [
                    (i, name, seat + 1, seat, people[name], seat + 1, int(seat == 0))
                    for seat, name in enumerate(PLAYERS)
                ]
            ),
        ),
        (
            "INSERT INTO rounds (game_id, round, engine, went_out, finished)"
            " VALUES (?, 1, 12, 'Ann', 1)",
            each(lambda i: [(i,)]),
        ),
        (
            "INSERT INTO scores (game_id, round, player, points) VALUES (?, 1, ?, ?)",
            each(lambda i: [(i, "Ann", 0), (i, "Bob", 12)]),
        ),
    ]

"""Players across evenings, without the database: the statements that remember a
game's players, record a finished game's places, and rename, merge or forget a
remembered player everywhere (pure; :mod:`scorer.store` runs them).

A remembered player (a row of ``people``) is one :func:`scorer.names.skeleton`: the
same normalisation as the name checks at a new game (case, invisible characters,
look-alikes), so "Ann", "ANN" and "Аnn" (Cyrillic A) are one player. A seat
(``players``) points at its person; renaming, merging or forgetting changes the seat's
name in every table that holds it (``players``, ``rounds.went_out``, ``scores``,
``score_edits``, ``plays``) in one transaction, with SQLite's foreign keys deferred
to its end. A forgotten player's seats keep an anonymous name (:func:`anonymous`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorer import games, queries
from scorer.errors import clip
from scorer.games import GameRecord
from scorer.names import clean, skeleton
from scorer.rows import Statement, StoreError

Sql = Callable[..., list[Any]]  # runs one statement (text, parameters): its rows

PLAY_KINDS = ("double", "last_tile")
ANONYMOUS = "Player {n}"  # a forgotten player's seat: "Player 3" (the seat's number)

# Every seat of one person, with the other names at that game (for clashes).
SEATS = (
    "SELECT p.game_id, p.name, p.position, g.finished_at IS NULL AND g.abandoned_at IS NULL"
    " AS on_table FROM players p JOIN games g ON g.id = p.game_id WHERE p.person = ?"
)
# ... and every seat under the same name played while ``remember_players`` was off
# (pointing at nobody): forgetting a player forgets those too.
NAMED_SEATS = SEATS + " OR (p.person IS NULL AND name_skeleton(p.name) = ?)"
OTHERS = "SELECT name FROM players WHERE game_id = ? AND name <> ?"
BY_SKELETON = "SELECT id, name FROM people WHERE skeleton = ?"
FINISHED_UNPLACED = (
    "SELECT DISTINCT g.id FROM games g JOIN players p ON p.game_id = g.id"
    " WHERE g.finished_at IS NOT NULL AND p.place IS NULL"
)


@dataclass(frozen=True)
class Forgotten:
    """What forgetting a player changed in the store: the remembered ``name`` and each
    seat renamed, ``(game_id, old name, anonymous name)``, so the hub can rename them
    in what it holds beside the database (the table, its log, the voice's spellings)."""

    name: str
    seats: tuple[tuple[int, str, str], ...]


class PersonNotFound(StoreError):
    """No remembered player has the given id (an HTTP layer answers 404)."""


class PersonBusy(StoreError):
    """The change cannot be made now (the player is at the table, or two seats would
    clash); an HTTP layer answers 409."""


def person_number(person_id: object) -> int:
    """``person_id`` as a player's id (an int, not a bool); else :class:`PersonNotFound`."""
    if isinstance(person_id, bool) or not isinstance(person_id, int):
        raise PersonNotFound(
            f"player {clip(person_id)}: no such player",
            code="player_missing",
            player=person_id,
        )
    return person_id


def remember(game_id: int, names: Sequence[str], stamp: str) -> list[Statement]:
    """Remember a new game's players (a new person per unknown skeleton; a known one is
    seen again at ``stamp``) and point each seat at its person."""
    writes: list[Statement] = []
    for name in names:
        key = skeleton(name)
        writes += [
            (
                "INSERT OR IGNORE INTO people (name, skeleton, seen_at) VALUES (?, ?, ?)",
                (name, key, stamp),
            ),
            ("UPDATE people SET seen_at = ? WHERE skeleton = ?", (stamp, key)),
            (
                "UPDATE players SET person = (SELECT id FROM people WHERE skeleton = ?)"
                " WHERE game_id = ? AND name = ?",
                (key, game_id, name),
            ),
        ]
    return writes


def placing(game_id: int, view: Mapping[str, Any]) -> list[Statement]:
    """A finished game's places (rank by the standings, tie-breaks applied) and who won
    (the sole winner, or each member of the winning team), from its ``game_view``."""
    winners = set(view["winners"]) if view.get("winner") is not None else set()
    if view.get("teams") and view.get("winner") is not None:
        winners = {n for team in view["teams"] if " & ".join(team) in winners for n in team}
    return [
        (
            "UPDATE players SET place = ?, won = ? WHERE game_id = ? AND name = ?",
            (entry["rank"], int(entry["name"] in winners), game_id, entry["name"]),
        )
        for entry in view["places"]
    ]


def renamed_seat(game_id: int, old: str, new: str, person: int | None) -> list[Statement]:
    """Seat ``old`` of a game becomes ``new`` (of ``person``) in every table naming it."""
    where = (new, game_id, old)
    return [
        (
            "UPDATE players SET name = ?, person = ? WHERE game_id = ? AND name = ?",
            (new, person, game_id, old),
        ),
        ("UPDATE rounds SET went_out = ? WHERE game_id = ? AND went_out = ?", where),
        ("UPDATE scores SET player = ? WHERE game_id = ? AND player = ?", where),
        ("UPDATE score_edits SET player = ? WHERE game_id = ? AND player = ?", where),
        ("UPDATE plays SET player = ? WHERE game_id = ? AND player = ?", where),
        ("UPDATE games SET winner = NULL, version = version + 1 WHERE id = ?", (game_id,)),
    ]


def check_free(seats: Iterable[Mapping[str, Any]], action: str) -> None:
    """Refuse (:class:`PersonBusy`) a change to a player sitting at the unfinished game
    on the table: the table holds their name until it ends."""
    for seat in seats:
        if seat["on_table"]:
            raise PersonBusy(
                f"{seat['name']} is playing game {seat['game_id']} on the table: "
                f"{action} once it is finished (or abandoned)",
                code="player_at_table",
                name=seat["name"],
                game=seat["game_id"],
            )


def check_no_clash(game_id: int, new: str, others: Iterable[str]) -> None:
    """Refuse a new seat name that looks like another player's at the same game."""
    for other in others:
        if skeleton(other) == skeleton(new):
            raise PersonBusy(
                f"name: {new!r} would sit beside {other!r} in game {game_id}: "
                "the table could not tell them apart",
                "name",
                code="names_alike",
                one=new,
                other=other,
            )


def anonymous(position: int, others: Iterable[str]) -> str:
    """A forgotten player's seat name, the seat's number, unlike the other seats'."""
    taken = {skeleton(name) for name in others}
    name, extra = ANONYMOUS.format(n=position + 1), 1
    while skeleton(name) in taken:
        extra += 1
        name = f"{ANONYMOUS.format(n=position + 1)} ({extra})"
    return name


def note_play(sql: Sql, game_id: int, round: int, name: str, kind: str) -> None:
    """Note that ``name`` played a double or called their last tile (``kind``) in a
    round of a game (the seat must exist: a foreign key)."""
    if kind not in PLAY_KINDS:
        raise StoreError(
            f"kind: {clip(kind)} is not one of {', '.join(PLAY_KINDS)}",
            "kind",
            code="play_kind",
            value=kind,
        )
    load(sql, game_id).round_at(round)
    sql(
        "INSERT INTO plays (game_id, round, player, kind) VALUES (?, ?, ?, ?)",
        (game_id, round, name, kind),
    )


def forget_play(sql: Sql, game_id: int, round: int, name: str, kind: str) -> None:
    """Forget the newest note that ``name`` made a play of ``kind`` in a round (an undo
    took it back); none: nothing changes."""
    sql(
        "DELETE FROM plays WHERE rowid = (SELECT max(rowid) FROM plays"
        " WHERE game_id = ? AND round = ? AND player = ? AND kind = ?)",
        (game_id, round, name, kind),
    )


def load(sql: Sql, game_id: int) -> GameRecord:
    """One game's record (raises :class:`~scorer.rows.GameNotFound`)."""
    game = sql(queries.GAME, (game_id,))
    details = (sql(q, (game_id,)) for q in (queries.PLAYERS, queries.ROUNDS, queries.SCORES))
    return queries.game_record(game_id, game[0] if game else None, *details)


def _run(sql: Sql, statements: Iterable[Statement]) -> None:
    for text, parameters in statements:
        sql(text, parameters)


def person(sql: Sql, person_id: object) -> dict[str, Any]:
    """A remembered player's ``id``, ``name`` and ``last_seen``; else :class:`PersonNotFound`."""
    number = person_number(person_id)
    found = sql("SELECT id, name, seen_at AS last_seen FROM people WHERE id = ?", (number,))
    if not found:
        raise PersonNotFound(
            f"player {number}: no such player", code="player_missing", player=number
        )
    return dict(found[0])


def _reseat(sql: Sql, seat: Mapping[str, Any], new: str, to: int | None) -> None:
    """One seat renamed everywhere; a finished game's winner and places again."""
    game_id = seat["game_id"]
    check_no_clash(game_id, new, [r[0] for r in sql(OTHERS, (game_id, seat["name"]))])
    _run(sql, renamed_seat(game_id, seat["name"], new, to))
    game = load(sql, game_id)
    if game.finished_at is not None:
        game.winner = games.winner_of(game)
        sql("UPDATE games SET winner = ? WHERE id = ?", (game.winner, game_id))
        _run(sql, placing(game_id, games.game_view(game)))


def _seats(sql: Sql, person_id: int, action: str) -> list[Any]:
    seats = sql(SEATS, (person(sql, person_id)["id"],))
    check_free(seats, action)
    return seats


def rename(sql: Sql, person_id: int, name: str) -> None:
    """Rename a remembered player in every game at once (a name another player has:
    :class:`PersonBusy`, merge them instead)."""
    name = clean(name, "name")
    seats = _seats(sql, person_id, "rename them")
    taken = sql(BY_SKELETON, (skeleton(name),))
    if taken and taken[0]["id"] != person_id:
        raise PersonBusy(
            f"name: {name!r} is player {taken[0]['id']} ({taken[0]['name']}): merge them instead",
            "name",
            code="name_taken",
            name=taken[0]["name"],
        )
    for seat in seats:
        _reseat(sql, seat, name, person_id)
    sql("UPDATE people SET name = ?, skeleton = ? WHERE id = ?", (name, skeleton(name), person_id))


def merge(sql: Sql, source: int, into: int) -> None:
    """Player ``source`` (a typo) becomes ``into`` in every game, and is no more."""
    if source == into:
        raise StoreError("into: a player cannot be merged into themself", "into", code="merge_self")
    seats = _seats(sql, source, "merge them")
    _seats(sql, into, "merge them")
    target = person(sql, into)
    for seat in seats:
        _reseat(sql, seat, target["name"], into)
    sql("DELETE FROM people WHERE id = ?", (source,))


def forget(sql: Sql, person_id: int) -> Forgotten:
    """Forget a player: each seat keeps an anonymous name (:func:`anonymous`), the
    seats of games played under their name while ``remember_players`` was off too
    (same skeleton, pointing at nobody), and the remembered row goes (the store then
    scrubs its files). Returns what changed (:class:`Forgotten`)."""
    found = sql("SELECT name, skeleton FROM people WHERE id = ?", (person_number(person_id),))
    if not found:
        raise PersonNotFound(
            f"player {person_id}: no such player", code="player_missing", player=person_id
        )
    seats = sql(NAMED_SEATS, (person_id, found[0]["skeleton"]))
    check_free(seats, "forget them")
    renamed: list[tuple[int, str, str]] = []
    for seat in seats:
        others = [r[0] for r in sql(OTHERS, (seat["game_id"], seat["name"]))]
        new = anonymous(seat["position"], others)
        _reseat(sql, seat, new, None)
        renamed.append((seat["game_id"], seat["name"], new))
    sql("DELETE FROM people WHERE id = ?", (person_id,))
    return Forgotten(found[0]["name"], tuple(renamed))

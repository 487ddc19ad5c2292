"""The tournament board's model: every table (hub) seen on the broker, and the
tournament's standings across them (docs/mqtt.md, "The tournament board").

It reads what the hubs publish: ``<base>/<hub_id>/status``, ``state`` and ``game``.
A table that goes offline stays on the board, marked offline, until it has been offline
(or never said it is online) for :data:`FORGET_AFTER_S`; at most :data:`MOST_TABLES` are
kept, and what one hub may publish is bounded (see the limits below). Paho's thread only posts
each message (:meth:`TournamentBoard.post`), keeping the newest per topic (only the
latest ``state``, ``status`` or ``game`` of a table matters), at most
:data:`MOST_PENDING` topics waiting (beyond that a new topic is dropped and counted);
one writer thread parses and applies everything posted so far as one batch
(:meth:`TournamentBoard.drain`), builds each
changed table's summary once, redoes the standings once per batch and only when a
``game`` or ``status`` came, then wakes the readers once. A message is cut down to
the fields the board reads, each of the type it expects (:func:`clean_state`,
:func:`clean_game`), so a hub publishing another shape cannot break a summary; the
writer logs a batch that fails anyway and carries on. Each change bumps a version;
a reader asks for everything changed since the version it last saw
(:meth:`TournamentBoard.changes_since`), so a slow phone gets the newest tables in one go
instead of a backlog, and a busy board never queues without bound.

Standings across tables: cumulative points, lowest first (the game's own scoring,
summed over every scored round); ties broken by more rounds won (went out first),
then shared; players whose table has scored no round yet come last, unplaced. Beside
each total stand the rounds scored, so a table that is behind reads as such; see
docs/mqtt.md for why.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hub.board.shapes import clean_game, clean_state

log = logging.getLogger("hub.board")
MOST_PENDING = 10_000  # topics waiting for the writer: three per table, far beyond a tournament
LEAVES = ("status", "state", "game")  # what the board reads of each hub

# A parsed message: ((hub_id, leaf), value), or (None, connected) for the board's own link.
Item = tuple[tuple[str, str] | None, Any]


@dataclass
class TableSeen:
    """What the board knows of one hub."""

    hub_id: str
    online: bool | None = None
    state: dict[str, Any] | None = None
    game: dict[str, Any] | None = None
    version: int = 0
    seen: float = 0.0
    # summary(self), built by the writer in the batch that changed the table (the one
    # that added it too), so every table a reader can see has it.
    shown: dict[str, Any] = field(default_factory=dict)


@dataclass
class Changes:
    """The tables changed since a version, and the standings if they changed."""

    version: int
    connected: bool
    tables: list[dict[str, Any]] = field(default_factory=list)
    standings: list[dict[str, Any]] | None = None
    # True when a table was forgotten since that version: ``tables`` is then every
    # table, and the reader replaces what it shows.
    whole: bool = False


# What one hub may publish is bounded, so one table can never slow every other (the
# page says so, board.html); the shape of each message is checked in hub.board.shapes.
MOST_PAYLOAD = 64 * 1024  # bytes of one message; a real 8-player, 16-round game is ~6 KB
MOST_HUB_ID = 64  # characters of a hub id; a longer one is ignored
MOST_TABLES = 200  # tables on the board; beyond it a table not online is forgotten
FORGET_AFTER_S = 3600.0  # a table not online and not heard from this long is forgotten


def _owner(state: dict[str, Any], slot: object) -> str | None:
    for entry in state.get("slots") or []:  # objects: clean_state saw to it
        if entry.get("slot") == slot:
            owner = entry.get("owner")
            return owner if isinstance(owner, str) else None
    return None


def summary(table: TableSeen) -> dict[str, Any]:
    """One table as the board page shows it."""
    state, game = table.state or {}, table.game or {}
    raw = state.get("game")
    on_table: dict[str, Any] = raw if isinstance(raw, dict) else {}
    totals = game.get("totals") or {}
    standings = game.get("standings") or []
    players = [
        {
            "name": name,
            "total": totals.get(name),
            "place": standings.index(name) + 1 if name in standings else None,
        }
        for name in (game.get("players") or on_table.get("players") or [])
    ]
    turn = state.get("turn")
    return {
        "hub_id": table.hub_id,
        "online": table.online,
        "version": table.version,
        "game_id": on_table.get("id", game.get("id")),
        "round": on_table.get("round", game.get("round")),
        "rounds": on_table.get("rounds", game.get("round_count")),
        "engine": on_table.get("engine", game.get("engine")),
        "phase": on_table.get("phase") or ("finished" if game.get("finished") else None),
        "turn": _owner(state, turn) if turn else None,
        "turn_slot": turn,
        "players": players,
        "standings": standings,
        "winner": game.get("winner"),
        "rounds_scored": len(_scored(game)),
    }


def _scored(game: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in game.get("rounds") or [] if r["points"]]  # shaped by clean_game


def standings(tables: list[TableSeen]) -> list[dict[str, Any]]:
    """Every player at every table, ranked by cumulative points (see the module doc)."""
    rows = []
    for table in tables:
        game = table.game or {}
        scored = _scored(game)
        for name in game.get("players") or []:
            points = sum(int(r["points"].get(name, 0)) for r in scored)
            won = sum(1 for r in scored if r.get("went_out") == name)
            rows.append(
                {
                    "name": name,
                    "hub_id": table.hub_id,
                    "points": points,
                    "rounds": len(scored),
                    "won": won,
                    "online": table.online,
                }
            )
    # A player whose table has scored nothing yet is not level with the leaders: unplaced.
    rows.sort(key=lambda r: (r["rounds"] == 0, r["points"], -r["won"], r["name"], r["hub_id"]))
    place, previous = 0, None
    for i, row in enumerate(rows, 1):
        key = (row["points"], row["won"])
        if key != previous:
            place, previous = i, key
        row["place"] = place if row["rounds"] else None
    return rows


class TournamentBoard:
    """Every table seen on the broker under ``base`` (see the module doc). Paho's thread
    calls :meth:`post` and :meth:`post_connected`; the writer thread (:meth:`start`)
    applies; any thread reads :meth:`view` and :meth:`changes_since`."""

    def __init__(self, base: str = "mtrain", clock: Callable[[], float] | None = None) -> None:
        import time

        self.base = base
        self.connected = False
        self._clock = clock or time.monotonic
        self._tables: dict[str, TableSeen] = {}
        self._version = 0
        self._standings: list[dict[str, Any]] = []
        self._standings_version = 0
        self._cond = threading.Condition()
        self._pending: dict[str, Any] = {}  # topic ("" for the link) -> newest payload
        self._pending_lock = threading.Lock()
        self._posted = threading.Event()
        self.dropped = 0  # posts refused because MOST_PENDING topics were waiting
        self.refused = 0  # messages of a new table refused: MOST_TABLES are online
        self._forgot_version = 0  # the version at which a table was last forgotten

    def subscriptions(self) -> tuple[str, ...]:
        """The topics the board listens to."""
        return tuple(f"{self.base}/+/{leaf}" for leaf in LEAVES)

    def post(self, topic: str, payload: bytes) -> None:
        """A message from the broker (paho's thread): only queue it for the writer."""
        self._put(topic, payload)

    def post_connected(self, connected: bool) -> None:
        """The board's own link came or went (paho's thread): queue it for the writer."""
        self._put("", connected)

    def _put(self, topic: str, value: Any) -> None:
        """Keep ``value`` as the newest for ``topic``, placed last; wake the writer."""
        with self._pending_lock:
            if topic not in self._pending and len(self._pending) >= MOST_PENDING:
                self.dropped += 1
                if self.dropped == 1 or self.dropped % 1000 == 0:
                    log.warning(
                        "board: %d topics waiting; %d messages dropped so far",
                        MOST_PENDING,
                        self.dropped,
                    )
                return
            self._pending.pop(topic, None)
            self._pending[topic] = value
        self._posted.set()

    def start(self, stopping: threading.Event) -> threading.Thread:
        """The writer thread: drains the inbox until ``stopping`` is set."""

        def run() -> None:
            while not stopping.is_set():
                try:
                    self.drain(0.5)
                except Exception:  # a bug must not stop the board for good: log, go on
                    log.exception("board: applying a batch failed; it is dropped")

        thread = threading.Thread(target=run, name="board-writer", daemon=True)
        thread.start()
        return thread

    def drain(self, timeout: float = 0.0) -> int:
        """Apply everything posted (waiting up to ``timeout`` s for the first) as one
        batch, waking the readers once; returns how many topics were applied."""
        if timeout:
            self._posted.wait(timeout)
        with self._pending_lock:
            batch = list(self._pending.items())
            self._pending.clear()
            self._posted.clear()
        if not batch:
            with self._cond:  # nothing came: still forget the tables long gone
                self._apply([])
            return 0
        parsed = [
            (None, value) if not topic else self._read(topic, value) for topic, value in batch
        ]
        with self._cond:
            self._apply([item for item in parsed if item is not None])
        return len(batch)

    def _read(self, topic: str, payload: bytes) -> Item | None:
        """((hub_id, leaf), parsed value) of a message the board wants, else None."""
        prefix = f"{self.base}/"
        if not topic.startswith(prefix) or topic.count("/") != self.base.count("/") + 2:
            return None
        hub_id, leaf = topic[len(prefix) :].split("/")
        if leaf not in LEAVES or not hub_id or len(hub_id) > MOST_HUB_ID:
            return None
        try:
            return (hub_id, leaf), self._parse(leaf, payload)
        except ValueError as exc:
            log.warning("board: %s: %s; ignored", topic, exc)
            return None

    def _apply(self, items: list[Item]) -> None:
        """Apply parsed messages (holding the lock): new versions, one standings pass."""
        rank = self._forget_stale()
        if not items and not rank:
            return
        changed: dict[str, TableSeen] = {}
        for where, value in items:
            if where is None:
                self._version += 1
                self.connected = bool(value)
                continue
            hub_id, leaf = where
            table = self._tables.get(hub_id) or self._seat(hub_id)
            if table is None:
                continue
            self._version += 1
            if leaf == "status":
                table.online = value == "online"
            elif leaf == "state":
                table.state = value
            else:
                table.game = value
            table.version, table.seen = self._version, self._clock()
            changed[hub_id] = table
            rank = rank or leaf == "game" or (leaf == "status" and bool(self._standings))
        changed = {k: t for k, t in changed.items() if self._tables.get(k) is t}
        try:
            for table in changed.values():
                table.shown = summary(table)
            if rank:
                self._standings = standings(list(self._tables.values()))
                self._standings_version = self._version
        finally:  # even after a bug: readers see what did change, and wait no longer
            self._cond.notify_all()

    def _seat(self, hub_id: str) -> TableSeen | None:
        """A new table, making room by forgetting the stalest table not online when
        :data:`MOST_TABLES` are kept; None (counted, logged now and then) if all are."""
        if len(self._tables) >= MOST_TABLES:
            idle = [t for t in self._tables.values() if t.online is not True]
            if not idle:
                self.refused += 1
                if self.refused == 1 or self.refused % 1000 == 0:
                    log.warning(
                        "board: %d tables online; %d messages of new tables refused",
                        MOST_TABLES,
                        self.refused,
                    )
                return None
            self._forget(min(idle, key=lambda t: t.seen).hub_id)
        table = self._tables[hub_id] = TableSeen(hub_id)
        return table

    def _forget(self, hub_id: str) -> None:
        del self._tables[hub_id]
        self._version += 1
        self._forgot_version = self._version

    def _forget_stale(self) -> bool:
        """Forget every table not online and not heard from for :data:`FORGET_AFTER_S`;
        True if any was (the standings change)."""
        now = self._clock()
        stale = [
            t.hub_id
            for t in self._tables.values()
            if t.online is not True and now - t.seen >= FORGET_AFTER_S
        ]
        for hub_id in stale:
            self._forget(hub_id)
        return bool(stale)

    @staticmethod
    def _parse(leaf: str, payload: bytes) -> Any:
        if len(payload) > MOST_PAYLOAD:
            raise ValueError(f"{len(payload)} bytes, more than {MOST_PAYLOAD}")
        try:
            text = payload.decode()
        except UnicodeDecodeError:
            raise ValueError("not UTF-8") from None
        if leaf == "status":
            if text not in ("online", "offline"):
                raise ValueError(f"expected online or offline, got {text[:40]!r}")
            return text
        try:
            value = json.loads(text or "null")
        except (ValueError, RecursionError):  # RecursionError: nested too deep
            raise ValueError("not valid JSON") from None
        if value is None:
            return None
        if not isinstance(value, dict):
            raise ValueError("expected a JSON object")
        return clean_state(value) if leaf == "state" else clean_game(value)

    def view(self) -> dict[str, Any]:
        """The whole board: every table, the standings, and the board's version."""
        with self._cond:
            tables = sorted(self._tables.values(), key=lambda t: t.hub_id)
            return {
                "version": self._version,
                "connected": self.connected,
                "tables": [t.shown for t in tables],
                "standings": self._standings,
            }

    def changes_since(self, version: int, timeout: float) -> Changes | None:
        """Wait up to ``timeout`` s for a change after ``version``; None if nothing came."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._version > version, timeout):
                return None
            whole = self._forgot_version > version
            changed = sorted(
                (t for t in self._tables.values() if whole or t.version > version),
                key=lambda t: t.hub_id,
            )
            return Changes(
                self._version,
                self.connected,
                [t.shown for t in changed],
                self._standings if whole or self._standings_version > version else None,
                whole,
            )

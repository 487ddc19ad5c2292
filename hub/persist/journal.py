"""The table's journal: every event the core applies, so a crash loses no table.

The loop thread only hands each applied event (and the table it made) to a
:class:`JournalWriter`, which batches them and has the store writer thread encode,
append and fsync them: the loop never waits for the disk. A request that answers
with the table (a press on the virtual hub, an undo, a fix) first waits for the
loop's :meth:`~hub.loop.HubLoop.drain` or ``settled_later``, which end only once
:meth:`JournalWriter.written` has: what a client was told has been written.

The journal holds one *segment*: a checkpoint (the whole table, encoded by
:mod:`hub.persist.codec`) followed by the events applied since. A new segment starts
when the hub starts, when a game or round changes (or its players' names: a player
forgotten leaves their name in no segment), and every ``compact_after`` events, so
replay stays short (see :mod:`hub.persist.replay`).

Sharing the store writer's thread keeps one order for both: a round that the table
ended is in the store before the event that ended it is in the journal, so after a
crash the journal is never ahead of the store, at most behind it by the last batch.

The port is :class:`Journal`; :class:`FileJournal` keeps it in a file of JSON lines,
each with its CRC-32 (a record torn by a power cut is detected and dropped);
its fake is ``tests/doubles.py``'s ``MemoryJournal``.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol

from hub.core.events import Event
from hub.core.state import Table
from hub.persist.codec import encode

log = logging.getLogger("hub.persist.journal")

VERSION = 1  # of the records; a journal of another version is not replayed
FILE_NAME = "table.journal"
BATCH = 256  # events the loop gathers at most before handing them off
COMPACT_AFTER = 2000  # events in a segment before a fresh checkpoint starts the next

Record = dict[str, Any]
# What a failed write means for the table, by its errno: the page names it
# (``errors.storage.<problem>`` in the catalogs).
PROBLEMS = {errno.EROFS: "read_only", errno.ENOSPC: "full", errno.EDQUOT: "full"}


def storage_problem(exc: BaseException, path: str) -> dict[str, Any]:
    """The snapshot's ``storage`` while the table cannot be saved: ``saved`` false, the
    ``problem`` (``read_only``, ``full`` or ``error``), the ``path`` and the OS's words."""
    number = exc.errno if isinstance(exc, OSError) else None
    return {
        "saved": False,
        "problem": PROBLEMS.get(number or 0, "error"),
        "path": path,
        "detail": exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc),
    }


class Journal(Protocol):
    """Where the journal's records live: one segment, a checkpoint and then events."""

    def load(self) -> list[Record]:
        """The segment's intact records, oldest first (empty: no journal)."""

    def begin(self, records: list[Record]) -> None:
        """Replace the segment with ``records`` (the checkpoint first), durably."""

    def append(self, records: list[Record]) -> None:
        """Add ``records`` to the segment (durable after :meth:`sync`)."""

    def sync(self) -> None:
        """Make every record appended so far durable."""

    def close(self) -> None:
        """Release the file."""


def frame(record: Record) -> bytes:
    """One line of the file: the record's CRC-32 in hex, a space, its JSON."""
    body = json.dumps(record, separators=(",", ":"), allow_nan=False).encode()
    return b"%08x %s\n" % (zlib.crc32(body), body)


def unframe(line: bytes) -> Record | None:
    """The record of one complete line, or None when it is torn or damaged."""
    crc, _, body = line.rstrip(b"\n").partition(b" ")
    if len(crc) != 8 or not line.endswith(b"\n"):
        return None
    try:
        if int(crc, 16) != zlib.crc32(body):
            return None
        record = json.loads(body)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


class FileJournal:
    """The journal in ``path`` (``table.journal`` in the state directory), readable by
    its owner only. A new segment is written beside it and renamed over it.

    ``durable=False`` skips the fsyncs: for hubs on a virtual clock (tests, the soak),
    where no power is ever cut and a soak would otherwise wait on the disk per edge.
    """

    def __init__(self, path: Path, durable: bool = True) -> None:
        self.path = path
        self.durable = durable
        self._file: Any = None

    def load(self) -> list[Record]:
        """Every record up to the first torn or damaged one (which a power cut can
        leave last; anything after it is dropped too, and said so in the log)."""
        try:
            lines = self.path.read_bytes().splitlines(keepends=True)
        except FileNotFoundError:
            return []
        records = []
        for number, line in enumerate(lines, 1):
            record = unframe(line)
            if record is None:
                log.warning(
                    "journal: %s: line %d of %d is torn or damaged; replaying the "
                    "%d records before it",
                    self.path,
                    number,
                    len(lines),
                    number - 1,
                )
                break
            records.append(record)
        return records

    def begin(self, records: list[Record]) -> None:
        """Write the new segment beside the journal, fsync it, rename it over."""
        self.close()
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fresh = self.path.with_name(self.path.name + ".new")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(b"".join(frame(r) for r in records))
            out.flush()
            if self.durable:
                os.fsync(out.fileno())
        os.replace(fresh, self.path)
        if self.durable:
            _sync_folder(self.path.parent)
        self._file = open(self.path, "ab")  # noqa: SIM115 (kept open between batches)

    def append(self, records: list[Record]) -> None:
        """Write ``records`` to the end of the segment (to the OS, not yet the disk)."""
        if self._file is None:
            self._file = open(self.path, "ab")  # noqa: SIM115
        self._file.write(b"".join(frame(r) for r in records))
        self._file.flush()

    def sync(self) -> None:
        """fsync the journal."""
        if self._file is not None and self.durable:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file (the next write opens it again)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _sync_folder(folder: Path) -> None:
    """fsync a folder, so a rename in it survives a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Writer(Protocol):
    """The thread the journal's writes run on (:class:`hub.persist.store_writer.StoreWriter`)."""

    def submit(self, job: Callable[[], Any]) -> Future[Any]:
        """Run ``job`` on the writer thread, after every job submitted before it."""


class JournalWriter:
    """The loop's side of the journal: :meth:`record` and :meth:`restart` gather on the
    loop thread, :meth:`hand_off` passes a batch to ``writer``'s thread, which writes it
    and fsyncs once the newest batch handed off is written."""

    def __init__(
        self, journal: Journal, writer: Writer, compact_after: int = COMPACT_AFTER
    ) -> None:
        self._journal = journal
        self._writer = writer
        self._compact_after = compact_after
        self._pending: list[tuple[Event | None, Table]] = []  # loop thread only
        self._handed = 0  # batches handed off (written by the loop thread only)
        self._segment: tuple[int, int, tuple[str, ...]] | None = None  # see _round_of
        self._count = 0  # events in the segment (writer thread only)
        self._broken = True  # no segment written yet (or the last write failed)
        self._failing = False  # the last write failed (said once in the log)
        self._unsynced = False  # appended, its fsync left to a later batch (writer thread)
        self._problem: dict[str, Any] | None = None  # why the last write failed
        self._on_problem: Callable[[dict[str, Any] | None], None] | None = None

    def watch(self, on_problem: Callable[[dict[str, Any] | None], None]) -> None:
        """``on_problem`` hears (on the writer thread) when writes start failing, with
        :func:`storage_problem`, and None once a write succeeds again."""
        self._on_problem = on_problem

    def record(self, event: Event, table: Table) -> None:
        """``event`` was applied and made ``table`` (loop thread; never blocks)."""
        self._pending.append((event, table))
        if len(self._pending) >= BATCH:
            self.hand_off()

    def restart(self, table: Table) -> None:
        """The loop starts over from ``table`` (at start, after replay): a new segment."""
        self._pending.append((None, table))

    def hand_off(self) -> None:
        """Pass what was gathered to the writer thread (loop thread; never blocks)."""
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        self._handed += 1
        number = self._handed
        self._writer.submit(lambda: self._write(batch, number))

    def written(self) -> Future[dict[str, Any] | None]:
        """A future that resolves once every batch handed off so far is on disk. It
        runs on the writer thread after those batches and fsyncs what the last of them
        left to a later batch: one the loop may hand off only after this was asked.
        Its result is None, or :func:`storage_problem` when they could not be written
        (a read-only or full disk): the caller must not say the table was saved."""
        return self._writer.submit(self._sync_left)

    def _sync_left(self) -> dict[str, Any] | None:
        """Writer thread: fsync an append whose fsync was left to a later batch."""
        if self._unsynced:
            try:
                self._journal.sync()
            except Exception as exc:  # as a failed write: the next batch starts afresh
                self._failed(exc)
                return self._problem
            self._unsynced = False
        return self._problem

    def _write(self, batch: list[tuple[Event | None, Table]], number: int) -> None:
        """Writer thread: append the batch, or begin a segment where one is due."""
        start: Table | None = None
        events: list[Record] = []
        for event, table in batch:
            if event is None or self._broken or self._due(table):
                start, events, self._broken = table, [], False
                self._segment, self._count = _round_of(table), 0
            else:
                events.append({"event": encode(event)})
                self._count += 1
        try:
            if start is not None:
                self._journal.begin([{"v": VERSION, "table": encode(start)}, *events])
                self._unsynced = False  # a new segment is durable once renamed
            elif events:
                self._journal.append(events)
                self._unsynced = True
                if number == self._handed:  # else a later batch syncs for both
                    self._journal.sync()
                    self._unsynced = False
        except Exception as exc:  # a full or read-only disk: the hub plays on
            self._failed(exc)
            return
        if self._failing:
            log.warning("journal: %s is written again", _where(self._journal))
            self._failing = False
            self._problem = None
            if self._on_problem is not None:
                self._on_problem(None)

    def _failed(self, exc: Exception) -> None:
        """A write or fsync failed: the next batch starts a whole new segment."""
        self._broken = True
        problem = storage_problem(exc, _where(self._journal))
        if problem != self._problem:
            self._problem = problem
            if self._on_problem is not None:
                self._on_problem(problem)
        if not self._failing:
            log.error(
                "journal: cannot write %s (%s); the table will not survive a "
                "crash until a write succeeds",
                _where(self._journal),
                exc,
            )
        self._failing = True

    def _due(self, table: Table) -> bool:
        """A new segment starts with a new game, round or names, or a long segment."""
        return _round_of(table) != self._segment or self._count >= self._compact_after


def _where(journal: Journal) -> str:
    return str(getattr(journal, "path", "the journal"))


def _round_of(table: Table) -> tuple[int, int, tuple[str, ...]] | None:
    """What a segment is of: a game's round, under its players' names (a forgotten
    player's name changes them, and the new segment leaves the old name in no file)."""
    game = table.game
    return None if game is None else (game.id, game.round, game.players)

"""The hub loop: one queue, one writer thread, an immutable snapshot for readers.

Adapters' callbacks only :meth:`HubLoop.post` events. The loop thread applies
each to the pure core, dispatches the effects (each failure isolated), hands the
event to the journal (written on another thread, :mod:`hub.persist.journal`), and
publishes a fresh snapshot dict that readers take without locking.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

from hub import core
from hub.core.effects import Effect
from hub.core.events import ClockTicked, Event
from hub.core.state import Table
from hub.io.clock import Clock
from hub.runtime.asks import Call, Restore, Settle, Snapshot, Submitted, TableChanged
from scorer.errors import FieldError

log = logging.getLogger("hub.runtime.loop")

_STOP = object()


class JournalSink(Protocol):
    """Where the loop hands every event it applied: the journal's writer
    (:class:`hub.persist.journal.JournalWriter`, which the composition root hands in)."""

    def record(self, event: Event, table: Table) -> None:
        """``event`` was applied and made ``table`` (loop thread; never blocks)."""

    def restart(self, table: Table) -> None:
        """The loop starts over from ``table``: a new segment."""

    def hand_off(self) -> None:
        """Pass what was gathered to the writer thread (loop thread; never blocks)."""

    def written(self) -> Future[Any]:
        """A future that resolves once every batch handed off so far is on disk."""


class HubLoop:
    """Owns the table. ``post`` from any thread; everything else runs on the loop thread.

    ``journal`` gets every event applied. The composition root wires the rest before
    :meth:`start`, each straight to its part: ``dispatch(effects, table)`` carries out
    an event's effects (the table after them, for the voice); ``views`` are parts drawn
    from each snapshot whose drawing joins it under their key (the ring: its pixels
    are in the snapshot they were drawn from, no second one follows); ``on_state``
    hears of each snapshot; ``divert(event)`` takes an input edge from the table while
    it returns True (the self-test borrows the inputs). Without :meth:`start`,
    :meth:`drain` processes events inline (the soak runs that way, on a virtual clock).
    """

    def __init__(
        self,
        table: Table,
        clock: Clock,
        backend: str,
        journal: JournalSink | None = None,
    ) -> None:
        self._table = table
        self._journal = journal
        self._clock = clock
        self._backend = backend
        self.dispatch: Callable[[list[Effect], Table], None] = lambda effects, table: None
        self.views: dict[str, Callable[[Snapshot], object]] = {}
        self.on_state: Callable[[Snapshot], None] | None = None
        self.divert: Callable[[Event], bool] | None = None
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._handling: int | None = None  # the thread handling an item, while it does
        self._extras_pending = False  # set_extra on the loop thread, not yet announced
        self._key = self._visible(table)
        self.snapshot: Snapshot = core.snapshot(table, backend)
        self.extras: dict[str, object] = {}
        # (fn, every_s): called on the loop thread at least every every_s (see beat)
        self._beat: tuple[Callable[[], None], float] | None = None
        self._beat_due = 0.0  # time.monotonic() of the next beat

    @property
    def table(self) -> Table:
        """The current table (immutable; safe to read from any thread)."""
        return self._table

    def post(self, event: Event) -> None:
        """Queue an event for the loop thread (unless ``divert`` takes it); never blocks."""
        divert = self.divert
        if divert is not None and divert(event):
            return
        self._queue.put(event)

    def submit(
        self, event: Event, unless: Callable[[Table], FieldError | None] | None = None
    ) -> Future[Snapshot]:
        """Queue ``event``; the future resolves with the snapshot once the loop has
        applied it and dispatched its effects. Without a loop thread the event (and
        everything queued before it) is processed before this returns.

        ``unless(table)``: asked on the loop thread just before, with every deadline due
        fired, so nothing comes between the look and the event; a reason it returns
        leaves the table alone and the future raises :class:`TableChanged` with it (a
        phone's undo of the table it saw, not of a press made since)."""
        item = Submitted(event, unless)
        self._queue.put(item)
        if self._thread is None:
            self.drain()
        return item.future

    def beat(self, fn: Callable[[], None] | None, every_s: float = 1.0) -> None:
        """Have the loop thread call ``fn()`` every ``every_s`` seconds of real time
        (``time.monotonic``), idle or busy (a busy loop calls it between two items;
        one that hangs or is starved of CPU calls it late: the watchdog's ping,
        :mod:`hub.runtime.notify`). ``fn`` must return at once. None stops it. From any
        thread; the first call comes at once (the loop is woken for it)."""
        self._beat = None if fn is None else (fn, every_s)
        self._beat_due = 0.0
        self._queue.put(Call(lambda _table: None))  # wake the loop: it beats first

    def _beat_wait(self, timeout: float | None) -> float | None:
        """Beat if one is due; ``timeout`` shortened to the next beat."""
        beat = self._beat
        if beat is None:
            return timeout
        fn, every = beat
        now = time.monotonic()
        if now >= self._beat_due:
            self._beat_due = now + every
            try:
                fn()
            except Exception:  # the beat's owner's bug: logged, the loop goes on
                log.exception("the loop's beat failed")
        left = max(0.0, self._beat_due - now)
        return left if timeout is None else min(timeout, left)

    def restore(self, table: Table) -> None:
        """Start over from ``table`` (after everything queued so far): the journal
        begins a new segment with it, and it is announced."""
        self._queue.put(Restore(table))

    def settled(self, timeout: float = 5.0) -> Snapshot:
        """Wait until everything queued so far (and every deadline due) is processed
        and journaled; the snapshot then. Waits on the caller's thread, never the loop's."""
        self.drain(timeout)
        return self.snapshot

    def settled_later(self) -> Future[Snapshot]:
        """As :meth:`settled`, waited for by no thread: the future resolves (on the
        journal's writer thread, or here without a loop thread) with the snapshot once
        everything queued so far, and every deadline due, is processed and journaled."""
        item = Settle()
        self._queue.put(item)
        if self._thread is None:
            self.drain()
        return item.future

    def start(self) -> None:
        """Start the loop thread."""
        self._thread = threading.Thread(target=self._run, name="hub-loop", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Finish queued events and stop the thread."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout)
            self._thread = None

    def call(self, fn: Callable[[Table], object], timeout: float = 5.0) -> object:
        """Run ``fn(table)`` after everything queued so far; return its result."""
        item = Call(fn)
        self._queue.put(item)
        if self._thread is None:
            self.drain()
        elif not item.done.wait(timeout):
            raise TimeoutError("hub loop did not answer")
        return item.result

    def drain(self, timeout: float = 5.0) -> None:
        """Process everything queued (and every deadline due) before returning; with a
        journal, wait until it is written too (what a client is told, survives)."""
        if self._thread is not None:
            try:
                self.settled_later().result(timeout)
            except TimeoutError:
                raise TimeoutError("hub loop did not answer") from None
            return
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                self._fire_due()
                if self._queue.empty():
                    self._hand_off()
                    return
                continue
            self._handle(item)

    def _hand_off(self) -> None:
        """The events applied so far go to the journal's writer thread."""
        if self._journal is not None:
            self._journal.hand_off()

    def _run(self) -> None:
        while True:
            if self._queue.empty():  # idle: what was applied goes to the disk now
                self._hand_off()
            timeout = self._beat_wait(self._clock.timeout_until(core.next_deadline(self._table)))
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                self._fire_due()
                continue
            if item is _STOP:
                self._hand_off()
                return
            self._handle(item)

    def _fire_due(self) -> None:
        due = core.next_deadline(self._table)
        if due is not None and due <= self._clock.now():
            outer, self._handling = self._handling, threading.get_ident()
            try:
                self._apply(ClockTicked(self._clock.now()))
            finally:
                self._handling = outer

    def _handle(self, item: object) -> None:
        self._handling = threading.get_ident()
        try:
            self._handle_one(item)
        finally:
            self._handling = None

    def _handle_one(self, item: object) -> None:
        # Events carry their own time: the core fires earlier deadlines itself. A call
        # (a barrier) sees every deadline due by now fired first.
        if isinstance(item, Call):
            self._fire_due()
            try:
                item.result = item.fn(self._table)
            except Exception as exc:  # the caller gets the error, the loop goes on
                item.result = exc
            if self._extras_pending:
                self._announce()
            self._hand_off()  # a caller waits: it may then wait for the journal
            item.done.set()
            return
        if isinstance(item, Submitted):
            if item.unless is not None:
                self._fire_due()
                try:
                    why = item.unless(self._table)
                except Exception as exc:  # the caller gets the error, the loop goes on
                    item.future.set_exception(exc)
                    return
                if why is not None:
                    item.future.set_exception(
                        TableChanged(str(why), why.field, code=why.code, **why.params)
                    )
                    return
            self._apply(item.event)
            self._hand_off()
            item.future.set_result(self.snapshot)
            return
        if isinstance(item, Restore):
            self._restore(item.table)
            return
        if isinstance(item, Settle):
            self._settle(item.future)
            return
        self._apply(item)  # type: ignore[arg-type]

    def _settle(self, future: Future[Snapshot]) -> None:
        """A barrier nobody waits on: ``future`` gets the snapshot once the journal
        has written what was applied so far."""
        self._fire_due()
        if self._extras_pending:
            self._announce()
        self._hand_off()
        snapshot = self.snapshot
        if self._journal is None:
            future.set_result(snapshot)
            return

        def written(done: Future[Any]) -> None:
            error = done.exception()
            if error is not None:
                future.set_exception(error)
            elif done.result() is not None:  # not on disk: the answer must say so
                future.set_result({**snapshot, "storage": done.result()})
            else:
                future.set_result(snapshot)

        self._journal.written().add_done_callback(written)

    def _restore(self, table: Table) -> None:
        self._table = table
        if self._journal is not None:
            self._journal.restart(table)
        self._key = self._visible(table)
        self._announce()

    def _apply(self, event: Event) -> None:
        try:
            table, effects = core.apply(self._table, event)
        except Exception:
            log.exception("core failed on %r; event dropped", event)
            return
        self._table = table
        self.dispatch(effects, table)
        if self._journal is not None:  # after the dispatch: a store write goes first
            self._journal.record(event, table)
        key = self._visible(table)
        if key != self._key or self._extras_pending:
            self._key = key
            self._announce()

    def _announce(self) -> None:
        """A fresh snapshot with every view drawn into it, and ``on_state`` told of it."""
        snapshot = {**core.snapshot(self._table, self._backend), **self.extras}
        for key, view in self.views.items():
            try:
                snapshot[key] = view(snapshot)
            except Exception:  # a broken part: the table goes on without its drawing
                log.exception("drawing the snapshot's %s failed", key)
        self.snapshot = snapshot
        self._extras_pending = False
        if self.on_state is not None:
            self.on_state(snapshot)

    def refresh(self) -> None:
        """A view changed by itself (the ring's flash or its end, its brightness, the
        self-test's lights): draw it into a new snapshot and announce it, from any
        thread (on the loop thread, with the event being handled)."""
        if threading.get_ident() == self._handling:
            self._extras_pending = True
            return
        self._queue.put(Call(lambda _table: self._announce()))

    def set_extra(self, key: str, value: object) -> None:
        """Add ``key`` to the snapshot (e.g. the sound status) from any thread, without waiting.

        From another thread the change is made on the loop thread, which then announces
        the new snapshot. From the loop thread itself it is made at once, and announced
        with (or after) the event being handled.
        """
        if threading.get_ident() == self._handling:
            self.extras[key] = value
            self.snapshot = {**self.snapshot, key: value}
            self._extras_pending = True
            return

        def rebuild(table: Table) -> None:
            self.extras[key] = value
            self._announce()

        self._queue.put(Call(rebuild))

    @staticmethod
    def _visible(table: Table) -> tuple[object, ...]:
        return (
            table.game,
            table.turn,
            table.doubles,
            table.went_out,
            tuple(m.present for m in table.markers),
            table.by_hand,
            table.one_tile,
            len(table.history),
            table.claims,
        )

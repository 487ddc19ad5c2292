"""What a caller may put on the loop's queue beside an event (:mod:`hub.runtime.loop`):
a call to run on the loop thread, a table to start over from, an event whose poster
waits for it (and may refuse it, :class:`TableChanged`), a wait for everything before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from hub.core.events import Event
from hub.core.state import Table
from scorer.errors import FieldError

Snapshot = dict[str, Any]  # the JSON of GET /api/state


class Call:
    """Run ``fn(table)`` on the loop thread and hand back its result."""

    def __init__(self, fn: Callable[[Table], object]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.result: object = None


class Restore:
    """Start over from ``table`` (rebuilt from the journal at start)."""

    def __init__(self, table: Table) -> None:
        self.table = table


class TableChanged(FieldError):
    """A guarded event was not applied: the table is no longer the one its sender saw
    (:meth:`HubLoop.submit`'s ``unless``); its code and params say how."""


class Submitted:
    """An event whose poster waits for it: ``future`` gets the snapshot after it, or
    :class:`TableChanged` when ``unless(table)`` gave a reason not to apply it."""

    def __init__(self, event: Event, unless: Callable[[Table], FieldError | None] | None) -> None:
        self.event = event
        self.unless = unless
        self.future: Future[Snapshot] = Future()


class Settle:
    """Resolve ``future`` with the snapshot once everything queued before it is
    applied and journaled (:meth:`HubLoop.settled_later`)."""

    def __init__(self) -> None:
        self.future: Future[Snapshot] = Future()

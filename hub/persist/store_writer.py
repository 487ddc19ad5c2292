"""The thread that writes to SQLite for the loop: its fsyncs never hold up a press.

The loop thread only applies events and dispatches effects. An effect that must
reach the store (a round ended on the table) is handed here with :meth:`StoreWriter.
submit`; the writer thread runs it and resolves the returned future. A request that
reads the store after a table change first calls :meth:`StoreWriter.flush`, so it
sees every write the loop has ordered so far.

Without :meth:`start` (tests on a fake clock, the soak on virtual time) each job runs
inline on the submitting thread, in order, as before.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

log = logging.getLogger("hub.persist.store_writer")

Job = Callable[[], Any]
_STOP = None  # a job of None stops the thread


class StoreWriter:
    """One queue, one thread, jobs run in the order submitted; each failure logged."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Job, Future[Any]] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.failures = 0

    def start(self) -> None:
        """Start the writer thread."""
        self._thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Finish every queued job, then stop the thread."""
        if self._thread is not None:
            self._queue.put(_STOP)  # after every job already queued
            self._thread.join(timeout)
            self._thread = None

    def submit(self, job: Job) -> Future[Any]:
        """Run ``job()`` on the writer thread (inline when not started); its future."""
        future: Future[Any] = Future()
        if self._thread is None:
            self._run_one(job, future)
        else:
            self._queue.put((job, future))
        return future

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until every job submitted so far has run (a no-op when not started)."""
        if self._thread is not None:
            self.submit(lambda: None).result(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            self._run_one(*item)

    def _run_one(self, job: Job, future: Future[Any]) -> None:
        try:
            future.set_result(job())
        except Exception as exc:  # one failed write must not stop the ones after it
            self.failures += 1
            log.exception("store write failed")
            future.set_exception(exc)

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
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

log = logging.getLogger("hub.persist.store_writer")

Job = Callable[[], Any]
THREAD_NAME = "store-writer"


def _name_thread() -> None:
    threading.current_thread().name = THREAD_NAME


class StoreWriter:
    """One thread (a one-worker :class:`ThreadPoolExecutor`), jobs run in the order
    submitted; each failure logged and counted, and set on the job's future."""

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self.failures = 0

    def start(self) -> None:
        """Start the writer thread."""
        self._executor = ThreadPoolExecutor(max_workers=1, initializer=_name_thread)

    def stop(self, timeout: float = 5.0) -> None:
        """Finish every queued job (waiting up to ``timeout`` for them), then stop."""
        if self._executor is not None:
            executor, self._executor = self._executor, None
            try:
                executor.submit(lambda: None).result(timeout)  # after every job queued
            except TimeoutError:
                log.error("store writer: jobs still running after %.0f s at stop", timeout)
            executor.shutdown(wait=False)

    def submit(self, job: Job) -> Future[Any]:
        """Run ``job()`` on the writer thread (inline when not started); its future."""
        if self._executor is None:
            future: Future[Any] = Future()
            try:
                future.set_result(self._logged(job))
            except Exception as exc:
                future.set_exception(exc)
            return future
        return self._executor.submit(self._logged, job)

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until every job submitted so far has run (a no-op when not started)."""
        if self._executor is not None:
            self.submit(lambda: None).result(timeout)

    def _logged(self, job: Job) -> Any:
        try:
            return job()
        except Exception:  # one failed write must not stop the ones after it
            self.failures += 1
            log.exception("store write failed")
            raise

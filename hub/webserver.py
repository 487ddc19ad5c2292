"""The web server: waitress, with a worker pool that grows with the load and shrinks back.

Waitress starts every worker thread up front, and an SSE stream holds its worker
for as long as a phone listens, so the hub used to start 80 threads to be ready for
a table of phones. :class:`ElasticDispatcher` starts ``idle`` workers and adds one
whenever a request would otherwise wait, up to ``most``; when requests find more than
``idle`` workers waiting, the extra ones are told to stop. An idle hub with a phone
listening runs a handful of threads, and a burst of phones is still served at once.
"""

from __future__ import annotations

import logging
from typing import Any

from waitress.server import create_server
from waitress.task import ThreadedTaskDispatcher

log = logging.getLogger("hub.webserver")


class ElasticDispatcher(ThreadedTaskDispatcher):
    """A waitress task dispatcher with between ``idle`` and ``most`` worker threads."""

    def __init__(self, idle: int, most: int) -> None:
        super().__init__()
        self.idle = idle
        self.most = most
        self.set_thread_count(idle)

    def add_task(self, task: Any) -> None:
        """Queue ``task``; start a worker if none is free, retire extra idle ones."""
        with self.lock:
            running = len(self.threads) - self.stop_count
            free = running - self.active_count
            waiting = len(self.queue) + 1
            grow = waiting > free and running < self.most
            if free - waiting > self.idle:
                self.stop_count += free - waiting - self.idle
                self.queue_cv.notify_all()
        if grow:
            self.set_thread_count(running + 1)
        super().add_task(task)


def make_server(app: Any, host: str, port: int, most_threads: int, idle_threads: int = 4,
                **options: Any) -> Any:
    """A waitress server for WSGI ``app`` whose pool grows to ``most_threads``."""
    dispatcher = ElasticDispatcher(idle_threads, most_threads)
    return create_server(app, host=host, port=port, threads=most_threads,
                         _dispatcher=dispatcher, **options)

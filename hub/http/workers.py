"""The web server's workers (:class:`ElasticDispatcher`) and the answer the server
writes itself, with no worker, when its early gate refuses a request (:func:`refuse`)."""

from __future__ import annotations

import time
from typing import Any

from waitress.task import ThreadedTaskDispatcher

from hub.http.selector import touch
from web.service import EarlyAnswer

RETIRE_AFTER_S = 5.0  # extra workers are retired only this long after the pool last grew


class ElasticDispatcher(ThreadedTaskDispatcher):
    """A waitress task dispatcher with between ``idle`` and ``most`` worker threads."""

    def __init__(self, idle: int, most: int, retire_after_s: float = RETIRE_AFTER_S) -> None:
        super().__init__()
        self.idle = idle
        self.most = most
        self.retire_after_s = retire_after_s
        self.grown_at = 0.0  # when a worker was last started (monotonic)
        self.set_thread_count(idle)

    def add_task(self, task: Any) -> None:
        """Queue ``task``; start a worker if none is free, retire extra idle ones once
        the pool has not grown for ``retire_after_s`` (a burst every second would
        otherwise start and end threads all the time)."""
        now = time.monotonic()
        with self.lock:
            running = len(self.threads) - self.stop_count
            free = running - self.active_count
            waiting = len(self.queue) + 1
            grow = waiting > free and running < self.most
            if grow:
                self.grown_at = now
            elif free - waiting > self.idle and now - self.grown_at >= self.retire_after_s:
                self.stop_count += free - waiting - self.idle
                self.queue_cv.notify_all()
        if grow:
            self.set_thread_count(running + 1)
        super().add_task(task)


def refuse(channel: Any, request: Any, answer: EarlyAnswer) -> None:
    """Answer the head request with ``answer`` and drop it (``requests_lock`` held); a
    request that asked to close (or HTTP/1.0 without keep-alive) closes the connection."""
    status, headers, body = answer
    connection = request.headers.get("CONNECTION", "").lower()
    close = connection == "close" if request.version == "1.1" else connection != "keep-alive"
    lines = [f"HTTP/1.1 {status}", *(f"{name}: {value}" for name, value in headers)]
    lines += [f"Content-Length: {len(body)}", "Connection: close" if close else ""]
    data = ("\r\n".join(line for line in lines if line) + "\r\n\r\n").encode("latin-1") + body
    with channel.outbuf_lock:
        channel.outbufs[-1].append(data)
        channel.current_outbuf_count += len(data)
        channel.total_outbufs_len += len(data)
    request.close()
    channel.requests.pop(0)
    if close:
        channel.close_when_flushed = True
        for waiting in channel.requests:
            waiting.close()
        channel.requests = []
    touch(channel)  # the selector loop writes it at its next round

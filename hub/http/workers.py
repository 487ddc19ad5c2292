"""The web server's workers (:class:`ElasticDispatcher`) and the answers the server
writes without one: a refusal of its early gate (:func:`refuse`), and the head and body
of an answer handed over to the live-stream thread (:func:`head`, :func:`render`)."""

from __future__ import annotations

import json
import logging
import random
import time
from concurrent.futures import Future
from typing import Any

from waitress.task import ThreadedTaskDispatcher

from hub.http.selector import touch
from web.service import EarlyAnswer

# Its own generator: the process-wide one is the tests' and the libraries' (a
# background thread drawing from it shows up in a hypothesis test as a flaky strategy).
_SPREAD = random.Random()
log = logging.getLogger("hub.http.server")

RETIRE_AFTER_S = 5.0  # extra workers are retired only this long after the pool last grew
PAUSE_S = 5.0  # a connection refused by the gate is not read for at most this long


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
    request that asked to close (or HTTP/1.0 without keep-alive) closes the connection.
    A kept-alive one is not read again until its ``Retry-After`` has passed (at most
    :data:`PAUSE_S` the first time, all of it the next): a client that floods on one
    connection waits, at no cost."""
    status, headers, body = answer
    retry = float(next((v for name, v in headers if name.lower() == "retry-after"), "0"))
    # Spread over the second half of the pause: a flood refused at once does not come
    # back at once, in a burst that would hold the GIL from the table's updates. Asked
    # again straight after a pause, the connection waits out the whole Retry-After.
    channel.refused = getattr(channel, "refused", 0) + 1
    pause = retry if channel.refused > 1 else min(retry, PAUSE_S)
    channel.paused_until = time.monotonic() + pause * _SPREAD.uniform(0.5, 1.0)
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


def head(version: str, status: str, headers: list[tuple[str, str]], length: int | None) -> bytes:
    """The answer's status line and headers, ending the connection after the body."""
    lines = [f"HTTP/{version} {status}"]
    lines += [
        f"{name}: {value}"
        for name, value in headers
        if name.lower() not in ("content-length", "connection")
    ]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def render(done: Future[Any], version: str, status: str, headers: list[tuple[str, str]]) -> bytes:
    """A waiting answer once its future resolved: the JSON of its result (or a 500)."""
    try:
        body = json.dumps(done.result(), separators=(",", ":")).encode() + b"\n"
    except Exception:
        log.exception("an answer that waited for the hub failed")
        status = "500 Internal Server Error"
        body = json.dumps({"error": "the hub failed on this request (see its log)"}).encode()
    return head(version, status, headers, len(body)) + body

"""The web server's worker pool: a few threads idle, more while phones listen, and back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from hub.webserver import ElasticDispatcher


def eventually(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``predicate`` (the pool's workers change state on their own threads)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


class Task:
    """A waitress task that holds its worker until released (like an SSE stream)."""

    def __init__(self, release: threading.Event, started: threading.Semaphore) -> None:
        self.release = release
        self.started = started

    def service(self) -> None:
        self.started.release()
        self.release.wait(10)

    def cancel(self) -> None:
        self.release.set()


def test_the_pool_grows_for_held_streams_and_shrinks_back():
    pool = ElasticDispatcher(idle=2, most=8)
    try:
        assert len(pool.threads) == 2
        release, started = threading.Event(), threading.Semaphore(0)
        for _ in range(6):
            pool.add_task(Task(release, started))
        for _ in range(6):
            assert started.acquire(timeout=5)  # all six served at once, none queued
        assert 6 <= len(pool.threads) <= 8
        release.set()
        assert eventually(lambda: pool.active_count == 0)  # streams ended: workers idle
        done, quick = threading.Event(), threading.Semaphore(0)
        done.set()
        pool.add_task(Task(done, quick))  # the next request retires the extra workers
        assert quick.acquire(timeout=5)
        assert eventually(lambda: len(pool.threads) == 3)
    finally:
        pool.shutdown(timeout=5)


def test_the_pool_never_exceeds_its_most():
    pool = ElasticDispatcher(idle=1, most=3)
    release, started = threading.Event(), threading.Semaphore(0)
    try:
        for _ in range(5):
            pool.add_task(Task(release, started))
        for _ in range(3):
            assert started.acquire(timeout=5)
        assert len(pool.threads) == 3 and len(pool.queue) == 2
    finally:
        release.set()
        pool.shutdown(timeout=5)

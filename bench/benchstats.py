"""What the bench scripts share: one definition of a percentile, so their figures agree,
one hub whose sound port stamps each sound's arrival, and the floor every press is
compared with (a bare hand-off from one thread to another)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

from gpiozero.pins.mock import MockFactory

from hub.app import Hub
from hub.cli.run import settle_heap
from hub.runtime.config import load
from tablesim.virtual import RecordingPlayer


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def stamping_hub(
    backend: str, state_dir: str, **sections: dict[str, Any]
) -> tuple[Hub, threading.Event, list[int]]:
    """A started hub on gpiozero's mock pins with a 1 ms debounce (so presses take
    milliseconds, on the same path), whose sound port stamps each sound: on arrival
    ``stamp[0]`` is set to ``perf_counter_ns()``, then ``arrived``. ``sections`` are
    more config sections (``serial={"port": ...}``)."""
    sound = RecordingPlayer()
    arrived = threading.Event()
    stamp = [0]

    def heard(name: str) -> None:
        stamp[0] = time.perf_counter_ns()
        arrived.set()

    sound.listeners.append(heard)
    config = load(
        None,
        {
            "hub": {"backend": backend, "state_dir": state_dir},
            "gestures": {"bounce_ms": 1},
            **sections,
        },
    )
    hub = Hub(config, pin_factory=MockFactory(), sound=sound)
    hub.start()
    settle_heap()  # as ``mtrain-hub run`` does once it listens
    return hub, arrived, stamp


def floor_handoffs() -> Iterator[float]:
    """Microseconds for a bare cross-thread queue.Queue hand-off, one per call."""
    q: queue.Queue[int | None] = queue.Queue()
    arrived = threading.Event()
    stamp = [0]

    def consumer() -> None:
        while True:
            try:
                item = q.get(timeout=3.0)  # the hub loop also waits with a timeout
            except queue.Empty:
                continue
            if item is None:
                return
            stamp[0] = time.perf_counter_ns()
            arrived.set()

    thread = threading.Thread(target=consumer)
    thread.start()
    try:
        while True:
            time.sleep(0.0015)
            arrived.clear()
            t0 = time.perf_counter_ns()
            q.put(t0)
            arrived.wait(5)
            yield (stamp[0] - t0) / 1000
            time.sleep(0.0015)
    finally:
        q.put(None)
        thread.join()

"""Helpers shared by the tests: drive the pure core with timestamps, and wait for what
other threads do (``eventually``, ``until``: the one place a test polls)."""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

from hub.core import apply, new_table
from hub.core.effects import LogEntry, PlaySound
from hub.core.events import ButtonChanged, ClockTicked, GameStarted, MarkerChanged
from hub.core.state import Timings

T = TypeVar("T")
POLL_S = 0.005  # how often eventually() asks again


class CoreDriver:
    """Drives the pure core with raw edges on a virtual timeline and keeps the effects."""

    def __init__(self, table=None):
        self.table = table or new_table()
        self.now = 100.0
        self.effects = []

    def send(self, event):
        self.table, effects = apply(self.table, event)
        self.effects += effects
        return effects

    def advance(self, seconds):
        self.now += seconds
        return self.send(ClockTicked(self.now))

    def start(
        self,
        players,
        rules="consensus",
        seats=None,
        mexican_slot=None,
        first=None,
        set_max=12,
        rounds=None,
        options=(),
    ):
        seats = tuple(seats or range(1, len(players) + 1))
        return self.send(
            GameStarted(
                game_id=1,
                rules=rules,
                players=tuple(players),
                seats=seats,
                mexican_slot=mexican_slot,
                set_max=set_max,
                rounds=rounds or set_max + 1,
                at=self.now,
                first=first,
                options=tuple(options),
            )
        )

    def press(self, slot, hold=0.15):
        self.send(ButtonChanged(slot, True, self.now))
        self.now += hold
        out = self.send(ButtonChanged(slot, False, self.now))
        self.advance(0.2)
        return out

    def tap(self, slot):
        return self.press(slot, 0.15)

    def hold(self, slot):
        return self.press(slot, 1.5)

    def long_hold(self, slot):
        return self.press(slot, Timings.long_hold + 0.5)

    def marker(self, slot, present, settle=0.2):
        self.send(MarkerChanged(slot, present, self.now))
        return self.advance(settle)  # the marker is taken once its flicker window ends

    def sounds(self):
        return [e.name for e in self.effects if isinstance(e, PlaySound)]

    def logs(self, kind=None):
        return [e for e in self.effects if isinstance(e, LogEntry) and kind in (None, e.kind)]

    @property
    def public(self):
        return {s for s in range(1, 9) if self.table.public(s)}


def eventually(
    predicate: Callable[[], T],
    timeout: float = 10.0,
    *,
    every: float = POLL_S,
    condition: threading.Condition | None = None,
    pause: Callable[[float], None] = time.sleep,
) -> T | Literal[False]:
    """Wait for ``predicate()`` to be true, which other threads (or processes) make it;
    its value, or False after ``timeout`` s (so ``assert eventually(...)`` reads well).

    The tests' one polling loop: ``predicate`` is asked again ``every`` s (5 ms unless a
    predicate that acts, such as one that presses a button, needs a slower pace) or,
    given a ``condition`` (held while asking), each time another thread notifies it
    (and at least every 0.2 s). ``pause(seconds)`` waits between two asks: a browser
    test waiting on the hub for what a page's request does passes
    ``tests.browser.conftest.browsing(page)``, since sync Playwright lets a routed request
    through only while the test is inside a Playwright call (``time.sleep`` holds it).
    """
    deadline = time.monotonic() + timeout
    if condition is None:
        while not (value := predicate()):
            if time.monotonic() > deadline:
                return False
            pause(every)
        return value
    with condition:
        while not (value := predicate()):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            condition.wait(min(left, max(every, 0.2)))  # notified, or asked anyway
        return value


def until(
    predicate: Callable[[], T],
    what: str | Callable[[], str],
    timeout: float = 10.0,
    *,
    every: float = POLL_S,
    condition: threading.Condition | None = None,
) -> T:
    """:func:`eventually`, failing the test after ``timeout`` s with what was awaited
    (``what``, or what ``what()`` says then)."""
    value = eventually(predicate, timeout, every=every, condition=condition)
    if not value:
        said = what if isinstance(what, str) else what()
        raise AssertionError(f"waited {timeout} s for {said}, in vain")
    return value


# The long runs' counts (API fuzz, kills, power cuts, the in-suite soak): one knob.
SCALE_VARIABLE = "MTRAIN_TEST_SCALE"


def long_run_scale(environ: Mapping[str, str] = os.environ) -> float:
    """``MTRAIN_TEST_SCALE``: unset (or 0) in an ordinary run; ``make torture`` sets 1 (the
    long counts), and 2 or more multiplies them."""
    raw = environ.get(SCALE_VARIABLE, "").strip() or "0"
    try:
        scale = float(raw)
    except ValueError:
        scale = -1.0
    if not 0 <= scale <= 1000 or scale != scale:
        raise ValueError(f"{SCALE_VARIABLE}={raw!r}: expected a number from 0 to 1000")
    return scale


def scaled(quick: int, long: int, environ: Mapping[str, str] = os.environ) -> int:
    """How many of something a long-running test does: ``quick`` in an ordinary run (enough
    to take every path once), ``long`` times ``MTRAIN_TEST_SCALE`` when it is set."""
    scale = long_run_scale(environ)
    return quick if scale == 0 else max(quick, round(long * scale))


def made_once(tmp_path_factory: Any, name: str, make: Callable[[Path], None]) -> Path:
    """A folder that ``make(folder)`` fills once per test run, whichever process asks for it
    first (with pytest-xdist the other workers wait for it, then share it): for what is
    costly to make and only read afterwards (an install, generated files)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's own folder, above each worker's
    folder, done = root / f"made-{name}", root / f"made-{name}.done"
    with open(root / f"made-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a try that failed
            folder.mkdir()
            make(folder)
            done.touch()
    return folder

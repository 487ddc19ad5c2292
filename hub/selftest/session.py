"""The self-test on the page: the running hub walks a person through its parts.

While a walk-through runs, the hub's input edges go to it instead of the table (a press
during the test plays no turn), its light steps show on the ring in place of the
table's lights, and its sounds play on the hub's speaker. When it ends (done or
stopped, or a game started meanwhile: its first edge ends the test and goes to the
table) the ring shows the table again and the markers are read afresh, so the table
knows where every marker is. It starts only while no game is unfinished: a test must
not take the hub from a game being played (DESIGN.md's trust model: anyone may do
what starting a game needs, nothing more).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from hub.core.events import ButtonChanged, Event, MarkerChanged
from hub.selftest.walkthrough import Walkthrough, Wiring, plan, ring_frame

ACTIONS = ("start", "yes", "no", "skip", "stop")


class SelftestRefused(Exception):
    """An action the self-test cannot take now; ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class SelftestSession:
    """At most one walk-through of the running hub, driven from the page.

    ``show(pixels | None)`` puts a frame on the ring (None: the table's lights again),
    ``play(name)`` plays a sound, ``running_game()`` says whether a game is unfinished,
    ``reread_markers()`` tells the table to read the markers afresh; ``voice()`` says whether
    a walk-through starting now ends with the voice's step (``play("say")`` speaks).
    """

    def __init__(
        self,
        wiring: Wiring,
        *,
        show: Callable[[Any], None],
        play: Callable[[str], None],
        running_game: Callable[[], int | None],
        reread_markers: Callable[[], None],
        voice: Callable[[], bool] = lambda: False,
    ) -> None:
        self._wiring = wiring
        self._voice = voice
        self._show = show
        self._play = play
        self._running_game = running_game
        self._reread = reread_markers
        self._walk: Walkthrough | None = None
        self._active = False
        self._lock = threading.RLock()

    def take(self, event: Event) -> bool:
        """An input edge: True when the self-test took it (the table must not see it)."""
        if not self._active or not isinstance(event, ButtonChanged | MarkerChanged):
            return False
        with self._lock:
            if self._walk is None or not self._active:
                return False
            if self._running_game() is not None:  # a game started: the table's again
                self._end()
                return False
            self._walk.feed(event)
            self._end_if_done()
            return True

    def status(self) -> dict[str, Any]:
        """``running``, the step waiting and the results (of the last run, when over)."""
        with self._lock:
            if self._walk is None:
                return {
                    "running": False,
                    "step": None,
                    "steps": 0,
                    "done": False,
                    "passed": False,
                    "results": [],
                }
            return {"running": self._active, **self._walk.status()}

    def act(self, action: str) -> dict[str, Any]:
        """``start``, ``yes``/``no`` (the light or sound step), ``skip``, ``stop``."""
        with self._lock:
            if action == "start":
                self._start()
            elif not self._active or self._walk is None:
                raise SelftestRefused(409, "action: no self-test is running (start one)")
            elif action in ("yes", "no"):
                step = self._walk.current()
                if step is None or not step.needs_answer:
                    raise SelftestRefused(
                        409, "action: this step waits for the hub, not an answer (or skip it)"
                    )
                self._walk.answer(action == "yes")
            elif action == "skip":
                self._walk.skip()
            else:  # stop: what was done stays in the results
                self._end()
            self._end_if_done()
            return self.status()

    def _start(self) -> None:
        if self._active:
            raise SelftestRefused(409, "action: a self-test is running already")
        if self._running_game() is not None:
            raise SelftestRefused(
                409,
                "action: a game is being played: finish it (or end "
                "it) before the self-test takes the hub",
            )
        self._active = True
        self._walk = Walkthrough(plan(self._wiring, voice=self._voice()), self._light, self._play)

    def _light(self, slot: int | None) -> None:
        self._show(ring_frame(slot, self._wiring.pixels))

    def _end_if_done(self) -> None:
        if self._active and self._walk is not None and self._walk.done:
            self._end()

    def _end(self) -> None:
        self._active = False
        self._show(None)
        self._reread()

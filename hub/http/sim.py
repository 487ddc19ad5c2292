"""The simulated pins as the web layer sees them: a part of
:class:`hub.http.adapter.HubWebService` (its base class). A press is made now and
released by a timer; the answer is a future of the snapshot once the loop has handled
the release, so no request thread waits through the hold.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from contextlib import suppress
from typing import Any, Protocol

from hub.core.events import CENTRE
from hub.core.state import Table
from hub.http.refusals import not_simulated
from scorer.errors import Refused
from scorer.profiles import SLOTS

SETTLE_S = 0.005  # beyond the debounce window, so the settled snapshot shows the press
LOOP_TIMEOUT_S = 5.0  # a simulated press the loop has not answered by then fails


def _pass_on(source: Future[dict[str, Any]], target: Future[dict[str, Any]]) -> None:
    """``source``'s outcome to ``target``, unless ``target`` has given up already."""
    with suppress(InvalidStateError):
        error = source.exception()
        target.set_result(source.result()) if error is None else target.set_exception(error)


def _give_up(target: Future[dict[str, Any]]) -> None:
    """The loop has not answered in ``LOOP_TIMEOUT_S``: the request gets an error."""
    with suppress(InvalidStateError):
        target.set_exception(TimeoutError("hub loop did not answer"))


class SimulatedPins(Protocol):
    """The simulated pins (:class:`hub.io.pins.SimPins`) a request drives."""

    def button(self, slot: int, pressed: bool, at: float | None = None) -> None:
        """Press or release a button (the centre's number is ``CENTRE``), the edge
        stamped ``at`` (default: now)."""

    def now(self) -> float:
        """What an edge made now is stamped."""

    def marker(self, slot: int, present: bool) -> None:
        """Put a marker on a slot's sensor or take it off."""


class Later(Protocol):
    """Runs a call later (:class:`hub.runtime.timers.Timers`); the handle cancels it."""

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> Any:
        """Run ``fn()`` in ``delay_s`` seconds; returns a handle with ``cancel()``."""


class WebLoop(Protocol):
    """What a request needs of the hub loop (:class:`hub.runtime.loop.HubLoop`)."""

    snapshot: dict[str, Any]

    @property
    def table(self) -> Table:
        """The table now (immutable)."""

    def settled(self, timeout: float = 5.0) -> dict[str, Any]:
        """The snapshot once everything queued so far is applied and journaled."""

    def settled_later(self) -> Future[dict[str, Any]]:
        """As :meth:`settled`, waited for by no thread."""


class SimRequests:
    """The simulated presses and markers of :class:`hub.http.adapter.HubWebService`:
    its ``_sim_pins`` (None off the sim backend, ``_sim_backend`` then names it),
    ``_loop``, ``_sleep``, ``_timers`` and ``_times_out`` (a press the loop leaves
    unanswered fails)."""

    _sim_pins: SimulatedPins | None
    _sim_backend: str
    _loop: WebLoop
    _sleep: Callable[[float], None]
    _timers: Later
    _times_out: bool

    def _pins(self) -> SimulatedPins:
        """The simulated pins; 404 off the sim backend."""
        if self._sim_pins is None:
            raise not_simulated(self._sim_backend)
        return self._sim_pins

    def _sim(self, slot: int) -> SimulatedPins:
        sim = self._pins()
        if slot not in SLOTS:
            why = f"slot {slot}: there are slots {SLOTS[0]} to {SLOTS[-1]}"
            raise Refused(404, why, code="no_such_slot", slot=slot, last=SLOTS[-1])
        return sim

    def sim_press_later(
        self, slot: int, hold_s: float, centre: bool = False
    ) -> Future[dict[str, Any]]:
        """Press the simulated button now (``centre``: the centre button with it, a
        claim's chord); a timer releases it after ``hold_s`` and, once the debounce
        window has closed, resolves the future with the snapshot."""
        return self._press(self._sim(slot), slot, hold_s, (CENTRE,) if centre else ())

    def sim_marker(self, slot: int, present: bool) -> dict[str, Any]:
        """Move the simulated marker; the snapshot once its flicker window is over."""
        self._sim(slot).marker(slot, present)
        self._sleep(self._loop.table.timings.flicker + SETTLE_S)
        return self._loop.settled()

    def sim_centre_press_later(self, hold_s: float) -> Future[dict[str, Any]]:
        """The centre button, as :meth:`sim_press_later`."""
        return self._press(self._pins(), CENTRE, hold_s)

    def _press(
        self, sim: SimulatedPins, slot: int, hold_s: float, with_: tuple[int, ...] = ()
    ) -> Future[dict[str, Any]]:
        """Press now (and the buttons ``with_`` together), release in ``hold_s``; the
        future of the snapshot once the loop has handled the release and the journal
        has it. No thread waits for it: the timer
        thread only moves the pin and asks the loop (``settled_later``); the answer
        cancels the give-up timer."""
        done: Future[dict[str, Any]] = Future()
        settle_s = self._loop.table.timings.bounce + SETTLE_S

        def settled() -> None:
            # Armed before the loop is asked: an answer that comes at once can cancel it.
            give_up = (
                self._timers.call_later(LOOP_TIMEOUT_S, lambda: _give_up(done))
                if self._times_out
                else None
            )  # a loop that never answers: say so

            def answered(source: Future[dict[str, Any]]) -> None:
                if give_up is not None:  # not left in the timers' heap for 5 s
                    give_up.cancel()
                _pass_on(source, done)

            self._loop.settled_later().add_done_callback(answered)

        def release() -> None:
            # Stamped when the finger meant it, however late this timer runs.
            for button in (slot, *with_):
                sim.button(button, False, at=pressed_at + hold_s)
            self._timers.call_later(settle_s, settled)

        pressed_at = sim.now()
        for button in (*with_, slot):
            sim.button(button, True, at=pressed_at)
        self._timers.call_later(hold_s, release)
        return done

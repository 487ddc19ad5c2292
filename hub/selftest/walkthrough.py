"""The bring-up walk-through of ``mtrain-hub selftest``: every part of the hub, one at a time.

A :class:`Walkthrough` asks for each slot's button and the centre button, each marker
on and off, lights each slot and plays each sound; it listens to the hub's raw input
events (:class:`~hub.core.events.ButtonChanged`, :class:`~hub.core.events.MarkerChanged`)
and to the person's answers, and ends with a pass/fail table naming the pin of every
part. It owns no thread and no device: the terminal (:mod:`hub.cli.selftest`) or the
running hub (the page) feeds it events, answers and timeouts, and hands in what lights
a slot and what plays a sound. Methods lock, so input callbacks may feed it directly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hub.core.events import ButtonChanged, Event, MarkerChanged
from hub.selftest.steps import INPUT_KINDS, Step, slot_name


@dataclass(frozen=True)
class Result:
    """How a step went: ``passed`` and what was seen (or not), in English (``detail``,
    for the terminal) and as the page words it in any language: ``outcome`` (one of
    :data:`OUTCOMES`), ``seconds`` (a timeout's) and ``strays``, the other inputs that
    answered instead (``("button" | "sensor", slot)``)."""

    step: Step
    passed: bool
    detail: str
    outcome: str = ""
    seconds: float | None = None
    strays: tuple[tuple[str, int], ...] = ()


OUTCOMES = (
    "pressed",
    "seen",
    "gone",
    "confirmed",
    "not_seen",
    "not_heard",
    "timeout_button",
    "timeout_marker_on",
    "timeout_marker_off",
    "timeout_answer",
    "skipped",
    "stuck_button",
    "stuck_marker_on",
    "stuck_marker_off",
)
TIMEOUTS = {
    "button": "timeout_button",
    "marker-on": "timeout_marker_on",
    "marker-off": "timeout_marker_off",
}

# What a step's input reads when it was active before the test began and never moved.
STUCK = {
    "button": "reads pressed since the start, before any press: stuck, or shorted to ground",
    "marker-on": "reads a marker since the start: one left on (take it off), or a stuck sensor",
    "marker-off": "reads a marker since the start, never a change: a stuck sensor",
}


def input_of(step: Step) -> tuple[str, int] | None:
    """The input a step waits on: ``("button", slot)`` or ``("marker", slot)``."""
    if step.kind == "button":
        return ("button", step.slot)
    if step.kind.startswith("marker"):
        return ("marker", step.slot)
    return None


class Walkthrough:
    """The steps, where we are, and what happened; fed events, answers and timeouts.

    ``light(slot)`` and ``play(name)`` are called when a light or sound step begins;
    ``light(None)`` puts the light out when it ends. ``stuck`` are the inputs that read
    active before the test began (:meth:`Parts.active_inputs`): while no edge has come
    from one, its steps fail at once, saying so, instead of waiting out their time.
    """

    def __init__(
        self,
        steps: list[Step],
        light: Callable[[int | None], None],
        play: Callable[[str], None],
        stuck: list[tuple[str, int]] | tuple[tuple[str, int], ...] = (),
    ) -> None:
        self.steps = steps
        self.results: list[Result] = []
        self._light = light
        self._play = play
        self._stuck = set(stuck)
        self._pressed = False
        self._strays: list[str] = []
        self._stray_inputs: list[tuple[str, int]] = []
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        with self._lock:  # a first step stuck from the start finishes (and notifies) here
            self._begin()

    # --- where we are -----------------------------------------------------------------

    def current(self) -> Step | None:
        """The step waiting for the person, or None when every step is done."""
        with self._lock:
            index = len(self.results)
            return self.steps[index] if index < len(self.steps) else None

    @property
    def done(self) -> bool:
        """Every step has a result."""
        return self.current() is None

    def wait_past(self, index: int, timeout: float) -> bool:
        """Block until step ``index`` (0-based) has its result, or ``timeout`` s pass."""
        with self._changed:
            return self._changed.wait_for(lambda: len(self.results) > index, timeout)

    # --- what happens -------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """A raw input edge from the hub's pins (or the Pico)."""
        with self._lock:
            if isinstance(event, ButtonChanged):
                self._stuck.discard(("button", event.slot))
            elif isinstance(event, MarkerChanged):
                self._stuck.discard(("marker", event.slot))
            step = self.current()
            if step is None or step.kind not in INPUT_KINDS:
                return
            if isinstance(event, ButtonChanged):
                self._button(step, event)
            elif isinstance(event, MarkerChanged):
                self._marker(step, event)

    def _button(self, step: Step, event: ButtonChanged) -> None:
        if step.kind == "button" and event.slot == step.slot:
            if event.pressed:
                self._pressed = True
            elif self._pressed:
                self._finish(True, "pressed and released", "pressed")
        elif event.pressed:
            self._stray("button", event.slot, f"{slot_name(event.slot)}'s button answered")

    def _marker(self, step: Step, event: MarkerChanged) -> None:
        wanted = step.kind == "marker-on"
        if step.kind.startswith("marker") and event.slot == step.slot:
            if event.present == wanted:
                self._finish(True, "seen" if wanted else "gone", "seen" if wanted else "gone")
        elif event.present:
            self._stray("sensor", event.slot, f"slot {event.slot}'s sensor answered")

    def _stray(self, kind: str, slot: int, what: str) -> None:
        if what not in self._strays:
            self._strays.append(what)
            self._stray_inputs.append((kind, slot))

    def number(self) -> int:
        """The number of the step waiting (one past the last when all are done)."""
        with self._lock:
            return len(self.results) + 1

    def answer(self, ok: bool) -> None:
        """The person's answer to a light or sound step."""
        with self._lock:
            step = self.current()
            if step is not None and step.needs_answer:
                said = "confirmed" if ok else "not seen" if step.kind == "light" else "not heard"
                self._finish(ok, said, said.replace(" ", "_"))

    def timeout(self, seconds: float) -> None:
        """Nothing came within ``seconds``: the current step fails, saying what did."""
        with self._lock:
            step = self.current()
            if step is None:
                return
            what = {
                "button": "no press",
                "marker-on": "no marker",
                "marker-off": "the marker still reads",
            }.get(step.kind, "no answer")
            outcome = TIMEOUTS.get(step.kind, "timeout_answer")
            self._finish(False, f"{what} within {seconds:g} s", outcome, seconds)

    def skip(self) -> None:
        """The person gives up on the current step: it fails as skipped."""
        with self._lock:
            if self.current() is not None:
                self._finish(False, "skipped", "skipped")

    def _finish(
        self, passed: bool, detail: str, outcome: str, seconds: float | None = None
    ) -> None:
        step = self.current()
        assert step is not None
        if step.kind == "light":
            self._light(None)
        strays = tuple(self._stray_inputs) if not passed else ()
        if strays:
            detail += "; instead " + ", ".join(self._strays) + " (wires swapped?)"
        self.results.append(Result(step, passed, detail, outcome, seconds, strays))
        self._pressed = False
        self._strays = []
        self._stray_inputs = []
        self._begin()
        self._changed.notify_all()

    def _begin(self) -> None:
        step = self.current()
        if step is None:
            return
        if input_of(step) in self._stuck:
            self._finish(False, STUCK[step.kind], "stuck_" + step.kind.replace("-", "_"))
            return
        if step.kind == "light":
            self._light(step.slot)
        elif step.kind == "sound":
            self._play(step.sound)

    # --- what came of it ----------------------------------------------------------------

    def passed(self) -> bool:
        """Every step done and passed."""
        with self._lock:
            return self.done and all(r.passed for r in self.results)

    def status(self) -> dict[str, Any]:
        """For the page: the step waiting (with its prompt) and the results so far."""
        with self._lock:
            step = self.current()
            return {
                "step": None
                if step is None
                else {
                    "kind": step.kind,
                    "slot": step.slot,
                    "sound": step.sound,
                    "part": step.part,
                    "pin": step.pin,
                    "prompt": step.prompt,
                    "answer": step.needs_answer,
                    "number": self.number(),
                },
                "steps": len(self.steps),
                "done": step is None,
                "passed": self.passed(),
                "results": [
                    {
                        "kind": r.step.kind,
                        "slot": r.step.slot,
                        "sound": r.step.sound,
                        "part": r.step.part,
                        "pin": r.step.pin,
                        "passed": r.passed,
                        "detail": r.detail,
                        "outcome": r.outcome,
                        "seconds": r.seconds,
                        "strays": [{"input": kind, "slot": slot} for kind, slot in r.strays],
                    }
                    for r in self.results
                ],
            }


def table(results: list[Result]) -> str:
    """The pass/fail table for the terminal: part, pin, PASS/FAIL, what was seen."""
    rows = [("part", "pin", "result", "detail")]
    rows += [(r.step.part, r.step.pin, "PASS" if r.passed else "FAIL", r.detail) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(widths[i]) if i < 3 else cell for i, cell in enumerate(row)).rstrip()
        for row in rows
    ]
    failed = sum(1 for r in results if not r.passed)
    lines.append(f"{len(results) - failed} passed, {failed} failed")
    return "\n".join(lines)

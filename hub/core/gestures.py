"""Debouncing and gesture classification, on timestamps alone.

Buttons use leading-edge debounce: the first edge counts at once (a tap reaches
the speaker without waiting), edges within ``bounce`` after it are bounce, and the
level is reconciled when the window ends. Markers must hold a new level for
``flicker`` before the train's public state follows. gpiozero's mock ignores
``bounce_time``, so all of this lives here and is tested with timestamps.
"""

from __future__ import annotations

from hub.core.events import Gesture, Held, LongHeld, MarkerPlaced, MarkerRemoved, Tapped
from hub.core.state import ButtonInput, MarkerInput, Timings, evolve


def button_edge(
    slot: int, inp: ButtonInput, pressed: bool, at: float, timings: Timings
) -> tuple[ButtonInput, list[Gesture]]:
    """Take a raw button edge; return the new input state and any gesture."""
    if inp.raw == pressed:
        return inp, []
    inp = evolve(inp, raw=pressed)
    if inp.settle_at is not None and at < inp.settle_at:
        return inp, []
    return _accept(slot, inp, pressed, at, timings)


def _accept(
    slot: int, inp: ButtonInput, pressed: bool, at: float, timings: Timings
) -> tuple[ButtonInput, list[Gesture]]:
    if pressed == inp.pressed:
        return evolve(inp, settle_at=None), []
    settle = at + timings.bounce
    if pressed:
        inp = evolve(
            inp,
            pressed=True,
            since=at,
            settle_at=settle,
            long_at=at + timings.long_hold,
            consumed=False,
        )
        return inp, []
    held = at - inp.since
    inp = evolve(inp, pressed=False, settle_at=settle, long_at=None)
    if inp.consumed:
        return evolve(inp, consumed=False), []
    if held < timings.tap_max:
        return inp, [Tapped(slot, at)]
    if held < timings.long_hold:
        return inp, [Held(slot, held, at)]
    return inp, [LongHeld(slot, at)]


def button_lost(inp: ButtonInput) -> ButtonInput:
    """Forget a press whose end nobody saw: released, with no gesture and no deadline."""
    if not (inp.raw or inp.pressed):
        return inp
    return ButtonInput()


def button_tick(
    slot: int, inp: ButtonInput, at: float, timings: Timings
) -> tuple[ButtonInput, list[Gesture]]:
    """Fire the button's due deadlines (end of bounce window, long hold) up to ``at``."""
    gestures: list[Gesture] = []
    if inp.long_at is not None and inp.long_at <= at and inp.pressed and not inp.consumed:
        gestures.append(LongHeld(slot, inp.long_at))
        inp = evolve(inp, long_at=None, consumed=True)
    if inp.settle_at is not None and inp.settle_at <= at:
        settle = inp.settle_at
        inp, more = _accept(slot, evolve(inp, settle_at=None), inp.raw, settle, timings)
        gestures.extend(more)
    return inp, gestures


def button_deadline(inp: ButtonInput) -> float | None:
    """The next time this button needs a tick, or None."""
    settle, long_at = inp.settle_at, None if inp.consumed else inp.long_at
    if settle is None:
        return long_at
    return settle if long_at is None or settle < long_at else long_at


def marker_edge(inp: MarkerInput, present: bool, at: float) -> MarkerInput:
    """Take a raw marker sensor edge; the public state waits for the flicker window."""
    if inp.raw == present:
        return inp
    return evolve(inp, raw=present, raw_at=at)


def marker_tick(
    slot: int, inp: MarkerInput, at: float, timings: Timings
) -> tuple[MarkerInput, list[Gesture]]:
    """Accept a marker level that has been stable for the flicker window by ``at``."""
    due = marker_deadline(inp, timings)
    if due is None or due > at:
        return inp, []
    inp = evolve(inp, present=inp.raw)
    gesture: Gesture = MarkerPlaced(slot, due) if inp.raw else MarkerRemoved(slot, due)
    return inp, [gesture]


def marker_deadline(inp: MarkerInput, timings: Timings) -> float | None:
    """When the pending marker level becomes accepted, or None if nothing is pending."""
    if inp.raw == inp.present:
        return None
    return inp.raw_at + timings.flicker

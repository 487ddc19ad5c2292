"""Carries the core's effects to the adapters; one broken adapter never stops the hub."""

from __future__ import annotations

import logging
import time

from hub.core.effects import Effect, LogEntry, PlaySound, RoundEnded

log = logging.getLogger("hub.dispatch")


class EffectDispatcher:
    """Sends each effect to its adapter, sounds first (they are the hot path)."""

    def __init__(self, sound, leds, eventlog, broadcaster, on_round_ended=None) -> None:
        self.sound = sound
        self.leds = leds
        self.eventlog = eventlog
        self.broadcaster = broadcaster
        self.on_round_ended = on_round_ended
        self.failures = 0
        self.turn_chime = True

    def __call__(self, effects: list[Effect]) -> None:
        """Carry out ``effects``: sounds, then everything else in order."""
        effects = [e for e in effects if self._wanted(e)]
        sounds = [e for e in effects if isinstance(e, PlaySound)]
        for effect in sounds:
            self._safely(self.sound.play, effect.name)
        if sounds:
            # Let the sound writer thread take the GIL now: otherwise it waits for the
            # rest of this dispatch (log, SSE, snapshot), up to a 5 ms switch interval.
            time.sleep(0)
        for effect in effects:
            self._safely(self._one, effect)
        self._safely(self.leds.take, effects)  # the ring: a refused press flashes

    def _wanted(self, effect: Effect) -> bool:
        """False for the turn chime when the table switched it off."""
        return self.turn_chime or not (isinstance(effect, PlaySound) and effect.name == "turn")

    def _safely(self, fn, *args) -> None:
        try:
            fn(*args)
        except Exception:
            self.failures += 1
            log.exception("effect dispatch failed: %s%r", getattr(fn, "__name__", fn), args)

    def _one(self, effect: Effect) -> None:
        if isinstance(effect, PlaySound):
            entry = self.eventlog.append("sound", name=effect.name)
            self.broadcaster.publish("sound", {"name": effect.name})
            self.broadcaster.publish("event", entry)
        elif isinstance(effect, LogEntry):
            entry = self.eventlog.append(effect.kind, effect.at, **dict(effect.fields))
            self.broadcaster.publish("event", entry)
        elif isinstance(effect, RoundEnded) and self.on_round_ended is not None:
            self.on_round_ended(effect)

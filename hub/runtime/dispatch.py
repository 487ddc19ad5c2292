"""Carries the core's effects to the adapters; one broken adapter never stops the hub.

This runs on the loop thread, so every adapter call here must return at once: the
sound player queues (or writes one period to an idle device), the ring lights queue,
the broadcaster offers to bounded queues, and what the store records of the table (a
round's end, a play the players' statistics count) goes to the store writer thread
(``on_record`` only submits).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from hub.core.effects import (
    ClaimAnswered,
    Effect,
    LogEntry,
    PlaySound,
    PressRefused,
    RoundEnded,
    RoundReopened,
    TablePlayed,
)
from hub.io.sound import SoundPlayer, SoundPolicy
from hub.runtime.broadcast import Broadcaster
from hub.runtime.eventlog import EventLog

Recorded = RoundEnded | RoundReopened | TablePlayed  # what the store records of the table

log = logging.getLogger("hub.runtime.dispatch")


class Lights(Protocol):
    """What the dispatcher needs of the ring's lights."""

    def refused(self, slot: int) -> None:
        """A press on ``slot`` was refused: flash it; return at once."""


class EffectDispatcher:
    """Sends each effect to its adapter, sounds first (they are the hot path).

    ``policy`` decides whether a sound plays; one it refuses reaches neither the
    player nor the phones (no ``sound`` toast) nor the log.
    """

    def __init__(
        self,
        sound: SoundPlayer,
        lights: Lights,
        eventlog: EventLog,
        broadcaster: Broadcaster,
        policy: SoundPolicy,
        *,
        on_record: Callable[[Recorded], None] | None = None,
        on_claim: Callable[[ClaimAnswered], None] | None = None,
    ) -> None:
        self.sound = sound
        self.leds = lights
        self.eventlog = eventlog
        self.broadcaster = broadcaster
        self.policy = policy
        # A round ended or reopened on the table, a play noted (to the store writer's thread).
        self.on_record = on_record
        # A claim's answer (the runtime turns a grant into a token; must return at once).
        self.on_claim = on_claim
        self.failures = 0
        self.silenced = 0

    def __call__(self, effects: list[Effect]) -> None:
        """Carry out ``effects``: sounds, then everything else in order."""
        heard: list[Effect] = []
        for effect in effects:
            if not isinstance(effect, PlaySound):
                heard.append(effect)
            elif self._safely(self.policy.allows, effect.name):
                self._safely(self.sound.play, effect.name)
                heard.append(effect)
            else:
                self.silenced += 1
        for effect in heard:
            self._safely(self._one, effect)

    def _safely(self, fn: Callable[..., Any], *args: object) -> Any:
        try:
            return fn(*args)
        except Exception:
            self.failures += 1
            log.exception("effect dispatch failed: %s%r", getattr(fn, "__name__", fn), args)
            return None

    def _one(self, effect: Effect) -> None:
        if isinstance(effect, PlaySound):
            entry = self.eventlog.append("sound", name=effect.name)
            self.broadcaster.publish("sound", {"name": effect.name})
            self.broadcaster.publish("event", entry)
        elif isinstance(effect, LogEntry):
            entry = self.eventlog.append(effect.kind, effect.at, **dict(effect.fields))
            self.broadcaster.publish("event", entry)
        elif isinstance(effect, PressRefused):
            self.leds.refused(effect.slot)  # a flash, whether or not ``nope`` was heard
        elif isinstance(effect, Recorded) and self.on_record is not None:
            self.on_record(effect)
        elif isinstance(effect, ClaimAnswered) and self.on_claim is not None:
            self.on_claim(effect)

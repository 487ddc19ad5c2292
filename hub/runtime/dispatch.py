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

from hub.core import entries
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
from hub.core.news import Sound
from hub.core.state import Table
from hub.io.sound import SoundPlayer, SoundPolicy
from hub.runtime.broadcast import Broadcaster
from hub.runtime.eventlog import EventLog
from hub.voice.speaker import Announcer, Spoken, joined

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

        ``voice`` (when given) says what the change means. A sentence about the turn whose
        PCM is ready takes the ``turn`` chime's place on the speaker (the chime is still
        logged and sent to the phones, marked ``"voiced": true``); any other sentence
        starts after the longest chime of the same change (``chime_frames``: each sound's
        length). Every sentence is logged as ``say`` with ``played``, heard or not (not: the
    quiet rules, or no speaker available).
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
        voice: Announcer | None = None,
        chime_frames: dict[str, int] | None = None,
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
        self.voice = voice
        self.chime_frames = chime_frames or {}
        self.failures = 0
        self.silenced = 0

    def __call__(self, effects: list[Effect], table: Table | None = None) -> None:
        """Carry out ``effects`` (``table``: the table after them, for the voice):
        sounds and speech, then everything else in order."""
        spoken: list[Spoken] = []
        heard_say: list[bool] = []
        voiced_turn = False  # the turn's sentence is heard now, in the turn chime's place
        if self.voice is not None and table is not None and effects:
            spoken = self._safely(self.voice.announce, effects, table) or []
            if spoken:
                heard_say, voiced_turn = self._heard(spoken)
        heard: list[Effect] = []
        voiced: PlaySound | None = None
        chimes: list[str] = []
        for effect in effects:
            if not isinstance(effect, PlaySound):
                heard.append(effect)
            elif self._safely(self.policy.allows, effect.name):
                if voiced_turn and effect.name is Sound.TURN:
                    voiced = effect  # the sentence is said in its place
                else:
                    self._safely(self.sound.play, effect.name)
                    chimes.append(effect.name)
                heard.append(effect)
            else:
                self.silenced += 1
        if spoken:
            self._safely(self._say, spoken, heard_say, chimes)
        for effect in heard:
            self._safely(self._one, effect, effect is voiced)

    def _heard(self, spoken: list[Spoken]) -> tuple[list[bool], bool]:
        """For each sentence, whether it is heard: a speaker is there to say it on (the
        voice renders, the player is available) and the quiet rules allow it; and
        whether a sentence about the turn is heard with its PCM ready."""
        assert self.voice is not None
        if not (self.voice.renders and (self._safely(self.sound.status) or {}).get("available")):
            return [False] * len(spoken), False
        allows = self.policy.allows_say
        heard = []
        voiced_turn = False
        for s in spoken:
            ok = bool(self._safely(allows, s.phrase.about_turn))
            heard.append(ok)
            voiced_turn = voiced_turn or (ok and s.phrase.about_turn and s.samples is not None)
        return heard, voiced_turn

    def _say(self, spoken: list[Spoken], heard: list[bool], chimes: list[str]) -> None:
        """Say what is ready (after the change's chimes), render the rest to say late,
        and log each sentence."""
        assert self.voice is not None
        ready = []
        for s, ok in zip(spoken, heard, strict=True):
            if ok and s.samples is not None:
                ready.append(s.samples)
        if ready:
            frames = self.chime_frames
            lead = max([frames.get(name, 0) for name in chimes]) if chimes else 0
            self.sound.say(joined(ready), lead)
        for s, ok in zip(spoken, heard, strict=True):
            late = ok and s.samples is None
            if late:
                self.voice.render_late(s)
            entry = self.eventlog.append(entries.SayEntry(s.text, s.lang, ok, late))
            self.broadcaster.publish("event", entry)

    def _safely(self, fn: Callable[..., Any], *args: object) -> Any:
        try:
            return fn(*args)
        except Exception:
            self.failures += 1
            log.exception("effect dispatch failed: %s%r", getattr(fn, "__name__", fn), args)
            return None

    def _one(self, effect: Effect, voiced: bool = False) -> None:
        if isinstance(effect, PlaySound):
            entry = self.eventlog.append(entries.SoundEntry(effect.name, voiced))
            self.broadcaster.publish("sound", {"name": effect.name})
            self.broadcaster.publish("event", entry)
        elif isinstance(effect, LogEntry):
            entry = self.eventlog.append(effect.what, effect.at)
            self.broadcaster.publish("event", entry)
        elif isinstance(effect, PressRefused):
            self.leds.refused(effect.slot)  # a flash, whether or not ``nope`` was heard
        elif isinstance(effect, Recorded) and self.on_record is not None:
            self.on_record(effect)
        elif isinstance(effect, ClaimAnswered) and self.on_claim is not None:
            self.on_claim(effect)

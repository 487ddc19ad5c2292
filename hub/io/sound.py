"""The sound port: what the hub needs from a speaker, and its recording fake.

The hub names sounds (``choo``, ``chicken``, ``turn``, ``turn_back``, ``nope``,
``reminder``, ``out``, ``last_tile``); an adapter turns a name into audio. The real adapter for ALSA
lives in ``hub/io/alsa_player.py``; tests and the sim backend without a sound card use
:class:`RecordingPlayer`.

This module also holds the rules every player shares: which sound wins when two
overlap (:data:`SOUND_PRIORITY`, applied by :class:`Mixer`), and whether a sound plays
at all: :class:`SoundPolicy`, the one place that weighs the quiet mode, the quiet hours
and the turn chime setting (the dispatcher asks it before a sound reaches a player or
a phone). :func:`audible` and :func:`parse_quiet_hours` are plain functions of their
arguments (the caller passes the time), so the config can validate with them too.
"""

from __future__ import annotations

import array
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, time
from itertools import chain, repeat
from operator import add, mul
from typing import Any, Protocol

SOUND_NAMES = ("choo", "chicken", "turn", "turn_back", "nope", "reminder", "out", "last_tile")

# Higher wins: a new sound that outranks everything playing cuts it short; an
# equal or lower one is mixed in. `out` ends the round, so nothing talks over it.
SOUND_PRIORITY = {
    "out": 4,
    "say": 1,  # speech (hub/voice): cuts a turn chime, mixed under anything louder
    "chicken": 3,
    "choo": 2,
    "last_tile": 2,
    "reminder": 1,
    "nope": 1,
    "turn": 0,
    "turn_back": 0,
}

MAX_VOICES = 4  # sounds mixed at once; more would only be noise
KEPT_FRAMES = 30 * 22050  # scaled copies the mixer keeps: 30 s of sound (1.3 MB) at most
FRAME_BYTES = 2  # 16-bit mono PCM
QUIET_MODES = ("off", "turn-only", "mute")  # from loudest to quietest
SAY = "say"  # the name speech plays under (its PCM comes with it: SoundPlayer.say)
TURN_SOUNDS = frozenset({"turn", "turn_back"})


class SoundPlayer(Protocol):
    """Plays a named sound without blocking the caller. Whether a sound should play is
    not the player's business: :class:`SoundPolicy` has decided before ``play``."""

    def play(self, name: str) -> None:
        """Start playing sound ``name``; return at once."""

    def say(self, samples: array.array[int], lead_frames: int = 0) -> None:
        """Start playing speech ``samples`` (22050 Hz 16-bit mono) as sound ``say``
        after ``lead_frames`` of silence, cutting an earlier sentence still playing;
        return at once."""

    def status(self) -> dict[str, Any]:
        """``{"available": bool, "reason": str | None}`` for the snapshot."""

    def set_volume(self, volume: float) -> None:
        """Set the software volume, 0.0 (silent) to 1.0 (as recorded)."""

    def close(self) -> None:
        """Release the device."""


@dataclass
class SoundPolicy:
    """Whether a sound plays: the one place that decides it.

    ``quiet`` is the quiet mode set at the table (``off``, ``turn-only``, ``mute``);
    during ``quiet_hours`` the stricter of it and ``quiet_hours_mode`` applies, judged
    by ``clock()`` (local wall time, read only when quiet hours are set);
    ``turn_chime`` False silences the ``turn`` chime alone. A sound the policy refuses
    reaches neither the player nor the phones (no toast for a sound nobody heard).
    """

    quiet: str = "off"
    turn_chime: bool = True
    quiet_hours: tuple[time, time] | None = None
    quiet_hours_mode: str = "mute"
    clock: Callable[[], datetime] = datetime.now

    def __post_init__(self) -> None:
        check_quiet_mode(self.quiet)
        check_quiet_mode(self.quiet_hours_mode)

    def set_quiet(self, mode: str) -> None:
        """Set the table's quiet mode (ValueError naming the choices otherwise)."""
        self.quiet = check_quiet_mode(mode)

    def mode(self) -> str:
        """The quiet mode in force now."""
        if self.quiet_hours is None:
            return self.quiet
        return effective_quiet(self.quiet, self.quiet_hours, self.quiet_hours_mode, self.clock())

    def allows(self, name: str) -> bool:
        """Whether sound ``name`` plays now."""
        if name == "turn" and not self.turn_chime:
            return False
        return audible(name, self.mode())

    def allows_say(self, about_turn: bool) -> bool:
        """Whether speech plays now: a sentence about the turn is heard where the turn
        chime would be (quiet mode ``turn-only``), any other where every chime is."""
        return audible("turn" if about_turn else SAY, self.mode())


@dataclass
class RecordingPlayer:
    """A sound player that remembers what it was asked to play (the fake for tests).

    ``played`` records every request: what reached the player after the policy;
    ``spoken`` the speech handed to :meth:`say` (its PCM, after its lead of silence).
    """

    played: list[str] = field(default_factory=list)
    spoken: list[array.array[int]] = field(default_factory=list)
    listeners: list[Callable[[str], None]] = field(default_factory=list)
    volume: float = 1.0

    def play(self, name: str) -> None:
        """Record ``name`` and tell any listener (benchmarks wait on these)."""
        self.played.append(name)
        for listener in self.listeners:
            listener(name)

    def say(self, samples: array.array[int], lead_frames: int = 0) -> None:
        """Record the speech as heard (its lead of silence first) and tell any
        listener (as sound ``say``)."""
        self.spoken.append(array.array("h", bytes(2 * lead_frames)) + samples)
        for listener in self.listeners:
            listener(SAY)

    def status(self) -> dict[str, Any]:
        """Always available."""
        return {"available": True, "reason": None}

    def set_volume(self, volume: float) -> None:
        """Remember the volume (checked like the real player does)."""
        self.volume = check_volume(volume)

    def close(self) -> None:
        """Nothing to release."""


class DisabledPlayer:
    """The player when sound is switched off (``[sound] enabled = false``): plays
    nothing, says why in :meth:`status`, and keeps the last ``keep`` sound names it
    was asked for (``recent``), so a long-running hub holds a bounded history."""

    def __init__(self, reason: str, keep: int = 64) -> None:
        self.reason = reason
        self.recent: deque[str] = deque(maxlen=keep)
        self.volume = 1.0

    def play(self, name: str) -> None:
        """Play nothing; remember the name among the last few."""
        self.recent.append(name)

    def say(self, samples: array.array[int], lead_frames: int = 0) -> None:
        """Say nothing; remember that speech was asked for."""
        self.recent.append(SAY)

    def status(self) -> dict[str, Any]:
        """Unavailable, with the reason."""
        return {"available": False, "reason": self.reason}

    def set_volume(self, volume: float) -> None:
        """Check and keep the volume (nothing to apply it to)."""
        self.volume = check_volume(volume)

    def close(self) -> None:
        """Nothing to release."""


def check_volume(volume: float) -> float:
    """``volume`` as a float in 0..1, or ValueError saying what is wrong."""
    if isinstance(volume, bool) or not isinstance(volume, int | float):
        raise ValueError(f"volume must be a number from 0 to 1, not {volume!r}")
    if not 0.0 <= volume <= 1.0:
        raise ValueError(f"volume must be from 0 to 1, not {volume}")
    return float(volume)


def check_quiet_mode(mode: str) -> str:
    """``mode`` if it is a quiet mode, else ValueError naming the choices."""
    if mode not in QUIET_MODES:
        raise ValueError(f"quiet mode must be one of {', '.join(QUIET_MODES)}, not {mode!r}")
    return mode


def parse_quiet_hours(text: str) -> tuple[time, time]:
    """``"22:00-07:00"`` → (22:00, 07:00); the span may wrap past midnight.

    Raises ValueError with the reason for anything else (``"22-7"``, ``"25:00-07:00"``,
    an empty span like ``"07:00-07:00"``).
    """
    start_text, sep, end_text = str(text).partition("-")
    if not sep:
        raise ValueError(f"quiet hours must look like 22:00-07:00, not {text!r}")
    try:
        start = time.fromisoformat(_hh_mm(start_text))
        end = time.fromisoformat(_hh_mm(end_text))
    except ValueError:
        raise ValueError(f"quiet hours must look like 22:00-07:00, not {text!r}") from None
    if start == end:
        raise ValueError(f"quiet hours {text!r} start and end at the same time")
    return start, end


def _hh_mm(text: str) -> str:
    """``" 7:05 "`` → ``"07:05"``; anything but H:MM or HH:MM raises ValueError."""
    hours, sep, minutes = text.strip().partition(":")
    if not sep or not hours.isdigit() or len(minutes) != 2 or not minutes.isdigit():
        raise ValueError(text)
    return f"{int(hours):02d}:{minutes}"


def in_quiet_hours(span: tuple[time, time], now: datetime | time) -> bool:
    """Whether wall-clock ``now`` falls in ``span`` (start inclusive, end exclusive)."""
    start, end = span
    moment = now.time() if isinstance(now, datetime) else now
    moment = moment.replace(tzinfo=None)
    if start < end:
        return start <= moment < end
    return moment >= start or moment < end


def effective_quiet(
    mode: str,
    hours: tuple[time, time] | None,
    hours_mode: str,
    now: datetime | time,
) -> str:
    """The quiet mode in force: during quiet hours the stricter of ``mode`` and ``hours_mode``."""
    if hours is None or not in_quiet_hours(hours, now):
        return mode
    return max(mode, hours_mode, key=QUIET_MODES.index)


def audible(name: str, mode: str) -> bool:
    """Whether sound ``name`` plays under quiet mode ``mode``."""
    if mode == "mute":
        return False
    if mode == "turn-only":
        return name in TURN_SOUNDS
    return True


@dataclass
class Kept:
    """A sound's samples scaled to ``volume``, as far as it has been played at it
    (``scaled`` is a prefix of ``loaded`` scaled; it grows as plays go further)."""

    volume: float
    loaded: array.array[int]
    scaled: array.array[int] = field(default_factory=lambda: array.array("h"))


@dataclass
class Voice:
    """One sound being played: its samples as loaded and how far it has got; ``kept``
    is the sound's scaled copy at the volume it started at (None at volume 1)."""

    name: str
    samples: array.array[int]
    priority: int
    pos: int = 0  # below 0: that many frames of silence before the samples
    cut: bool = False  # cut short: fades to silence over the next period, then ends
    kept: Kept | None = None


class Mixer:
    """Sums the voices playing into fixed-size periods of 16-bit PCM.

    A new sound that outranks every voice playing (by :data:`hub.io.sound.SOUND_PRIORITY`)
    cuts them short; an equal or lower one is mixed in. A repeat of a sound already
    playing restarts it. A cut voice fades out over one period instead of stopping
    dead, so there is no click. Sums beyond 16 bits are clamped.

    The volume scales every sample. What a sound has played at a volume is kept scaled
    (a copy per sound, made as it played: no extra work), so its next plays at that
    volume take slices of the copy: scaling every sample in Python had cost more CPU
    than the rest of a press together (docs/performance.md, "The Pi budget"). The
    copies are kept by the samples' identity, not by name: every sentence the voice
    says (all played as ``say``, each the same array from the voice's cache every
    time) keeps its own, up to :data:`KEPT_FRAMES` frames in all (the least recently
    played are let go first).
    Overlapping voices are summed a period at a time with ``map``.
    """

    def __init__(self, period_frames: int, volume: float = 1.0) -> None:
        self.period_frames = period_frames
        self.volume = volume
        self.voices: list[Voice] = []
        self._tail_due = False
        self._fade = [(period_frames - i) / period_frames for i in range(period_frames)]
        # id(samples) -> its scaled copy (which holds the samples: the id stays theirs)
        self._kept: dict[int, Kept] = {}

    def start(self, name: str, samples: array.array[int], lead_frames: int = 0) -> None:
        """Add sound ``name`` to the mix, cutting what it outranks; its samples start
        after ``lead_frames`` of silence (no copy made: a sentence keeps its scaled copy)."""
        priority = SOUND_PRIORITY.get(name, 0)
        live = [voice for voice in self.voices if not voice.cut]
        top = max((voice.priority for voice in live), default=-1)
        for voice in live:
            if priority > top or voice.name == name:
                voice.cut = True
        kept = self._keep(samples)
        self.voices.append(Voice(name, samples, priority, -lead_frames, kept=kept))
        while len(self.voices) > MAX_VOICES:
            # Cut voices go first, then the lowest priority, oldest first.
            self.voices.remove(min(self.voices, key=lambda v: (not v.cut, v.priority)))

    def _keep(self, samples: array.array[int]) -> Kept | None:
        """The samples' copy at the volume now (a new one after a change), or None at 1."""
        volume = self.volume
        if volume == 1.0:
            return None
        key = id(samples)
        kept = self._kept.pop(key, None)  # put back last: the most recently played
        if kept is None or kept.volume != volume or kept.loaded is not samples:
            kept = Kept(volume, samples)
        self._kept[key] = kept
        held = sum(len(k.loaded) for k in self._kept.values())
        while held > KEPT_FRAMES and len(self._kept) > 1:
            oldest = next(iter(self._kept))
            held -= len(self._kept.pop(oldest).loaded)
        return kept

    def clear(self) -> None:
        """Drop every voice (the device went away mid-sound)."""
        self.voices.clear()
        self._tail_due = False

    def next_period(self) -> bytes | None:
        """The next period of PCM; one period of silence after the last voice; then None."""
        n = self.period_frames
        if not self.voices:
            due, self._tail_due = self._tail_due, False
            return bytes(n * FRAME_BYTES) if due else None
        self._tail_due = True
        volume = self.volume  # read once: another thread may change it
        # A voice whose lead of silence lasts the whole period adds nothing to it: a
        # chime and the sentence that waits for it are each played alone, not summed.
        sounding = []
        for voice in self.voices:
            if voice.pos > -n:
                sounding.append(voice)
            else:
                voice.pos += n
        if not sounding:  # every voice is waiting out its lead
            self._drop_finished()
            return bytes(n * FRAME_BYTES)
        if len(sounding) == 1 and not sounding[0].cut:
            chunk = self._scaled_chunk(sounding[0], n, volume)
            self._drop_finished()
            return chunk.tobytes() + bytes((n - len(chunk)) * FRAME_BYTES)
        return self._mix(sounding, n, volume)

    def _scaled_chunk(self, voice: Voice, n: int, volume: float) -> array.array[int]:
        """The voice's next ``n`` samples at ``volume`` (fewer at its end): its lead of
        silence first, then from its kept copy where that reaches, else scaled here
        (and kept, where the copy ends)."""
        if voice.pos < 0:
            quiet = min(-voice.pos, n)
            voice.pos += quiet
            silence = array.array("h", bytes(2 * quiet))
            return silence if quiet == n else silence + self._scaled_chunk(voice, n - quiet, volume)
        start = voice.pos
        chunk = voice.samples[start : start + n]
        voice.pos += n
        kept = voice.kept
        if kept is not None and kept.volume == volume:
            done = len(kept.scaled)
            if start + len(chunk) <= done:
                return kept.scaled[start : start + len(chunk)]
            if start == done:
                kept.scaled.extend(_scaled(chunk, volume))
                return kept.scaled[start:]
        return chunk if volume == 1.0 else _scaled(chunk, volume)

    def _mix(self, voices: list[Voice], n: int, volume: float) -> bytes:
        """Sum ``voices`` into one period at ``volume``, clamped to 16 bits. The sums
        run in C (``map``); a sample is clamped one by one only when a period overflows."""
        total: list[float] = []
        fading = False
        for voice in voices:
            part: Iterable[float] = self._scaled_chunk(voice, n, volume)
            if voice.cut:
                part, fading = map(mul, part, self._fade), True
            if total:
                total = list(map(add, total, chain(part, repeat(0))))
            else:
                total = list(part)
                total += [0] * (n - len(total))
        self._drop_finished()
        if fading:
            total = list(map(round, total))
        if min(total) < -32768 or max(total) > 32767:
            total = [-32768 if s < -32768 else 32767 if s > 32767 else s for s in total]
        return array.array("h", total).tobytes()

    def _drop_finished(self) -> None:
        self.voices = [v for v in self.voices if not v.cut and v.pos < len(v.samples)]


def _scaled(chunk: array.array[int], volume: float) -> array.array[int]:
    """``chunk`` times ``volume`` (0..1: nothing overflows), rounded, in C."""
    return array.array("h", map(round, map(volume.__mul__, chunk)))

"""The mixer every real sound player shares: the voices playing summed into periods of
16-bit PCM, the louder sound (by :data:`hub.io.sound.SOUND_PRIORITY`) cutting the
others short, and the volume's scaled copies kept (docs/sound.md)."""

from __future__ import annotations

import array
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain, repeat
from math import floor
from operator import add, mul
from types import ModuleType

from hub.io.sound import FRAME_BYTES, MAX_VOICES, SOUND_PRIORITY

KEPT_FRAMES = 30 * 22050  # scaled copies the mixer keeps: 30 s of sound (1.3 MB) at most


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
    than the rest of a press together (docs/performance.md, "The Pi budget"), and the
    scaling itself runs in C (``audioop``), rounding down. The
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


def _scaled_in_python(chunk: array.array[int], volume: float) -> array.array[int]:
    """``chunk`` times ``volume`` (0..1: nothing overflows), rounded down as
    ``audioop.mul`` does: about 25 times its CPU (~8 ms a second of sound here, a
    whole press's budget on a Pi Zero 2 W; docs/performance.md), so only where no
    ``audioop`` is to be had."""
    return array.array("h", map(floor, map(volume.__mul__, chunk)))


def _scaled_in_c(chunk: array.array[int], volume: float) -> array.array[int]:
    """``chunk`` times ``volume``, rounded down, by ``audioop.mul`` (in C)."""
    assert audioop is not None
    scaled = array.array("h")
    scaled.frombytes(audioop.mul(chunk, 2, volume))
    return scaled


def _load_audioop() -> ModuleType | None:
    """The standard library's ``audioop`` (Python 3.11-3.12; deprecated there, so
    imported with its warning silenced), or the ``audioop-lts`` package's of the same
    name (3.13 on, the ``sound`` extra), or None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import audioop as module
        except ImportError:
            return None
    return module


audioop = _load_audioop()
_scaled = _scaled_in_python if audioop is None else _scaled_in_c

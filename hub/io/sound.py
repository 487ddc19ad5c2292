"""The sound port: what the hub needs from a speaker.

The hub names sounds (``choo``, ``chicken``, ``turn``, ``turn_back``, ``nope``,
``reminder``, ``out``, ``last_tile``); an adapter turns a name into audio. The real adapter for ALSA
lives in ``hub/io/alsa_player.py``; without a sound card, :class:`DisabledPlayer`. The
simulator and the tests listen through ``RecordingPlayer`` (``tablesim/virtual.py``).

This module also holds the rules every player shares: which sound wins when two
overlap (:data:`SOUND_PRIORITY`, applied by :class:`hub.io.mixer.Mixer`), and whether a sound plays
at all: :class:`SoundPolicy`, the one place that weighs the quiet mode, the quiet hours
and the turn chime setting (the dispatcher asks it before a sound reaches a player or
a phone). :func:`audible` and :func:`parse_quiet_hours` are plain functions of their
arguments (the caller passes the time), so the config can validate with them too.
"""

from __future__ import annotations

import array
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time
from typing import Any, Protocol

from hub.core.news import Sound

# The core's sounds (hub/core/news.py is their one home), as plain names.
SOUND_NAMES = tuple(sound.value for sound in Sound)

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

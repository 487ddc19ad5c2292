"""The ALSA sound adapter: every sound in memory, one device held open, one writer thread.

This is the only module that imports the ALSA library (pyalsaaudio, ``import
alsaaudio``). :class:`AlsaPlayer` implements :class:`hub.io.sound.SoundPlayer`:

- At start it reads every WAV under ``hub/sounds/`` into memory (22050 Hz, 16-bit
  mono) and opens the ALSA device by name (``default``, ``plughw:1``, ``null``, ...)
  once, with a small period (256 frames, 11.6 ms) so a sound reaches the speaker fast.
- ``play(name)`` appends the name to a deque and sets an event: nothing else runs on
  the caller's thread (the hub loop), so it returns within microseconds.
- The writer thread mixes the voices playing into one period at a time and writes it;
  the blocking write paces it. With nothing to play it writes one period of silence
  and then blocks on the event, so an idle hub costs no CPU (the stream underruns,
  which ALSA reports on the next write and the writer recovers from).
- A missing card, a busy or vanished device, or a bad WAV never stops the hub:
  :meth:`AlsaPlayer.status` says why, the ``hub.io.sound`` logger says so once per outage,
  and the writer retries the device every ``retry_s`` seconds until it returns.
"""

from __future__ import annotations

import array
import ctypes
import ctypes.util
import functools
import logging
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Protocol

from hub.io.sound import (
    FRAME_BYTES,
    Mixer,
    audible,
    check_quiet_mode,
    check_volume,
    effective_quiet,
    parse_quiet_hours,
)
from hub.sounds import RATE, SOUNDS_DIR, load_sounds

try:
    import alsaaudio
except ImportError:  # no wheel on this machine: the player reports it as a fault
    alsaaudio = None

log = logging.getLogger("hub.io.sound")


class PcmOutput(Protocol):
    """An open playback device taking native-endian 16-bit mono frames at 22050 Hz."""

    def write(self, frames: bytes) -> None:
        """Hand ``frames`` to the device; block while its buffer is full."""

    def close(self) -> None:
        """Let what was written play out, then release the device."""


OpenDevice = Callable[[str, int, int, int], PcmOutput]


class AlsaOutput:
    """A pyalsaaudio playback PCM, recovering from the underrun that follows each idle."""

    def __init__(self, device: str, rate: int, period_frames: int, periods: int) -> None:
        if alsaaudio is None:
            raise OSError("pyalsaaudio is not installed (pip install pyalsaaudio)")
        _route_alsa_lib_messages()
        big = sys.byteorder == "big"
        fmt = alsaaudio.PCM_FORMAT_S16_BE if big else alsaaudio.PCM_FORMAT_S16_LE
        self.device = device
        self._pcm = alsaaudio.PCM(
            type=alsaaudio.PCM_PLAYBACK,
            mode=alsaaudio.PCM_NORMAL,
            device=device,
            rate=rate,
            channels=1,
            format=fmt,
            periodsize=period_frames,
            periods=periods,
        )
        actual = self._pcm.info().get("rate", rate) if hasattr(self._pcm, "info") else rate
        if actual != rate:
            self._pcm.close()
            raise OSError(f"plays at {actual} Hz, not {rate}; use a plughw: or default device")

    def write(self, frames: bytes) -> None:
        """Write all of ``frames``; an underrun (-EPIPE, the stream re-prepared) is retried."""
        view = memoryview(frames)
        refusals = 0
        while view:
            written = self._pcm.write(view)
            if written > 0:
                view = view[written * FRAME_BYTES :]
                continue
            refusals += 1
            if refusals > 3:
                raise OSError(f"the device refuses data (write returned {written})")

    def close(self) -> None:
        """Drain (at most one buffer, ~46 ms) and close."""
        try:
            self._pcm.drain()
        except alsaaudio.ALSAAudioError:
            pass  # a broken stream has nothing left to play
        finally:
            self._pcm.close()


_AlsaLibHandler = ctypes.CFUNCTYPE(
    None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
)


@functools.cache
def _route_alsa_lib_messages() -> object:
    """Send alsa-lib's own error lines to the debug log instead of stderr.

    Without this every retry against a missing card prints ~9 lines to stderr (the
    journal), every 5 s, for as long as the card is missing. The handler is
    process-wide in alsa-lib; the cache keeps the callback alive and installs it once.
    """

    def handler(file: bytes, line: int, function: bytes, err: int, fmt: bytes) -> None:
        log.debug("alsa-lib %s:%d %s: %s", file.decode(), line, function.decode(), fmt.decode())

    callback = _AlsaLibHandler(handler)
    try:
        ctypes.CDLL(
            ctypes.util.find_library("asound") or "libasound.so.2"
        ).snd_lib_error_set_handler(callback)
    except (OSError, AttributeError) as exc:
        log.debug("cannot route alsa-lib messages: %s", exc)
    return callback


class AlsaPlayer:
    """Plays the hub's sounds on the ALSA device named ``device`` (see the module doc).

    ``volume`` is 0..1; ``quiet`` is ``off``, ``turn-only`` or ``mute``; during
    ``quiet_hours`` (``"22:00-07:00"``) the stricter of ``quiet`` and
    ``quiet_hours_mode`` applies, judged by ``clock()`` (local wall time). Tests pass
    ``sounds`` (samples by name) and ``open_device(name, rate, period_frames, periods)``
    to play on a fake; ``on_sound_start(name)`` runs on the writer thread right before
    a new sound's first frames are written (the latency bench times it).

    The device is opened on the writer thread, so :meth:`status` says
    ``"starting"`` until the first attempt is over (:meth:`wait_ready`).
    ``on_status_change(status)`` runs on the writer thread whenever :meth:`status`
    changes (first open, outage, recovery): it should only post an event to the loop.
    """

    def __init__(
        self,
        device: str = "default",
        volume: float = 1.0,
        quiet: str = "off",
        quiet_hours: str | None = None,
        quiet_hours_mode: str = "mute",
        clock: Callable[[], datetime] = datetime.now,
        *,
        sounds: Mapping[str, array.array] | None = None,
        sounds_dir: Path | None = None,
        open_device: OpenDevice = AlsaOutput,
        period_frames: int = 256,
        periods: int = 4,
        retry_s: float = 5.0,
        on_sound_start: Callable[[str], None] | None = None,
        on_status_change: Callable[[dict], None] | None = None,
    ) -> None:
        self.device = device
        self._quiet = check_quiet_mode(quiet)
        self._quiet_hours = parse_quiet_hours(quiet_hours) if quiet_hours else None
        self._quiet_hours_mode = check_quiet_mode(quiet_hours_mode)
        self._clock = clock
        self._mixer = Mixer(period_frames, check_volume(volume))
        self._open_args = (device, RATE, period_frames, periods)
        self._open_device = open_device
        self._retry_s = retry_s
        self._on_sound_start = on_sound_start
        self._on_status_change = on_status_change
        self._sounds, self._bad = self._load(sounds, sounds_dir)
        self._requests: deque[str] = deque(maxlen=64)
        self._wake = threading.Event()
        self._changed = threading.Condition()
        self._idle = False
        self._closing = False
        self._pcm: PcmOutput | None = None
        self._fault: str | None = "starting"
        self._outage_logged = False
        self._next_open = 0.0
        self._started: list[str] = []
        self._warned: set[str] = set()
        self._thread = threading.Thread(target=self._run, name="sound-writer", daemon=True)
        self._thread.start()

    @staticmethod
    def _load(
        sounds: Mapping[str, array.array] | None, sounds_dir: Path | None
    ) -> tuple[dict[str, array.array], dict[str, str]]:
        if sounds is not None:
            return dict(sounds), {}
        loaded, bad = load_sounds(sounds_dir or SOUNDS_DIR)
        for reason in bad.values():
            log.warning("sound file unusable, it will not play: %s", reason)
        return loaded, bad

    # -- the caller's side (the hub loop): nothing here blocks -------------------

    def play(self, name: str) -> None:
        """Queue sound ``name`` for the writer thread and return at once."""
        self._requests.append(name)
        self._wake.set()

    def set_volume(self, volume: float) -> None:
        """Software volume, 0..1 (ValueError outside); applies from the next period."""
        self._mixer.volume = check_volume(volume)

    def set_quiet(self, mode: str) -> None:
        """Quiet mode ``off``, ``turn-only`` or ``mute`` (ValueError otherwise)."""
        self._quiet = check_quiet_mode(mode)

    def status(self) -> dict:
        """``{"available": bool, "reason": str | None}``.

        Unavailable while the device cannot be opened or written (the reason says why)
        or when no sound could be loaded; available with a reason when only some
        sound files are unusable.
        """
        fault = self._fault
        if fault is not None:
            return {"available": False, "reason": fault}
        if not self._sounds:
            return {"available": False, "reason": "no sound could be loaded: " + self._bad_list()}
        if self._bad:
            return {"available": True, "reason": "unusable sound files: " + self._bad_list()}
        return {"available": True, "reason": None}

    def _bad_list(self) -> str:
        return "; ".join(self._bad.values())

    def close(self) -> None:
        """Stop the writer, let the device play out what it holds, release it."""
        self._closing = True
        self._wake.set()
        self._thread.join(timeout=2.0)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Block until every request is handled and nothing plays (tests, the CLI)."""
        return self._wait(lambda: self._idle and not self._requests, timeout)

    def wait_available(self, available: bool = True, timeout: float = 5.0) -> bool:
        """Block until ``status()["available"]`` is ``available`` (tests, the CLI)."""
        return self._wait(lambda: self.status()["available"] is available, timeout)

    def wait_ready(self, timeout: float = 5.0) -> bool:
        """Block until the first attempt to open the device has finished."""
        return self._wait(lambda: self._fault != "starting", timeout)

    def _wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    # -- the writer thread ----------------------------------------------------

    def _run(self) -> None:
        while not self._closing:
            try:
                self._step()
            except Exception as exc:  # a bug must cost the sound, never the writer thread
                log.exception("sound writer failed")
                self._lose_device(f"writer failed: {exc!r}")
        self._release_device()

    def _step(self) -> None:
        if self._pcm is None and not self._open_when_due():
            self._requests.clear()  # a press while the device is away is not replayed later
            self._sleep(max(0.0, self._next_open - time.monotonic()))
            return
        while self._requests:
            self._start(self._requests.popleft())
        chunk = self._mixer.next_period()
        if chunk is None:
            self._sleep(None)
            return
        self._announce_started()
        try:
            self._pcm.write(chunk)
        except Exception as exc:
            self._lose_device(f"writing to it failed: {_describe(exc)}")

    def _start(self, name: str) -> None:
        mode = self._quiet
        if self._quiet_hours is not None:  # read the wall clock only when it matters
            mode = effective_quiet(mode, self._quiet_hours, self._quiet_hours_mode, self._clock())
        if not audible(name, mode):
            return
        samples = self._sounds.get(name)
        if samples is None:
            if name not in self._warned:
                self._warned.add(name)
                why = self._bad.get(name, "no such sound")
                log.warning("cannot play sound %r: %s", name, why)
            return
        self._mixer.start(name, samples)
        self._started.append(name)

    def _announce_started(self) -> None:
        if self._on_sound_start is not None:
            for name in self._started:
                self._on_sound_start(name)
        self._started.clear()

    def _sleep(self, timeout: float | None) -> None:
        """Block until play() or close() wakes us (or ``timeout``); idle meanwhile."""
        with self._changed:
            if self._requests or self._closing:
                return
            self._idle = True
            self._changed.notify_all()
        self._wake.wait(timeout)
        self._wake.clear()
        with self._changed:
            self._idle = False

    def _open_when_due(self) -> bool:
        """Open the device if a retry is due; True once it is open and takes data."""
        if time.monotonic() < self._next_open:
            return False
        try:
            pcm = self._open_device(*self._open_args)
        except Exception as exc:
            self._set_fault(f"cannot open it: {_describe(exc)}")
            return False
        try:
            pcm.write(bytes(self._mixer.period_frames * FRAME_BYTES))  # probe: it must take data
        except Exception as exc:
            _close_quietly(pcm)
            self._set_fault(f"it takes no data: {_describe(exc)}")
            return False
        self._pcm = pcm
        self._clear_fault()
        return True

    def _lose_device(self, reason: str) -> None:
        pcm, self._pcm = self._pcm, None
        if pcm is not None:
            _close_quietly(pcm)
        self._mixer.clear()
        self._started.clear()
        self._set_fault(reason)

    def _release_device(self) -> None:
        pcm, self._pcm = self._pcm, None
        if pcm is not None:
            _close_quietly(pcm)
        with self._changed:
            self._idle = True
            self._changed.notify_all()

    def _set_fault(self, reason: str) -> None:
        """Record an outage; log it once, however many presses or retries follow."""
        self._next_open = time.monotonic() + self._retry_s
        if not self._outage_logged:
            log.warning(
                "sound unavailable on ALSA device %r: %s (retrying every %g s)",
                self.device,
                reason,
                self._retry_s,
            )
            self._outage_logged = True
        else:
            log.debug("sound still unavailable on %r: %s", self.device, reason)
        self._update_fault(reason)

    def _clear_fault(self) -> None:
        if self._outage_logged:
            log.warning("sound available again on ALSA device %r", self.device)
        else:
            log.info("sound: playing on ALSA device %r", self.device)
        self._outage_logged = False
        self._update_fault(None)

    def _update_fault(self, reason: str | None) -> None:
        """Set the fault, wake whoever waits on the status, tell the listener if it changed."""
        before = self.status()
        with self._changed:
            self._fault = reason
            self._changed.notify_all()
        after = self.status()
        if after != before and self._on_status_change is not None:
            try:
                self._on_status_change(after)
            except Exception:  # the listener's failure must not stop the sound
                log.exception("sound status listener failed")


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _close_quietly(pcm: PcmOutput) -> None:
    try:
        pcm.close()
    except Exception as exc:  # the device is already gone; nothing more to release
        log.debug("closing the sound device failed: %s", _describe(exc))

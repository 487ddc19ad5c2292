"""The ALSA sound adapter: every sound in memory, one device held open, one writer thread.

:class:`AlsaPlayer` implements :class:`hub.io.sound.SoundPlayer` on an ALSA device
(:class:`hub.io.alsa_output.AlsaOutput`, the one module that imports pyalsaaudio):

- At start it reads every WAV under ``hub/sounds/`` into memory (22050 Hz, 16-bit
  mono) and opens the ALSA device by name (``default``, ``plughw:1``, ``null``, ...)
  once, with a small period (256 frames, 11.6 ms) so a sound reaches the speaker fast.
- ``play(name)`` never waits. When the device is open and idle (the writer parked,
  the stream drained) the caller writes the sound's first period itself: the device
  has a whole empty buffer, so the write returns at once, and the sound starts
  without waiting for the writer thread to be scheduled. Otherwise (a sound is
  playing, or the writer holds the device) it appends the name to a deque and sets
  an event; it returns within microseconds either way.
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
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hub.io.alsa_output import AlsaOutput, OpenDevice, PcmOutput
from hub.io.mixer import Mixer
from hub.io.sound import FRAME_BYTES, SAY, SOUND_NAMES, check_volume
from hub.sounds import RATE, SOUNDS_DIR, load_sounds

log = logging.getLogger("hub.io.sound")


class AlsaPlayer:
    """Plays the hub's sounds on the ALSA device named ``device`` (see the module doc).

    ``volume`` is 0..1. Whether a sound should play at all (quiet mode, quiet hours,
    the turn chime) is decided before :meth:`play` by :class:`hub.io.sound.SoundPolicy`.
    Tests pass
    ``sounds`` (samples by name) and ``open_device(name, rate, period_frames, periods)``
    to play on a fake; ``on_sound_start(name)`` runs right before a new sound's first
    frames are written (the latency bench times it), on the writer thread or, when the
    device was idle, on the thread that called :meth:`play`.

    The device is opened on the writer thread, so :meth:`status` says
    ``"starting"`` until the first attempt is over (:meth:`wait_ready`).
    ``on_status_change(status)`` runs on the writer thread whenever :meth:`status`
    changes (first open, outage, recovery): it should only post an event to the loop.
    """

    def __init__(
        self,
        device: str = "default",
        volume: float = 1.0,
        *,
        sounds: Mapping[str, array.array[int]] | None = None,
        sounds_dir: Path | None = None,
        open_device: OpenDevice = AlsaOutput,
        period_frames: int = 256,
        periods: int = 4,
        retry_s: float = 5.0,
        on_sound_start: Callable[[str], None] | None = None,
        on_status_change: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.device = device
        self._mixer = Mixer(period_frames, check_volume(volume))
        self._open_args = (device, RATE, period_frames, periods)
        self._open_device = open_device
        self._retry_s = retry_s
        self._on_sound_start = on_sound_start
        self._on_status_change = on_status_change
        self._sounds, self._bad = self._load(sounds, sounds_dir)
        # (name, samples, lead): samples (and frames of silence first) for speech
        # (``say``), None (and 0) for a sound by name
        self._requests: deque[tuple[str, array.array[int] | None, int]] = deque(maxlen=64)
        self._wake = threading.Event()
        self._changed = threading.Condition()
        self._device_lock = threading.Lock()  # the mixer and the device: one user at a time
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
        sounds: Mapping[str, array.array[int]] | None, sounds_dir: Path | None
    ) -> tuple[dict[str, array.array[int]], dict[str, str]]:
        if sounds is not None:
            return dict(sounds), {}
        loaded, bad = load_sounds(SOUND_NAMES, sounds_dir or SOUNDS_DIR)
        for reason in bad.values():
            log.warning("sound file unusable, it will not play: %s", reason)
        return loaded, bad

    # -- the caller's side (the hub loop): nothing here blocks -------------------

    def play(self, name: str) -> None:
        """Start sound ``name`` (its first period from here when the device is idle),
        or queue it for the writer thread; return at once either way."""
        self._request(name, None)

    def say(self, samples: array.array[int], lead_frames: int = 0) -> None:
        """Start speech ``samples`` (after ``lead_frames`` of silence) as sound ``say``,
        exactly as :meth:`play` starts a sound: the first period from here when the
        device is idle."""
        self._request(SAY, samples, lead_frames)

    def _request(self, name: str, samples: array.array[int] | None, lead: int = 0) -> None:
        if self._idle and self._pcm is not None and self._device_lock.acquire(blocking=False):
            try:
                if self._idle and self._pcm is not None and not self._requests:
                    self._write_first_period(name, samples, lead)
                    return
            finally:
                self._device_lock.release()
        self._requests.append((name, samples, lead))
        self._wake.set()

    def _write_first_period(self, name: str, samples: array.array[int] | None, lead: int) -> None:
        """On the caller's thread, device lock held, writer parked: start ``name`` and
        write its first period (the drained device takes it without blocking); the
        writer wakes to write the rest."""
        with self._changed:
            self._idle = False  # busy from now on: wait_idle() waits for the rest
        try:
            self._start(name, samples, lead)
            self._write_period()
        except Exception as exc:  # as on the writer thread: a bug costs the sound only
            log.exception("sound writer failed")
            self._lose_device(f"writer failed: {exc!r}")
        self._wake.set()

    def set_volume(self, volume: float) -> None:
        """Software volume, 0..1 (ValueError outside); applies from the next period."""
        self._mixer.volume = check_volume(volume)

    def status(self) -> dict[str, Any]:
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
        with self._device_lock:
            if self._pcm is None and not self._open_when_due():
                self._requests.clear()  # a press while the device is away is not replayed
                wait: float | None = max(0.0, self._next_open - time.monotonic())
            else:
                while self._requests:
                    self._start(*self._requests.popleft())
                wait = None if not self._write_period() else -1.0
        if wait is None or wait >= 0:
            self._sleep(wait)

    def _write_period(self) -> bool:
        """Mix and write the next period (device lock held); False when nothing is left."""
        chunk = self._mixer.next_period()
        if chunk is None:
            return False
        self._announce_started()
        try:
            assert self._pcm is not None
            self._pcm.write(chunk)
        except Exception as exc:
            self._lose_device(f"writing to it failed: {_describe(exc)}")
        return True

    def _start(self, name: str, given: array.array[int] | None = None, lead: int = 0) -> None:
        samples = self._sounds.get(name) if given is None else given
        if samples is None:
            if name not in self._warned:
                self._warned.add(name)
                why = self._bad.get(name, "no such sound")
                log.warning("cannot play sound %r: %s", name, why)
            return
        self._mixer.start(name, samples, lead)
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

"""The ALSA playback device: the only module that imports the ALSA library.

:class:`AlsaOutput` is one open pyalsaaudio (``import alsaaudio``) playback PCM taking
native-endian 16-bit mono frames, recovering from the underrun that follows each idle.
:class:`hub.io.alsa_player.AlsaPlayer` owns one and feeds it from its writer thread (or,
for a sound's first period on an idle device, from the caller); tests pass a fake with
the same two methods (:class:`PcmOutput`).

alsa-lib prints its own error lines to stderr when a device cannot be opened. Once the
first open has failed, those lines go to the ``hub.io.sound`` debug log instead (a
handler installed through ``ctypes``), so a card missing for hours does not print ~9
lines every retry. ``ctypes`` is loaded only then: a hub whose device opens never
spends the ~0.3 MB it costs.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import Any, Protocol

from hub.io.sound import FRAME_BYTES

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
        big = sys.byteorder == "big"
        fmt = alsaaudio.PCM_FORMAT_S16_BE if big else alsaaudio.PCM_FORMAT_S16_LE
        self.device = device
        try:
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
        except alsaaudio.ALSAAudioError:
            route_alsa_lib_messages()  # the retries that follow print nothing to stderr
            raise
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


def _libasound() -> Any:
    """alsa-lib by its soname; only if that fails, ask ``ctypes.util`` (which runs
    ``ldconfig``: a process and ~0.3 MB the hub need not spend)."""
    import ctypes

    try:
        return ctypes.CDLL("libasound.so.2")
    except OSError:
        from ctypes import util

        return ctypes.CDLL(util.find_library("asound") or "libasound.so.2")


@functools.cache
def route_alsa_lib_messages() -> object:
    """Send alsa-lib's own error lines to the debug log instead of stderr, from now on.

    Without this every retry against a missing card prints ~9 lines to stderr (the
    journal), every 5 s, for as long as the card is missing. The handler is
    process-wide in alsa-lib; the cache keeps the callback alive and installs it once.
    """
    import ctypes

    def handler(file: bytes, line: int, function: bytes, err: int, fmt: bytes) -> None:
        log.debug("alsa-lib %s:%d %s: %s", file.decode(), line, function.decode(), fmt.decode())

    handler_type = ctypes.CFUNCTYPE(
        None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
    )
    callback = handler_type(handler)
    try:
        _libasound().snd_lib_error_set_handler(callback)
    except (OSError, AttributeError) as exc:
        log.debug("cannot route alsa-lib messages: %s", exc)
    return callback

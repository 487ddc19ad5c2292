"""Speech synthesis with Debian's ``espeak-ng``: text in, 22050 Hz 16-bit mono PCM out.

The one module that runs the engine. It is called off the hub loop's thread (the
speaker's render thread, the command line): a render takes a process start and some
milliseconds (about 17 ms for a short sentence on x86_64; docs/sound.md).
"""

from __future__ import annotations

import array
import shutil
import subprocess
import sys

ENGINE = "espeak-ng"
RATE = 22050
# espeak-ng's voices for the catalogs' languages (``espeak-ng --voices``).
VOICES = {"en": "en-us", "es": "es-419"}
SPEED = 160  # words per minute: espeak's default of 175 is hurried for names
SILENT = 96  # |sample| at or below this is silence when trimming (-51 dBFS)
# The longest sentence the voice says (the longest fixed words and a name at the most
# the voice allows, hub.voice.lengths.MOST_NAME_S, fit: docs/sound.md, "How long").
MOST_SECONDS = 7.0


class EngineError(RuntimeError):
    """The engine is missing or failed; the message says why, ready for a person."""


class TooLong(EngineError):
    """The text takes longer to say than the voice allows; ``seconds`` how long."""

    def __init__(self, text: str, seconds: float, most: float) -> None:
        super().__init__(f"{text[:60]!r} takes {seconds:.1f} s to say (at most {most:g} s)")
        self.seconds = seconds


def available() -> str | None:
    """None when espeak-ng can be run, else why not."""
    if shutil.which(ENGINE) is None:
        return f"{ENGINE} is not installed (apt install espeak-ng)"
    return None


def voice_for(lang: str) -> str:
    """espeak-ng's voice for catalog language ``lang`` (English for any other)."""
    return VOICES.get(lang, VOICES["en"])


def render(
    text: str, lang: str, timeout: float = 10.0, most: float = MOST_SECONDS
) -> array.array[int]:
    """``text`` spoken in ``lang`` as PCM samples, silence trimmed at both ends.

    Raises :class:`EngineError` when the engine is missing, fails or says nothing, and
    :class:`TooLong` when what it says lasts more than ``most`` seconds.
    """
    if not text.strip():
        raise EngineError("nothing to say")
    command = [ENGINE, "-v", voice_for(lang), "-s", str(SPEED), "--stdout", "--", text]
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise EngineError(f"{ENGINE} is not installed (apt install espeak-ng)") from None
    except subprocess.TimeoutExpired:
        raise EngineError(f"{ENGINE} took longer than {timeout:g} s") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        raise EngineError(f"{ENGINE} failed: {why}")
    samples = trimmed(wav_samples(done.stdout))
    if not samples:
        raise EngineError(f"{ENGINE} said nothing for {text!r}")
    if len(samples) > most * RATE:
        raise TooLong(text, len(samples) / RATE, most)
    return samples


def wav_samples(data: bytes) -> array.array[int]:
    """The samples of espeak-ng's ``--stdout`` WAV: 16-bit mono at :data:`RATE`.

    A WAV written to a pipe has no true lengths in its header (espeak-ng writes
    0x7fffffff-ish values), so this reads the chunks itself and takes everything
    after ``data`` as samples.
    """
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise EngineError(f"{ENGINE} gave no WAV")
    pos = 12
    fmt_ok = False
    while pos + 8 <= len(data):
        chunk, size = data[pos : pos + 4], int.from_bytes(data[pos + 4 : pos + 8], "little")
        body = pos + 8
        if chunk == b"fmt ":
            channels = int.from_bytes(data[body + 2 : body + 4], "little")
            rate = int.from_bytes(data[body + 4 : body + 8], "little")
            bits = int.from_bytes(data[body + 14 : body + 16], "little")
            if (channels, rate, bits) != (1, RATE, 16):
                raise EngineError(f"{ENGINE} gave {channels} ch, {rate} Hz, {bits}-bit audio")
            fmt_ok = True
        elif chunk == b"data":
            if not fmt_ok:
                break
            raw = data[body:]
            samples = array.array("h")
            samples.frombytes(raw[: len(raw) - len(raw) % 2])
            if sys.byteorder == "big":
                samples.byteswap()
            return samples
        pos = body + size + (size & 1)
    raise EngineError(f"{ENGINE} gave a WAV without audio")


def trimmed(samples: array.array[int]) -> array.array[int]:
    """``samples`` without the silence before the first and after the last sound, so
    a press reaches the first sample of speech, not the engine's lead-in."""
    start = _first_loud(samples)
    if start is None:
        return array.array("h")
    return samples[start : _last_loud(samples) + 1]


def _first_loud(samples: array.array[int]) -> int | None:
    for i, s in enumerate(samples):
        if s > SILENT or s < -SILENT:
            return i
    return None


def _last_loud(samples: array.array[int]) -> int:
    for i in range(len(samples) - 1, -1, -1):
        if samples[i] > SILENT or samples[i] < -SILENT:
            return i
    return 0

"""The hub's sound set: WAV files made by ``tools/make_sounds.py``, and their loader.

Every file here is 22050 Hz, 16-bit, mono PCM. Regenerate them with
``python tools/make_sounds.py`` after changing the synthesizer, and commit the result.
"""

from __future__ import annotations

import array
import sys
import wave
from pathlib import Path

RATE = 22050
SOUNDS_DIR = Path(__file__).resolve().parent


def read_wav(path: Path) -> array.array[int]:
    """The samples of a 22050 Hz 16-bit mono WAV, or ValueError/OSError saying why not."""
    try:
        with wave.open(str(path), "rb") as wav:
            shape = (wav.getnchannels(), wav.getsampwidth(), wav.getframerate())
            raw = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise ValueError(f"not a readable WAV file ({exc})") from None
    if shape != (1, 2, RATE):
        channels, width, rate = shape
        raise ValueError(
            f"{channels} channel(s), {8 * width}-bit, {rate} Hz; need mono 16-bit {RATE} Hz"
        )
    samples = array.array("h")
    samples.frombytes(raw[: len(raw) - len(raw) % 2])
    if sys.byteorder == "big":
        samples.byteswap()
    if not samples:
        raise ValueError("no audio in it")
    return samples


def load_sounds(
    known: tuple[str, ...], directory: Path = SOUNDS_DIR
) -> tuple[dict[str, array.array[int]], dict[str, str]]:
    """Every sound the hub knows (``known``: :data:`hub.io.sound.SOUND_NAMES`, the names
    the sound port plays) plus any other ``*.wav`` in ``directory``.

    Returns (samples by name, reason by name for each one that could not be loaded).
    """
    names = dict.fromkeys(known)
    names.update(dict.fromkeys(sorted(path.stem for path in directory.glob("*.wav"))))
    sounds: dict[str, array.array[int]] = {}
    bad: dict[str, str] = {}
    for name in names:
        try:
            sounds[name] = read_wav(directory / f"{name}.wav")
        except (OSError, ValueError) as exc:
            bad[name] = f"{name}.wav: {exc}"
    return sounds, bad

"""The synthesized sound set: the committed WAVs and the script that makes them."""

from __future__ import annotations

import array
import math
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from hub.io.sound import SOUND_NAMES
from hub.sounds import SOUNDS_DIR, load_sounds
from tests.helpers import made_once

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "make_sounds.py"
RATE = 22050
LIMIT = 32767 * 10 ** (-1 / 20)  # -1 dBFS
EDGE = round(0.005 * RATE)  # 5 ms


def read(path: Path) -> tuple[tuple[int, int, int], array.array]:
    with wave.open(str(path), "rb") as wav:
        shape = (wav.getnchannels(), wav.getsampwidth(), wav.getframerate())
        samples = array.array("h", wav.readframes(wav.getnframes()))
    if sys.byteorder == "big":
        samples.byteswap()
    return shape, samples


def fade_bound(i: int) -> float:
    """The loudest a sample may be ``i`` samples from either end: a 5 ms raised cosine."""
    return LIMIT * (0.5 - 0.5 * math.cos(math.pi * min(i, EDGE) / EDGE)) + 1


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> list[Path]:
    """The script run twice into fresh directories (once per test run, for every process)."""

    def make(folder: Path) -> None:
        for run in ("first", "second"):
            subprocess.run(
                [sys.executable, str(SCRIPT), "--out", str(folder / run)],
                check=True,
                capture_output=True,
            )

    folder = made_once(tmp_path_factory, "sounds", make)
    return [folder / "first", folder / "second"]


@pytest.mark.parametrize("name", SOUND_NAMES)
def test_each_sound_is_a_short_22050_hz_16_bit_mono_wav(name):
    shape, samples = read(SOUNDS_DIR / f"{name}.wav")
    assert shape == (1, 2, RATE)
    assert 0.1 < len(samples) / RATE < 1.5


@pytest.mark.parametrize("name", SOUND_NAMES)
def test_each_sound_peaks_at_minus_1_dbfs_without_clipping(name):
    _, samples = read(SOUNDS_DIR / f"{name}.wav")
    peak = max(abs(s) for s in samples)
    assert peak <= LIMIT
    assert peak >= LIMIT - 2  # normalised, not merely quiet


@pytest.mark.parametrize("name", SOUND_NAMES)
def test_each_sound_fades_in_and_out_so_it_does_not_click(name):
    _, samples = read(SOUNDS_DIR / f"{name}.wav")
    assert abs(samples[0]) <= 0.01 * 32767
    assert abs(samples[-1]) <= 0.01 * 32767
    for i in range(EDGE):
        assert abs(samples[i]) <= fade_bound(i), f"sample {i} too loud for a fade-in"
        assert abs(samples[-1 - i]) <= fade_bound(i), f"sample -{i + 1} too loud for a fade-out"


@pytest.mark.parametrize("name", SOUND_NAMES)
def test_each_sound_is_centred(name):
    _, samples = read(SOUNDS_DIR / f"{name}.wav")
    assert abs(sum(samples) / len(samples)) < 0.01 * 32767  # no DC offset to thump the speaker


def test_the_sounds_differ_from_one_another():
    contents = {(SOUNDS_DIR / f"{name}.wav").read_bytes() for name in SOUND_NAMES}
    assert len(contents) == len(SOUND_NAMES)


def test_the_loader_reads_every_sound():
    sounds, bad = load_sounds(SOUND_NAMES)
    assert bad == {}
    assert set(sounds) == set(SOUND_NAMES)


def test_the_script_is_deterministic(generated):
    first, second = generated
    names = sorted(path.name for path in first.glob("*.wav"))
    assert names == sorted(f"{name}.wav" for name in SOUND_NAMES)
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_the_committed_sounds_are_what_the_script_makes(generated):
    """Regenerate with ``python tools/make_sounds.py`` if this fails after a synth change.

    A difference of one step is allowed: another machine's libm may round a sine differently.
    """
    for name in SOUND_NAMES:
        _, fresh = read(generated[0] / f"{name}.wav")
        _, committed = read(SOUNDS_DIR / f"{name}.wav")
        assert len(fresh) == len(committed), name
        assert max(abs(a - b) for a, b in zip(fresh, committed, strict=True)) <= 1, name

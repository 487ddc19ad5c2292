#!/usr/bin/env python3
"""Synthesize the hub's sounds into ``hub/sounds/*.wav`` (standard library only).

Every sound is built here from oscillators, filtered noise and envelopes, so the
project owns its audio outright: no samples, no licences, no numpy. The output is
22050 Hz, 16-bit, mono, under 1.5 s, peak-normalised to -1 dBFS, with a raised-cosine
fade at both ends so the speaker does not click. Each sound draws its noise from its
own seeded PRNG, so running the script twice writes identical bytes.

    python tools/make_sounds.py            # writes hub/sounds/*.wav
    python tools/make_sounds.py --out DIR  # writes DIR/*.wav
"""

from __future__ import annotations

import argparse
import array
import math
import random
import sys
import wave
from collections.abc import Callable, Sequence
from pathlib import Path

RATE = 22050
PEAK = math.floor(32767 * 10 ** (-1 / 20))  # -1 dBFS, rounded down so it never exceeds it
FADE_IN_S = 0.006
FADE_OUT_S = 0.03
TAU = 2 * math.pi
OUT_DIR = Path(__file__).resolve().parents[1] / "hub" / "sounds"

Signal = list[float]
Curve = Callable[[float], float]


def frames(seconds: float) -> int:
    """Number of samples in ``seconds``."""
    return int(round(seconds * RATE))


def silence(seconds: float) -> Signal:
    """A buffer of zeros, the canvas sounds are mixed onto."""
    return [0.0] * frames(seconds)


def tone(
    seconds: float,
    freq: Curve,
    amp: Curve,
    harmonics: Sequence[tuple[int, float]] = ((1, 1.0),),
) -> Signal:
    """An oscillator whose pitch ``freq(t)`` may glide (the phase is accumulated).

    ``harmonics`` are (multiple, amplitude) pairs; ``amp(t)`` is the envelope.
    """
    out = [0.0] * frames(seconds)
    step = TAU / RATE
    phase = 0.0
    for i in range(len(out)):
        t = i / RATE
        phase += step * freq(t)
        level = amp(t)
        if level == 0.0:
            continue
        total = 0.0
        for multiple, weight in harmonics:
            total += weight * math.sin(multiple * phase)
        out[i] = total * level
    return out


def noise(seconds: float, rng: random.Random) -> Signal:
    """White noise in -1..1 from a seeded generator."""
    return [rng.uniform(-1.0, 1.0) for _ in range(frames(seconds))]


def bandpass(signal: Signal, centre: float, q: float) -> Signal:
    """RBJ biquad band-pass (0 dB peak): shapes noise into breath or grit."""
    w0 = TAU * centre / RATE
    alpha = math.sin(w0) / (2 * q)
    a0 = 1 + alpha
    b0, b2 = alpha / a0, -alpha / a0
    a1, a2 = -2 * math.cos(w0) / a0, (1 - alpha) / a0
    out = [0.0] * len(signal)
    x1 = x2 = y1 = y2 = 0.0
    for i, x0 in enumerate(signal):
        y0 = b0 * x0 + b2 * x2 - a1 * y1 - a2 * y2
        out[i] = y0
        x2, x1, y2, y1 = x1, x0, y1, y0
    return out


def shaped(signal: Signal, amp: Curve) -> Signal:
    """``signal`` multiplied by the envelope ``amp(t)``."""
    return [s * amp(i / RATE) for i, s in enumerate(signal)]


def envelope(attack: float, length: float, release: float, decay: float = 0.0) -> Curve:
    """Linear attack, optional exponential decay (time constant), linear release."""

    def gain(t: float) -> float:
        if t < 0 or t >= length:
            return 0.0
        level = min(1.0, t / attack) if attack > 0 else 1.0
        if decay > 0 and t > attack:
            level *= math.exp(-(t - attack) / decay)
        if t > length - release:
            level *= (length - t) / release
        return level

    return gain


def mix_into(canvas: Signal, part: Signal, at: float, gain: float = 1.0) -> None:
    """Add ``part`` into ``canvas`` starting ``at`` seconds in (clipped to the canvas)."""
    start = frames(at)
    for i, s in enumerate(part[: max(0, len(canvas) - start)]):
        canvas[start + i] += gain * s


def finish(signal: Signal) -> array.array:
    """Fade both ends (raised cosine), normalise the peak to -1 dBFS, quantise to int16."""
    n = len(signal)
    for length, indices in (
        (frames(FADE_IN_S), range(n)),
        (frames(FADE_OUT_S), range(n - 1, -1, -1)),
    ):
        for k, i in zip(range(length), indices, strict=False):
            signal[i] *= 0.5 - 0.5 * math.cos(math.pi * k / length)
    peak = max(abs(s) for s in signal) or 1.0
    scale = PEAK / peak
    return array.array("h", (max(-PEAK, min(PEAK, round(s * scale))) for s in signal))


def choo(rng: random.Random) -> Signal:
    """Steam whistle, short then long: an F#-A-C# chord of detuned pipes, with breath."""
    canvas = silence(1.3)
    for at, length in ((0.0, 0.38), (0.46, 0.8)):
        mix_into(canvas, whistle_blast(length, rng), at)
    return canvas


def whistle_blast(length: float, rng: random.Random) -> Signal:
    """One blast: pitch rises as steam pressure builds, droops as the valve closes."""
    env = envelope(0.04, length, 0.09)

    def glide(t: float) -> float:
        rise = 1 - 0.07 * math.exp(-t / 0.05)
        droop = 1 - 0.035 * max(0.0, (t - (length - 0.12)) / 0.12)
        wobble = 1 + 0.003 * math.sin(TAU * 5.5 * t)
        return rise * droop * wobble

    blast = silence(length)
    for note in (370.0, 440.0, 554.37):
        for detune in (0.996, 1.0045):
            pipe = tone(
                length,
                lambda t, f=note * detune: f * glide(t),
                env,
                ((1, 1.0), (2, 0.22), (3, 0.07)),
            )
            mix_into(blast, pipe, 0.0, 0.16)
    breath = bandpass(noise(length, rng), 1900.0, 0.9)
    chiff = envelope(0.01, length, 0.09)
    puff = shaped(breath, lambda t: chiff(t) * (0.35 + 0.9 * math.exp(-t / 0.06)))
    mix_into(blast, puff, 0.0, 0.4)
    return blast


def chicken(rng: random.Random) -> Signal:
    """Three clucks and a grace note, then the squawk: bok, bok, bok, ba-GAWK."""
    canvas = silence(1.2)
    for at, pitch, gain in ((0.0, 520.0, 0.7), (0.17, 500.0, 0.75), (0.31, 540.0, 0.8)):
        mix_into(canvas, cluck(pitch * rng.uniform(0.94, 1.06), rng), at, gain)
    mix_into(canvas, cluck(430.0, rng), 0.47, 0.6)
    mix_into(canvas, squawk(0.6, rng), 0.56)
    return canvas


def cluck(pitch: float, rng: random.Random) -> Signal:
    """A short throaty burst whose pitch drops fast, with a puff of grit."""
    length = 0.085
    env = envelope(0.004, length, 0.02, decay=0.028)
    voice = tone(
        length,
        lambda t: pitch * (0.62 + 0.38 * math.exp(-t / 0.025)),
        env,
        tuple((k, 1.0 / k) for k in range(1, 9)),
    )
    grit = shaped(bandpass(noise(length, rng), 1300.0, 2.0), env)
    mix_into(voice, grit, 0.0, 1.2)
    return voice


def squawk(length: float, rng: random.Random) -> Signal:
    """The indignant GAWK: a harsh, jittery voice that leaps up and sags away."""
    jitter = [1.0]
    for _ in range(frames(length)):
        jitter.append(0.995 * jitter[-1] + 0.005 + rng.uniform(-0.004, 0.004))

    def pitch(t: float) -> float:
        if t < 0.08:
            contour = 620 + 420 * t / 0.08
        else:
            contour = 1040 - 330 * max(0.0, t - 0.3) / (length - 0.3) - 100 * min(1.0, t / 0.3)
        return contour * jitter[min(len(jitter) - 1, frames(t))]

    env = envelope(0.015, length, 0.14)

    def trill(t: float) -> float:
        return env(t) * (0.75 + 0.25 * math.sin(TAU * 27.0 * t))

    voice = tone(length, pitch, trill, tuple((k, 1.0 / k**0.8) for k in range(1, 11)))
    rasp = shaped(bandpass(noise(length, rng), 2600.0, 1.5), env)
    mix_into(voice, rasp, 0.0, 1.5)
    return voice


def bell(pitch: float, length: float) -> Signal:
    """A small bell: inharmonic partials, the high ones dying first."""
    partials = ((1.0, 1.0, 0.3), (2.0, 0.4, 0.18), (2.76, 0.28, 0.11), (5.4, 0.1, 0.05))
    ring = silence(length)
    for ratio, weight, decay in partials:
        env = envelope(0.003, length, 0.04, decay=decay)
        mix_into(ring, tone(length, lambda t, f=pitch * ratio: f, env), 0.0, weight)
    return ring


def turn(rng: random.Random) -> Signal:
    """Your turn: a rising two-note chime (G5 then C6)."""
    canvas = silence(0.75)
    mix_into(canvas, bell(783.99, 0.45), 0.0, 0.8)
    mix_into(canvas, bell(1046.5, 0.62), 0.12)
    return canvas


def turn_back(rng: random.Random) -> Signal:
    """The turn went back: the same chime falling (C6 then G5), so it reads as undo."""
    canvas = silence(0.75)
    mix_into(canvas, bell(1046.5, 0.45), 0.0, 0.8)
    mix_into(canvas, bell(783.99, 0.62), 0.12)
    return canvas


def nope(rng: random.Random) -> Signal:
    """Refused: a low "uh-uh", two soft buzzes, the second lower."""
    canvas = silence(0.45)
    buzz = ((1, 1.0), (3, 0.3), (5, 0.12), (7, 0.05))
    for at, pitch in ((0.0, 233.08), (0.2, 196.0)):
        env = envelope(0.01, 0.16, 0.04)
        mix_into(canvas, tone(0.16, lambda t, f=pitch: f * (1 - 0.03 * t / 0.16), env, buzz), at)
    return canvas


def reminder(rng: random.Random) -> Signal:
    """A gentle nudge: two soft pings, the second a touch quieter."""
    canvas = silence(0.8)
    for at, gain in ((0.0, 1.0), (0.22, 0.8)):
        env = envelope(0.006, 0.5, 0.05, decay=0.16)
        ping = tone(0.5, lambda t: 880.0, env, ((1, 1.0), (2, 0.15), (3, 0.04)))
        mix_into(canvas, ping, at, gain)
    return canvas


def last_tile(rng: random.Random) -> Signal:
    """One tile left ("uno"): a tile knocked twice on the table, then a bright ping."""
    canvas = silence(0.7)
    for at, gain in ((0.0, 1.0), (0.13, 0.85)):
        mix_into(canvas, knock(rng), at, gain)
    ping = tone(
        0.4,
        lambda t: 1318.5,
        envelope(0.004, 0.4, 0.05, decay=0.12),
        ((1, 1.0), (2, 0.2), (3, 0.05)),
    )
    mix_into(canvas, ping, 0.27, 0.6)
    return canvas


def knock(rng: random.Random) -> Signal:
    """A tile's edge on a wooden table: a click of filtered noise over a short thud."""
    click = shaped(
        bandpass(noise(0.06, rng), 2400.0, 1.5), envelope(0.001, 0.06, 0.01, decay=0.008)
    )
    thud = tone(
        0.09,
        lambda t: 380.0 * (1 - 0.25 * t / 0.09),
        envelope(0.002, 0.09, 0.02, decay=0.025),
        ((1, 1.0), (2, 0.3)),
    )
    mix_into(thud, click, 0.0, 1.6)
    return thud


def out(rng: random.Random) -> Signal:
    """Went out: a brass fanfare, C-E-G pickup into a held C major chord."""
    canvas = silence(1.34)
    for at, pitch in ((0.0, 523.25), (0.12, 659.25), (0.24, 783.99)):
        mix_into(canvas, brass(pitch, 0.13, vibrato=False), at, 0.8)
    for pitch, gain in ((1046.5, 0.8), (783.99, 0.45), (659.25, 0.4), (523.25, 0.4)):
        mix_into(canvas, brass(pitch, 0.98, vibrato=True), 0.36, gain)
    return canvas


def brass(pitch: float, length: float, vibrato: bool) -> Signal:
    """A brass-like note: the upper harmonics swell in with the envelope (bright attack)."""
    env = envelope(0.025, length, min(0.2, length / 3))
    depth = 0.006 if vibrato else 0.0

    def freq(t: float) -> float:
        return pitch * (1 + depth * min(1.0, t / 0.3) * math.sin(TAU * 5.5 * t))

    body = tone(length, freq, env, ((1, 1.0), (2, 0.5), (3, 0.3)))
    edge = tone(length, freq, lambda t: env(t) ** 2, tuple((k, 0.9 / k) for k in range(4, 9)))
    mix_into(body, edge, 0.0)
    return body


SOUNDS: dict[str, Callable[[random.Random], Signal]] = {
    "choo": choo,
    "chicken": chicken,
    "turn": turn,
    "turn_back": turn_back,
    "nope": nope,
    "reminder": reminder,
    "out": out,
    "last_tile": last_tile,
}


def synthesize(name: str) -> array.array:
    """The finished int16 samples of sound ``name`` (its PRNG is seeded by its name)."""
    rng = random.Random(f"mtrain-hub:{name}")
    return finish(SOUNDS[name](rng))


def write_wav(path: Path, samples: array.array) -> None:
    """Write 22050 Hz 16-bit mono little-endian PCM."""
    pcm = array.array("h", samples)
    if sys.byteorder == "big":
        pcm.byteswap()
    with wave.open(str(path), "wb") as out_file:
        out_file.setnchannels(1)
        out_file.setsampwidth(2)
        out_file.setframerate(RATE)
        out_file.writeframes(pcm.tobytes())


def main(argv: Sequence[str] | None = None) -> int:
    """Write every sound into the output directory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="directory for the WAVs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in SOUNDS:
        samples = synthesize(name)
        write_wav(args.out / f"{name}.wav", samples)
        print(f"{name:10} {len(samples) / RATE:5.2f} s  {args.out / (name + '.wav')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

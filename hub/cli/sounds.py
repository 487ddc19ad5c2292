"""What ``mtrain-hub sounds --list``, ``mtrain-hub sounds --play NAME [--device D]`` and
``mtrain-hub sounds --say "TEXT" [--lang es] [--device D]`` do.

A maker wiring a speaker plays each sound on the chosen ALSA device to hear that it
works; ``--list`` shows what there is to play; ``--say`` speaks a sentence with the
hub's voice (espeak-ng), as the hub would say it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from hub.io.alsa_player import AlsaPlayer
from hub.io.sound import SOUND_NAMES
from hub.sounds import load_sounds
from hub.voice import engine


class SoundError(Exception):
    """A sound could not be played; the message says why, for the command line."""


def list_sounds() -> list[str]:
    """The names of the sounds that can be played (the hub's set, then any extras)."""
    sounds, _ = load_sounds(SOUND_NAMES)
    return list(sounds)


def play_sound(
    name: str, device: str = "default", volume: float = 1.0, timeout: float = 5.0
) -> None:
    """Play sound ``name`` on ALSA ``device`` and return once it has played out.

    Quiet modes do not apply: this is an explicit request. Raises :class:`SoundError`
    for an unknown sound, a device that cannot be opened, or one that fails while playing.
    """
    names = list_sounds()
    if name not in names:
        raise SoundError(f"no sound {name!r}; there are: {', '.join(names)}")
    _played(lambda player: player.play(name), device, volume, timeout)


def say(
    words: str,
    lang: str = "en",
    device: str = "default",
    volume: float = 1.0,
    timeout: float = 10.0,
) -> int:
    """Speak ``words`` in ``lang`` (``en``, ``es``) with the hub's voice on ALSA
    ``device``; return once played out, with the speech's length in frames.

    Raises :class:`SoundError` when the engine cannot say it or the device fails.
    """
    if lang not in engine.VOICES:
        raise SoundError(f"no voice for {lang!r}; there are: {', '.join(engine.VOICES)}")
    try:
        samples = engine.render(words, lang)
    except engine.EngineError as exc:
        raise SoundError(str(exc)) from None
    _played(lambda player: player.say(samples), device, volume, timeout)
    return len(samples)


def _played(
    start: Callable[[AlsaPlayer], None], device: str, volume: float, timeout: float
) -> None:
    """Open ``device``, ``start`` the sound on it, wait until it has played out."""
    player = AlsaPlayer(device=device, volume=volume, retry_s=3600.0)
    try:
        if not player.wait_ready(timeout):
            raise SoundError(f"ALSA device {device!r} did not open within {timeout:g} s")
        _raise_unless_available(player, device)
        start(player)
        if not player.wait_idle(timeout):
            raise SoundError(f"ALSA device {device!r} did not take the sound within {timeout:g} s")
        _raise_unless_available(player, device)
    finally:
        player.close()


def _raise_unless_available(player: AlsaPlayer, device: str) -> None:
    status = player.status()
    if not status["available"]:
        raise SoundError(f"ALSA device {device!r}: {status['reason']}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``sounds`` subcommand's options."""
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--list", action="store_true", help="list the sounds")
    group.add_argument("--play", metavar="NAME", help="play one sound and wait for it")
    group.add_argument("--say", metavar="TEXT", help="speak TEXT with the hub's voice")
    parser.add_argument(
        "--lang", default="en", choices=tuple(engine.VOICES), help="the voice's language"
    )
    parser.add_argument("--device", default="default", help="ALSA device (default: default)")
    parser.add_argument("--volume", type=float, default=1.0, help="0.0 to 1.0")


def command(args: argparse.Namespace) -> int:
    """Run ``mtrain-hub sounds``: 0 on success, 1 when the sound could not be played."""
    import sys

    if args.list:
        for name in list_sounds():
            print(name)
        return 0
    try:
        if args.say is not None:
            frames = say(args.say, args.lang, device=args.device, volume=args.volume)
        else:
            play_sound(args.play, device=args.device, volume=args.volume)
    except (SoundError, ValueError) as exc:
        print(f"mtrain-hub sounds: {exc}", file=sys.stderr)
        return 1
    if args.say is not None:
        print(f"said {args.say!r} ({args.lang}, {frames / engine.RATE:.2f} s) on {args.device}")
    else:
        print(f"played {args.play} on {args.device}")
    return 0

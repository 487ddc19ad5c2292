"""What ``mtrain-hub sounds --list`` and ``mtrain-hub sounds --play NAME [--device D]`` do.

A maker wiring a speaker plays each sound on the chosen ALSA device to hear that it
works; ``--list`` shows what there is to play.
"""

from __future__ import annotations

from hub.alsa_player import AlsaPlayer
from hub.sounds import load_sounds


class SoundError(Exception):
    """A sound could not be played; the message says why, for the command line."""


def list_sounds() -> list[str]:
    """The names of the sounds that can be played (the hub's set, then any extras)."""
    sounds, _ = load_sounds()
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
    player = AlsaPlayer(device=device, volume=volume, retry_s=3600.0)
    try:
        if not player.wait_ready(timeout):
            raise SoundError(f"ALSA device {device!r} did not open within {timeout:g} s")
        _raise_unless_available(player, device)
        player.play(name)
        if not player.wait_idle(timeout):
            raise SoundError(f"ALSA device {device!r} did not take the sound within {timeout:g} s")
        _raise_unless_available(player, device)
    finally:
        player.close()


def _raise_unless_available(player: AlsaPlayer, device: str) -> None:
    status = player.status()
    if not status["available"]:
        raise SoundError(f"ALSA device {device!r}: {status['reason']}")

"""Settings a person changes at the table (volume, quiet mode, turn chime, the ring's
brightness, and the players' privacy: ``remember_players``, whether a new game's
players are remembered across evenings, and ``hide_stats``, whether the players'
statistics need the scorekeeper's token or the table's proof to be read), kept
across restarts in ``settings.json`` under the state directory. The config file
gives the starting values; a change made from a phone wins over them.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from hub.io.sound import QUIET_MODES, check_quiet_mode, check_volume
from scorer.errors import FieldError
from scorer.store import StorageFault

log = logging.getLogger("hub.runtime.settings")

KEYS = ("volume", "quiet", "turn_chime", "brightness", "remember_players", "hide_stats")


class SettingsError(FieldError):
    """A setting's value is not allowed; the message names the key, and ``field`` is
    that key (None when the change as a whole is wrong)."""


def check(changes: object) -> dict[str, Any]:
    """Validate a partial settings change; raise :class:`SettingsError` naming the key."""
    if not isinstance(changes, dict) or not changes:
        raise SettingsError(f"body: expected an object with any of {', '.join(KEYS)}")
    for key, value in changes.items():
        if key not in KEYS:
            raise SettingsError(f"{key}: unknown setting (allowed: {', '.join(KEYS)})", key)
        try:
            if key in ("volume", "brightness"):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"expected a number from 0 to 1, got {value!r}")
                check_volume(float(value))
            elif key == "quiet":
                if not isinstance(value, str):
                    raise ValueError(f"expected one of {', '.join(QUIET_MODES)}, got {value!r}")
                check_quiet_mode(value)
            elif not isinstance(value, bool):
                raise ValueError(f"expected true or false, got {value!r}")
        except ValueError as exc:
            raise SettingsError(f"{key}: {exc}", key) from None
    return dict(changes)


class Settings:
    """The current settings, saved atomically to ``path`` on every change."""

    def __init__(self, path: Path, defaults: dict[str, Any]) -> None:
        self.path = path
        self.values = {k: defaults[k] for k in KEYS if k in defaults}
        self.values.update(self._read())

    def _read(self) -> dict[str, Any]:
        try:
            saved = json.loads(self.path.read_text())
            return check({k: v for k, v in saved.items() if k in KEYS})
        except FileNotFoundError:
            return {}
        except (ValueError, AttributeError) as exc:  # a damaged file: keep the defaults
            log.warning("ignoring %s: %s", self.path, exc)
            return {}

    def update(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Apply a checked change, save it, and return all settings. A disk that refuses
        the file raises :class:`~scorer.store.StorageFault` and changes nothing."""
        values = {**self.values, **check(changes)}
        tmp = self.path.with_suffix(".tmp")
        try:
            with open(tmp, "w") as f:
                json.dump(values, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            raise StorageFault(
                f"{self.path}: the settings cannot be saved ({exc.strerror or exc})"
            ) from None
        self.values = values
        return dict(self.values)

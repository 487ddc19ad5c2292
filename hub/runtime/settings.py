"""Settings a person changes at the table (volume, quiet mode, turn chime, the ring's
brightness, the voice, its language and the spellings of names for it, and the
players' privacy: ``remember_players``, whether a new game's players are remembered
across evenings, and ``hide_stats``, whether the players' statistics need the
scorekeeper's token or the table's proof to be read), kept across restarts in
``settings.json`` under the state directory. The config file gives the starting
values; a change made from a phone wins over them.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hub.io.sound import QUIET_MODES, check_quiet_mode, check_volume
from hub.voice.engine import VOICES
from hub.voice.phrases import VOICE_MODES, check_mode
from scorer.errors import FieldError, clip
from scorer.names import MAX_NAME, blank  # a player's name, as the games and the store take it
from scorer.store import StorageFault

log = logging.getLogger("hub.runtime.settings")

KEYS = (
    "volume",
    "quiet",
    "turn_chime",
    "brightness",
    "voice",
    "voice_language",
    "spoken_names",
    "remember_players",
    "hide_stats",
)
# The values a setting with a fixed set of them may take, in the page's order (the
# page builds its menus from these, served as ``choices`` by GET /api/settings).
CHOICES: dict[str, tuple[str, ...]] = {
    "quiet": QUIET_MODES,
    "voice": VOICE_MODES,
    "voice_language": tuple(VOICES),
}


def settings_view(values: dict[str, Any], sound: dict[str, Any]) -> dict[str, Any]:
    """``GET /api/settings``: the values, each menu's ``choices`` and the sound status."""
    choices = {key: list(options) for key, options in CHOICES.items()}
    return {**values, "choices": choices, "sound": sound}


MOST_SPELLINGS = 32  # spellings for the voice kept at once (a family's players)
LONGEST_SPELLING = 60
MOST_NEW_SPELLINGS = 8  # spellings one change may add or alter (each is measured: lengths.py)


class SettingsError(FieldError):
    """A setting's value is not allowed; the message names the key, and ``field`` is
    that key (None when the change as a whole is wrong)."""


def check(changes: object) -> dict[str, Any]:
    """Validate a partial settings change; raise :class:`SettingsError` naming the key."""
    if not isinstance(changes, dict) or not changes:
        raise SettingsError(
            f"body: expected an object with any of {', '.join(KEYS)}",
            code="settings_object",
            allowed=KEYS,
        )
    for key, value in changes.items():
        if key not in KEYS:
            raise SettingsError(
                f"{clip(key)}: unknown setting (allowed: {', '.join(KEYS)})",
                key,
                code="unknown_setting",
                name=key,
                allowed=KEYS,
            )
        try:
            if key in ("volume", "brightness"):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"expected a number from 0 to 1, got {value!r}")
                check_volume(float(value))
            elif key == "quiet":
                if not isinstance(value, str):
                    raise ValueError(f"expected one of {', '.join(QUIET_MODES)}, got {value!r}")
                check_quiet_mode(value)
            elif key == "voice":
                check_mode(value)
            elif key == "voice_language":
                if value not in VOICES:
                    raise ValueError(f"expected one of {', '.join(VOICES)}, got {value!r}")
            elif key == "spoken_names":
                check_spellings(value)
            elif not isinstance(value, bool):
                raise ValueError(f"expected true or false, got {value!r}")
        except FieldError:  # a refusal of its own (a name that shows nothing)
            raise
        except ValueError as exc:
            raise SettingsError(
                f"{key}: {clip(str(exc), 200)}", key, code="setting_value", name=key, value=value
            ) from None
    return dict(changes)


def check_spellings(value: object) -> dict[str, str]:
    """``{"Siobhan": "Shivawn", …}``: how the voice says a name (ValueError otherwise)."""
    if not isinstance(value, dict):
        raise ValueError('expected an object of names and spellings, like {"Siobhan": "Shivawn"}')
    if len(value) > MOST_SPELLINGS:
        raise ValueError(f"at most {MOST_SPELLINGS} names, got {len(value)}")
    for name, spelling in value.items():
        pairs = (("name", name, MAX_NAME), ("spelling", spelling, LONGEST_SPELLING))
        for what, text, most in pairs:
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{name!r}: each {what} must be some text, got {text!r}")
            if len(text) > most or not text.isprintable():
                raise ValueError(f"{name!r}: a {what} is at most {most} printable characters")
            if blank(text):
                raise SettingsError(
                    f"spoken_names: {clip(text)!r} shows nothing (only marks or spaces)",
                    "spoken_names",
                    code="name_blank",
                    name=text,
                )
    return dict(value)


class Settings:
    """The current settings, saved atomically to ``path`` on every change.

    ``check_spoken(spellings, before)``, when the composition root sets it (the voice
    exists after the settings), refuses a change whose new spelling speaks too long
    (:meth:`hub.voice.speaker.Announcer.check_spellings`)."""

    check_spoken: Callable[[Mapping[str, str], Mapping[str, str]], None] | None = None

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

    def _check_spellings(self, spellings: dict[str, str]) -> None:
        """At most :data:`MOST_NEW_SPELLINGS` new spellings at once, each one said
        briefly enough (``check_spoken``)."""
        before = self.values.get("spoken_names") or {}
        new = sum(1 for name, said in spellings.items() if before.get(name) != said)
        if new > MOST_NEW_SPELLINGS:
            raise SettingsError(
                f"spoken_names: at most {MOST_NEW_SPELLINGS} new spellings at once, got {new}",
                "spoken_names",
                code="setting_value",
                name="spoken_names",
                value=f"{new} new spellings",
            )
        if self.check_spoken is not None:
            try:
                self.check_spoken(spellings, before)
            except FieldError as exc:  # the voice's refusal, answered as a setting's
                raise SettingsError(str(exc), exc.field, code=exc.code, **exc.params) from None

    def update(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Apply a checked change, save it, and return all settings. A disk that refuses
        the file raises :class:`~scorer.store.StorageFault` and changes nothing."""
        checked = check(changes)
        if "spoken_names" in checked:
            self._check_spellings(checked["spoken_names"])
        values = {**self.values, **checked}
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

"""The hub's configuration: one TOML file, every key optional, validated with clear errors.

Precedence: command-line flags over the file over :data:`DEFAULTS`. An unknown key
or a bad value stops start-up with a :class:`ConfigError` naming the key and what
is allowed.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

from hub.core.state import Timings
from hub.io.pinmap import PinClash, boot_overlays, check_pins
from hub.io.sound import QUIET_MODES, parse_quiet_hours
from hub.voice.engine import VOICES
from hub.voice.phrases import VOICE_MODES
from scorer.profiles import DEFAULT_RULES, PROFILES, SLOTS

# The pin map (BCM numbers) of hardware/pinmap.md; I2S (18-21), I2C (2-3), the UART
# (14-15) and the ID EEPROM (0-1) stay free (hub.pinmap.RESERVED says why).
DEFAULT_BUTTON_PINS = [4, 17, 27, 22, 5, 6, 13, 26]
DEFAULT_MARKER_PINS = [23, 24, 25, 12, 16, 7, 8, 11]
DEFAULT_CENTRE_PIN = 10

# Tables and arrays inside one another a config file may hold: a section (1), a key's
# array (2) and room to spare; deeper is refused with its key, never a traceback.
MOST_NESTING = 8

DEFAULTS: dict[str, dict[str, Any]] = {
    "hub": {
        "backend": "auto",
        "hub_id": "mtrain",
        "state_dir": "state",
        "default_rules": DEFAULT_RULES,
    },
    "web": {"host": "0.0.0.0", "port": 8080, "threads": 16, "streams": 500, "hosts": []},
    # The gesture thresholds' one home is the core's Timings: these are its defaults.
    "gestures": {
        "tap_max_ms": round(Timings.tap_max * 1000),
        "long_hold_ms": round(Timings.long_hold * 1000),
        "bounce_ms": round(Timings.bounce * 1000),
        "flicker_ms": round(Timings.flicker * 1000),
        "centre_long_hold_ms": round(Timings.centre_long_hold * 1000),
        "last_tile_ms": round(Timings.last_tile * 1000),
    },
    "pins": {
        "buttons": DEFAULT_BUTTON_PINS,
        "markers": DEFAULT_MARKER_PINS,
        "centre": DEFAULT_CENTRE_PIN,
    },
    "sound": {
        "enabled": True,
        "device": "default",
        "volume": 0.8,
        "quiet": "off",
        "quiet_hours": "",
        "quiet_hours_mode": "mute",
        "voice": "turns",  # what the hub says: off, turns, all (docs/sound.md, "The voice")
        "voice_language": "en",  # en or es
    },
    # MQTT is off unless ``url`` or ``host`` names a broker (docs/mqtt.md).
    "mqtt": {
        "url": "",
        "host": "",
        "port": 1883,
        "base_topic": "mtrain",
        "keepalive": 60,
        "username": "",
        "password_file": "",
        "tls": False,
        "ca_file": "",
        "commands": False,
        "discovery": True,
        "discovery_prefix": "homeassistant",
        "scorepad_url": "",
        "outbox": 256,
    },
    "serial": {"port": "", "baud": 115200},
    "leds": {"pixels": 24, "brightness": 0.6},
    # The hub's own Wi-Fi (docs/deploy.md, "The hub's own Wi-Fi"): `mtrain-hub wifi
    # hotspot` sets portal while the hotspot is up; address is the hub's on it.
    "network": {"portal": False, "address": "10.42.0.1"},
}

BACKENDS = ("auto", "sim", "gpio", "serial")


class ConfigError(ValueError):
    """The configuration is not valid; the message names the key."""


def _check_type(key: str, value: object, default: object) -> None:
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif isinstance(default, list):
        ok = isinstance(value, list)
    else:
        ok = isinstance(value, str)
    if not ok:
        raise ConfigError(f"{key}: expected {type(default).__name__}, got {value!r}")


def _check_range(key: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise ConfigError(f"{key}: {value!r} is out of range ({low} to {high})")


def _check_choice(key: str, value: object, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        raise ConfigError(f"{key}: {value!r} is not one of {', '.join(map(str, allowed))}")


def _check_pins(pins: dict[str, Any]) -> None:
    for key in ("buttons", "markers"):
        if len(pins[key]) != len(SLOTS):
            raise ConfigError(
                f"pins.{key}: expected {len(SLOTS)} BCM pin numbers 0-27, got {pins[key]!r}"
            )
    try:
        check_pins(pins, boot_overlays())  # a Pi's overlays claim pins too
    except PinClash as exc:
        raise ConfigError(str(exc)) from None


def validate(config: dict[str, Any]) -> dict[str, Any]:
    """Check every section and key; return the config, or raise :class:`ConfigError`."""
    _check_sections(config)
    for section, values in config.items():
        for key, value in values.items():
            if (section, key) == ("mqtt", "password"):
                raise ConfigError(
                    "mqtt.password: keep the password out of the config: put it "
                    "in a file only the hub can read, named by mqtt.password_file"
                )
            if key not in DEFAULTS[section]:
                allowed = ", ".join(DEFAULTS[section])
                raise ConfigError(f"{section}.{key}: unknown key (allowed: {allowed})")
            _check_type(f"{section}.{key}", value, DEFAULTS[section][key])
    _check_values(config)
    return config


def _check_values(c: dict[str, Any]) -> None:
    _check_choice("hub.backend", c["hub"]["backend"], BACKENDS)
    if not all(isinstance(name, str) and name.strip() for name in c["web"]["hosts"]):
        raise ConfigError('web.hosts: expected names, such as ["mtrain.example"]')
    if not c["hub"]["state_dir"].strip():  # "" is the current folder: never the hub's
        raise ConfigError("hub.state_dir: empty; name the hub's own folder (default 'state')")
    _check_choice("hub.default_rules", c["hub"]["default_rules"], tuple(PROFILES))
    _check_range("web.port", c["web"]["port"], 1, 65535)
    _check_range("web.threads", c["web"]["threads"], 4, 512)
    _check_range("web.streams", c["web"]["streams"], 1, 5000)
    g = c["gestures"]
    _check_range("gestures.tap_max_ms", g["tap_max_ms"], 100, 5000)
    _check_range("gestures.long_hold_ms", g["long_hold_ms"], g["tap_max_ms"] + 1, 20000)
    _check_range("gestures.bounce_ms", g["bounce_ms"], 0, 200)
    _check_range("gestures.flicker_ms", g["flicker_ms"], 0, 2000)
    _check_range(
        "gestures.centre_long_hold_ms", g["centre_long_hold_ms"], g["tap_max_ms"] + 1, 20000
    )
    _check_range("gestures.last_tile_ms", g["last_tile_ms"], 100, 3000)
    _check_pins(c["pins"])
    _check_range("sound.volume", c["sound"]["volume"], 0.0, 1.0)
    _check_choice("sound.quiet", c["sound"]["quiet"], QUIET_MODES)
    _check_choice("sound.quiet_hours_mode", c["sound"]["quiet_hours_mode"], QUIET_MODES)
    _check_choice("sound.voice", c["sound"]["voice"], VOICE_MODES)
    _check_choice("sound.voice_language", c["sound"]["voice_language"], tuple(VOICES))
    if c["sound"]["quiet_hours"]:
        try:
            parse_quiet_hours(c["sound"]["quiet_hours"])
        except ValueError as exc:
            raise ConfigError(f"sound.quiet_hours: {exc}") from None
    _check_mqtt(c)
    _check_serial(c["serial"])
    _check_range("leds.pixels", c["leds"]["pixels"], 8, 48)
    _check_range("leds.brightness", c["leds"]["brightness"], 0.0, 1.0)
    _check_address(c["network"]["address"])


def _check_address(address: str) -> None:
    import ipaddress

    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        raise ConfigError(
            f"network.address: expected the hub's IPv4 address on its own Wi-Fi "
            f"(NetworkManager's shared default is 10.42.0.1), got {address!r}"
        ) from None


def _check_mqtt(c: dict[str, Any]) -> None:
    from hub.mqtt.settings import check_mqtt

    try:
        check_mqtt(c["hub"]["hub_id"], c["mqtt"])
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


BAUDS = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)


def _check_serial(serial: dict[str, Any]) -> None:
    port = serial["port"]
    if port and not port.startswith("/"):
        raise ConfigError(
            f"serial.port: expected a device path such as /dev/ttyACM0 or "
            f"/dev/serial/by-id/..., got {port!r} (empty: find the hub box "
            "by its USB id)"
        )
    _check_choice("serial.baud", serial["baud"], BAUDS)


def merged(overrides: dict[str, Any]) -> dict[str, Any]:
    """DEFAULTS with ``overrides`` (section → key → value) laid over them."""
    config = copy.deepcopy(DEFAULTS)
    for section, values in overrides.items():
        if section not in config or not isinstance(values, dict):
            config[section] = values
            continue
        config[section].update(values)
    return config


def load(path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Read ``path`` (if any), lay ``overrides`` over it, validate, and return the config."""
    from_file: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path, "rb") as f:
                from_file = tomllib.load(f)
        except FileNotFoundError:
            raise ConfigError(f"config file {path}: not found") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path}: not valid TOML: {exc}") from None
        except RecursionError:  # tomllib parses nesting by recursion: deeper, it fails
            raise ConfigError(
                f"config file {path}: arrays or tables nested too deeply (a hub's "
                f"config nests at most {MOST_NESTING} levels)"
            ) from None
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"config file {path}: not UTF-8 text (byte {exc.start} is "
                f"0x{exc.object[exc.start]:02x}); save it as UTF-8"
            ) from None
        except OSError as exc:
            raise ConfigError(
                f"config file {path}: cannot be read: {exc.strerror or exc}"
            ) from None
    too_deep = _too_deep(from_file)
    if too_deep is not None:
        raise ConfigError(
            f"config file {path}: {too_deep}: arrays or tables nested more than "
            f"{MOST_NESTING} levels deep (a hub's config nests at most {MOST_NESTING})"
        )
    _check_sections(from_file)
    config = merged(from_file)
    for section, values in (overrides or {}).items():
        config[section].update(values)
    return validate(config)


def _too_deep(raw: dict[str, Any]) -> str | None:
    """The first key (dotted, an array's items by index) whose value nests tables and
    arrays deeper than :data:`MOST_NESTING`, or None. Walked without recursion, so the
    checks and messages after it never meet a value too deep to print."""
    pending: list[tuple[str, Any, int]] = [(str(key), value, 1) for key, value in raw.items()]
    while pending:
        key, value, depth = pending.pop()
        if depth > MOST_NESTING:
            return key
        if isinstance(value, dict):
            pending += [(f"{key}.{k}", v, depth + 1) for k, v in value.items()]
        elif isinstance(value, list):
            pending += [(f"{key}[{i}]", v, depth + 1) for i, v in enumerate(value)]
    return None


def _check_sections(raw: dict[str, Any]) -> None:
    for section, values in raw.items():
        if section not in DEFAULTS:
            raise ConfigError(f"[{section}]: unknown section (allowed: {', '.join(DEFAULTS)})")
        if not isinstance(values, dict):
            raise ConfigError(f"[{section}]: expected a table of keys, got {values!r}")


def hotspot_url(network: dict[str, Any], port: int) -> str:
    """The hub's page at its address on its own Wi-Fi (``[network] address``)."""
    return f"http://{network['address']}{'' if port == 80 else f':{port}'}/"


def portal_url(network: dict[str, Any], port: int) -> str:
    """Where the captive portal sends a phone: :func:`hotspot_url`, or "" while
    ``[network] portal`` is off."""
    return hotspot_url(network, port) if network["portal"] else ""


def timings(config: dict[str, Any]) -> Timings:
    """The core's gesture timings (seconds) from the config's milliseconds."""

    g = config["gestures"]
    return Timings(
        tap_max=g["tap_max_ms"] / 1000,
        long_hold=g["long_hold_ms"] / 1000,
        bounce=g["bounce_ms"] / 1000,
        flicker=g["flicker_ms"] / 1000,
        centre_long_hold=g["centre_long_hold_ms"] / 1000,
        last_tile=g["last_tile_ms"] / 1000,
    )

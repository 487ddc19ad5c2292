"""``mtrain-hub selftest --check``: what can be checked with nobody at the hub.

The config, the pins (free of clashes, and free to claim: not held by a running hub),
the sound device, the serial link to the Pico (hello and version), the MQTT broker
when one is configured (a TCP connect and an MQTT CONNECT), the state folder. Each
check returns a :class:`Check` naming the part; the command's exit status is 0 only
when none failed (a part that is not configured is skipped, not failed).
"""

from __future__ import annotations

import os
import socket
import ssl
import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hub.io.pinmap import PinClash, boot_overlays, check_pins
from hub.runtime.config import ConfigError, load

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``status`` PASS, FAIL or SKIP, the ``part`` and what was found."""

    part: str
    status: str
    detail: str


def check_config(
    path: str | None, overrides: dict[str, Any]
) -> tuple[Check, dict[str, Any] | None]:
    """The config file loads and validates (the config's own errors name the key)."""
    where = path or "the defaults (no --config)"
    try:
        config = load(path, overrides)
    except ConfigError as exc:
        return Check("config", FAIL, str(exc)), None
    return Check("config", PASS, f"{where}: valid"), config


def check_pin_map(config: dict[str, Any], backend: str) -> Check:
    """No input pin clashes with audio, the console, the ID EEPROM or another input."""
    if backend == "serial":
        return Check("pins", SKIP, "the Pico reads the inputs (serial backend)")
    try:
        uses = check_pins(config["pins"], boot_overlays())
    except PinClash as exc:
        return Check("pins", FAIL, str(exc))
    return Check(
        "pins",
        PASS,
        f"{len(uses)} inputs on their own BCM pins, none clashing "
        "with I2S audio, the serial console or the ID EEPROM",
    )


def check_pins_free(config: dict[str, Any], backend: str, factory: Any) -> Check:
    """Every input pin can be claimed now (a running hub service holds them)."""
    if backend == "serial":
        return Check("pins free", SKIP, "the Pico reads the inputs (serial backend)")
    from hub.io.pins import claim_pins

    busy = claim_pins(factory, [use.pin for use in _uses(config)])
    if busy:
        names = {use.pin: use.part for use in _uses(config)}
        pin, reason = busy[0]
        more = f" (and {len(busy) - 1} more)" if len(busy) > 1 else ""
        return Check(
            "pins free",
            FAIL,
            f"BCM {pin} ({names[pin]}) cannot be claimed: "
            f"{reason}{more}; is the hub running? sudo systemctl stop mtrain-hub",
        )
    return Check("pins free", PASS, f"all {len(_uses(config))} input pins claimed and released")


def _uses(config: dict[str, Any]) -> list[Any]:
    from hub.io.pinmap import pin_uses

    return pin_uses(config["pins"])


def check_voice(config: dict[str, Any], render: Callable[[str, str], Any] | None = None) -> Check:
    """The voice's engine (espeak-ng) says a test sentence in the configured language."""
    sound = config["sound"]
    if not sound["enabled"] or sound["voice"] == "off":
        return Check("voice", SKIP, 'the voice is off in the config ([sound] voice = "off")')
    from hub.voice import engine

    lang = sound["voice_language"]
    words = "Test" if lang == "en" else "Prueba"
    try:
        samples = (render or engine.render)(words, lang)
    except engine.EngineError as exc:
        return Check("voice", FAIL, str(exc))
    seconds = len(samples) / engine.RATE
    return Check("voice", PASS, f"{engine.voice_for(lang)}: {words!r} is {seconds:.2f} s of speech")


def check_sound(config: dict[str, Any], open_player: Callable[[str], Any] | None = None) -> Check:
    """The configured ALSA device opens (no sound is played)."""
    sound = config["sound"]
    if not sound["enabled"]:
        return Check("sound device", SKIP, "sound is disabled in the config")
    device = sound["device"]
    try:
        if open_player is None:
            from hub.io.alsa_player import AlsaPlayer

            def open_player(name: str) -> Any:
                return AlsaPlayer(device=name, retry_s=3600.0)

        player = open_player(device)
    except ImportError as exc:
        return Check(
            "sound device",
            FAIL,
            f"the ALSA player cannot load ({exc}): pip install '.[sound]' (needs libasound2-dev)",
        )
    try:
        player.wait_ready(5.0)
        status = player.status()
    finally:
        player.close()
    if not status["available"]:
        return Check("sound device", FAIL, f"ALSA device {device!r}: {status['reason']}")
    return Check("sound device", PASS, f"ALSA device {device!r} opens")


def check_state_dir(config: dict[str, Any]) -> Check:
    """The state folder exists (or can be made) and takes a file, synced to disk."""
    folder = Path(config["hub"]["state_dir"])
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".selftest-") as f:
            f.write(b"mtrain-hub selftest\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        return Check("state folder", FAIL, f"{folder}: {exc.strerror or exc}")
    return Check("state folder", PASS, f"{folder.resolve()}: writable")


def _mqtt_connect_packet(client_id: str, username: str, password: str) -> bytes:
    """An MQTT 3.1.1 CONNECT (clean session, 10 s keepalive)."""

    def text(s: str) -> bytes:
        raw = s.encode()
        return struct.pack("!H", len(raw)) + raw

    flags = 0x02 | (0x80 if username else 0) | (0x40 if password else 0)
    body = text("MQTT") + bytes([4, flags]) + struct.pack("!H", 10) + text(client_id)
    body += (text(username) if username else b"") + (text(password) if password else b"")
    length, encoded = len(body), b""
    while True:
        byte, length = length % 128, length // 128
        encoded += bytes([byte | (0x80 if length else 0)])
        if not length:
            return b"\x10" + encoded + body


CONNACK_REASONS = {
    1: "unacceptable protocol version",
    2: "client id refused",
    3: "server unavailable",
    4: "bad user name or password",
    5: "not authorised",
}


def check_broker(config: dict[str, Any], timeout: float = 5.0) -> Check:
    """When a broker is configured: it accepts a TCP connection and an MQTT CONNECT."""
    from hub.mqtt import settings as mqtt_settings

    if not mqtt_settings.enabled(config):
        return Check("broker", SKIP, "no broker configured ([mqtt] host or url)")
    try:
        s = mqtt_settings.settings(config)
    except ValueError as exc:
        return Check("broker", FAIL, str(exc))
    where = f"{s.host}:{s.port}"
    try:
        with socket.create_connection((s.host, s.port), timeout=timeout) as raw:
            conn: socket.socket = raw
            if s.tls:
                context = ssl.create_default_context(cafile=s.ca_file or None)
                conn = context.wrap_socket(raw, server_hostname=s.host)
            conn.sendall(_mqtt_connect_packet(f"{s.hub_id}-selftest", s.username, s.password))
            reply = conn.recv(4)
            conn.sendall(b"\xe0\x00")  # DISCONNECT
    except (OSError, ssl.SSLError) as exc:
        return Check("broker", FAIL, f"{where}: {exc}")
    if len(reply) < 4 or reply[0] != 0x20:
        return Check("broker", FAIL, f"{where}: answered {reply!r}, not an MQTT CONNACK")
    if reply[3] != 0:
        reason = CONNACK_REASONS.get(reply[3], f"code {reply[3]}")
        return Check("broker", FAIL, f"{where}: refused the connection: {reason}")
    return Check("broker", PASS, f"{where}: accepts an MQTT connection")


def report(checks: list[Check]) -> str:
    """The checks as a table for the terminal, and a last line with the count."""
    width = max(len(c.part) for c in checks)
    lines = [f"{c.status}  {c.part.ljust(width)}  {c.detail}" for c in checks]
    failed = sum(1 for c in checks if c.status == FAIL)
    lines.append("all checks passed" if not failed else f"{failed} check(s) failed")
    return "\n".join(lines)

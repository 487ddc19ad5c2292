"""Commands that arrive over MQTT (``<root>/cmd/...``), each checked like an HTTP body.

Only when ``[mqtt] commands = true``; the broker's ACL decides who may publish them
(docs/mqtt.md, "Trust"). :func:`parse` turns a topic and payload into a
:class:`Command` or raises :class:`CommandError` naming what is wrong; nothing is
changed then. :class:`HubCommands` carries a checked command out.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hub.core.events import CENTRE
from hub.runtime.settings import SettingsError, check
from scorer.profiles import SLOTS

MAX_HOLD_MS = 10_000
NAMES = (
    "settings",
    "volume",
    "quiet",
    "turn_chime",
    "undo",
    "sim/slot/<n>/press",
    "sim/slot/<n>/marker",
    "sim/centre/press",
)


class CommandError(ValueError):
    """A command that is not allowed: the message names the command and what is wrong."""


@dataclass(frozen=True)
class Command:
    """A checked command: ``name`` and its arguments."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


def _json(name: str, payload: bytes) -> object:
    try:
        return json.loads(payload.decode() or "null")
    except (ValueError, UnicodeDecodeError):
        raise CommandError(f"cmd/{name}: not valid JSON") from None


def _text(payload: bytes) -> str:
    try:
        return payload.decode().strip()
    except UnicodeDecodeError:
        return ""


def _settings(name: str, changes: object) -> Command:
    try:
        return Command("settings", {"changes": check(changes)})
    except SettingsError as exc:
        raise CommandError(f"cmd/{name}: {exc}") from None


def _on_off(name: str, payload: bytes) -> bool:
    text = _text(payload).upper()
    if text in ("ON", "TRUE", "1"):
        return True
    if text in ("OFF", "FALSE", "0"):
        return False
    raise CommandError(f"cmd/{name}: expected ON or OFF, got {_text(payload)!r}")


def _hold(name: str, payload: bytes) -> float:
    body = _json(name, payload) if payload.strip() else {}
    if not isinstance(body, dict) or set(body) - {"hold_ms"}:
        raise CommandError(f'cmd/{name}: expected {{"hold_ms": N}}')
    hold = body.get("hold_ms", 0)
    if isinstance(hold, bool) or not isinstance(hold, int) or not 0 <= hold <= MAX_HOLD_MS:
        raise CommandError(
            f"cmd/{name}: hold_ms: expected a whole number of milliseconds, 0 to {MAX_HOLD_MS}"
        )
    return hold / 1000


def _sim(name: str, parts: list[str], payload: bytes) -> Command:
    if parts == ["centre", "press"]:
        return Command("sim-press", {"slot": CENTRE, "hold_s": _hold(name, payload)})
    if len(parts) == 3 and parts[0] == "slot" and parts[2] in ("press", "marker"):
        if not parts[1].isdigit() or int(parts[1]) not in SLOTS:
            raise CommandError(
                f"cmd/{name}: slot {parts[1]!r}: there are slots {SLOTS[0]} to {SLOTS[-1]}"
            )
        slot = int(parts[1])
        if parts[2] == "press":
            return Command("sim-press", {"slot": slot, "hold_s": _hold(name, payload)})
        text = _text(payload)
        body = _json(name, payload) if text.startswith("{") else {"present": _on_off(name, payload)}
        if (
            not isinstance(body, dict)
            or set(body) != {"present"}
            or not isinstance(body["present"], bool)
        ):
            raise CommandError(f'cmd/{name}: expected {{"present": true}} or ON/OFF')
        return Command("sim-marker", {"slot": slot, "present": body["present"]})
    raise CommandError(f"cmd/{name}: unknown command (allowed: {', '.join(NAMES)})")


def parse(name: str, payload: bytes) -> Command:
    """The command ``cmd/<name>`` with ``payload``, checked; :class:`CommandError` if not."""
    if name == "settings":
        return _settings(name, _json(name, payload))
    if name == "volume":
        try:
            volume: object = float(_text(payload))
        except ValueError:
            volume = _text(payload)
        return _settings(name, {"volume": volume})
    if name == "quiet":
        return _settings(name, {"quiet": _text(payload)})
    if name == "turn_chime":
        return Command("settings", {"changes": {"turn_chime": _on_off(name, payload)}})
    if name == "undo":
        return Command("undo")
    parts = name.split("/")
    if parts[0] == "sim":
        return _sim(name, parts[1:], payload)
    raise CommandError(f"cmd/{name}: unknown command (allowed: {', '.join(NAMES)})")


class SimInputs(Protocol):
    """The simulated pins (``hub.io.pins.SimPins``) as the commands use them."""

    def button(self, slot: int, pressed: bool) -> None:
        """Press or release a slot's button (slot 0: the centre button)."""

    def marker(self, slot: int, present: bool) -> None:
        """Put a marker on a slot's sensor or take it off."""


class HubCommands:
    """Carries checked commands out on the hub: settings, undo, simulated inputs."""

    def __init__(
        self,
        apply_settings: Callable[[dict[str, Any]], object],
        undo: Callable[[str], object],
        sim: SimInputs | None,
    ) -> None:
        self.apply_settings = apply_settings
        self.undo = undo
        self.sim = sim

    def run(self, command: Command) -> None:
        """Carry ``command`` out; :class:`CommandError` when this hub cannot."""
        if command.name == "settings":
            self.apply_settings(command.args["changes"])
        elif command.name == "undo":
            self.undo("mqtt")  # the core's UndoRequested(by="mqtt"), as the centre's long hold
        elif command.name == "sim-press":
            self._press(command.args["slot"], command.args["hold_s"])
        elif command.name == "sim-marker":
            self._simulated().marker(command.args["slot"], command.args["present"])

    def _simulated(self) -> SimInputs:
        if self.sim is None:
            raise CommandError("cmd/sim: this hub's inputs are not simulated (backend sim only)")
        return self.sim

    def _press(self, slot: int, hold_s: float) -> None:
        sim = self._simulated()
        try:
            sim.button(slot, True)
        except ValueError as exc:  # the centre button has no pin
            raise CommandError(f"cmd/sim/centre/press: {exc}") from None
        _later(hold_s, sim.button, slot, False)


def _later(delay_s: float, fn: Callable[..., None], *args: object) -> None:
    """Release on a timer: a long hold never holds up the publisher or the exit."""
    timer = threading.Timer(delay_s, fn, args)
    timer.daemon = True
    timer.start()

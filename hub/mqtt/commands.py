"""Commands that arrive over MQTT (``<root>/cmd/...``), each checked like an HTTP body.

Only when ``[mqtt] commands = true``; the broker's ACL decides who may publish them
(docs/mqtt.md, "Trust"). :func:`parse` turns a topic and payload into a
:class:`Command` or raises :class:`CommandError` (a refusal with its code, as the HTTP
API's: ``scorer.errors``) naming what is wrong; nothing is changed then; the log line
starts with the code. A JSON payload is read as an HTTP body is
(``scorer.inputs.parse_body``: nesting, number sizes, no key twice) and may carry an
``"id"``: a command whose id was seen among the last :data:`IDS_KEPT` is a duplicate
and does nothing (:class:`SeenIds`). :class:`HubCommands` carries a checked command out.
A settings change is checked by the settings' own check, handed in by the composition
root (:func:`hub.runtime.settings.check`): this room sits below the runtime.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hub.core.events import CENTRE
from scorer.errors import FieldError, clip
from scorer.inputs import BadInput, parse_body
from scorer.profiles import SLOTS

MAX_HOLD_MS = 10_000
MAX_ID = 64  # characters of a command's id
IDS_KEPT = 256  # the newest command ids remembered, to tell a repeat
MOST_HELD = 16  # simulated presses waiting for their release at once
COMMANDS_PER_S = 20  # commands carried out a second; more are dropped (and counted)
LOG_WINDOW_S = 10.0  # a kind of warning is logged at most once this often
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


class CommandError(FieldError):
    """A command that is not allowed: ``code`` and ``params`` say what is wrong (the
    HTTP API's codes), the message names the command too (for the log)."""

    @classmethod
    def because(cls, name: str, exc: FieldError) -> CommandError:
        """The refusal ``exc`` of command ``cmd/<name>``."""
        words = f"cmd/{clip(name)}: {exc}".replace("body: ", "")
        return cls(words, exc.field, code=exc.code, **exc.params)


@dataclass(frozen=True)
class Command:
    """A checked command: ``name`` and its arguments."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | None = None  # the sender's id of this command, to tell a repeat


def _json(name: str, payload: bytes) -> dict[str, Any]:
    """The JSON object in ``payload``, read as an HTTP body is, without its ``id``."""
    try:
        payload.decode()
    except UnicodeDecodeError:
        raise CommandError(f"cmd/{name}: not valid JSON", code="not_json") from None
    if payload.strip()[:1] not in (b"{", b""):
        raise CommandError(f"cmd/{name}: expected an object", code="not_an_object")
    try:
        body = parse_body(payload)
    except BadInput as exc:
        raise CommandError.because(name, exc) from None
    body.pop("id", None)
    return body


def command_id(name: str, payload: bytes) -> str | None:
    """The ``"id"`` of a JSON-object payload, or None (no id, or not an object)."""
    if payload.strip()[:1] != b"{":
        return None
    try:
        found = parse_body(payload).get("id")
    except BadInput:
        return None  # parse() names what is wrong
    if found is None:
        return None
    if not isinstance(found, str) or not 0 < len(found) <= MAX_ID:
        raise CommandError(
            f"cmd/{name}: id: expected text of 1 to {MAX_ID} characters",
            "id",
            code="command_id",
            most=MAX_ID,
        )
    return found


class QuietLog:
    """Warnings to ``log``, each kind at most once per ``window_s`` with a count of the
    ones held back, so a flood of bad commands gives a few lines, not thousands."""

    def __init__(
        self, log: logging.Logger, clock: Callable[[], float], window_s: float = LOG_WINDOW_S
    ) -> None:
        self.log, self.clock, self.window_s = log, clock, window_s
        self._held: dict[str, list[float]] = {}  # kind -> [until, count held back]

    def warn(self, kind: str, message: str) -> None:
        """Log ``message`` unless one of ``kind`` was logged less than a window ago."""
        now = self.clock()
        held = self._held.get(kind)
        if held is not None and now < held[0]:
            held[1] += 1
            return
        more = f" ({held[1]:g} more like it held back)" if held and held[1] else ""
        self._held[kind] = [now + self.window_s, 0]
        self.log.warning("mqtt: %s%s", message, more)


class Rate:
    """At most ``per_s`` admitted in any one-second window (a fixed window: cheap)."""

    def __init__(self, clock: Callable[[], float], per_s: int = COMMANDS_PER_S) -> None:
        self.clock, self.per_s = clock, per_s
        self._window, self._count = -1, 0

    def admit(self) -> bool:
        """True, and counted, if this second has room."""
        window = int(self.clock())
        if window != self._window:
            self._window, self._count = window, 0
        self._count += 1
        return self._count <= self.per_s


class SeenIds:
    """The newest :data:`IDS_KEPT` command ids: a command whose id is among them is a
    repeat (a resend, or a retained copy that slipped through) and does nothing."""

    def __init__(self, kept: int = IDS_KEPT) -> None:
        self.kept = kept
        self._ids: dict[str, None] = {}

    def first_time(self, command_id: str | None) -> bool:
        """True (and remembered) unless ``command_id`` was seen; None is always new."""
        if command_id is None:
            return True
        if command_id in self._ids:
            return False
        self._ids[command_id] = None
        if len(self._ids) > self.kept:
            del self._ids[next(iter(self._ids))]
        return True


def _text(payload: bytes) -> str:
    try:
        return payload.decode().strip()
    except UnicodeDecodeError:
        return ""


CheckSettings = Callable[[object], dict[str, Any]]  # a change checked, or a FieldError


def _settings(name: str, changes: object, check: CheckSettings) -> Command:
    try:
        return Command("settings", {"changes": check(changes)})
    except FieldError as exc:  # the settings' SettingsError names the field and code
        raise CommandError.because(name, exc) from None


def _on_off(name: str, payload: bytes) -> bool:
    text = _text(payload).upper()
    if text in ("ON", "TRUE", "1"):
        return True
    if text in ("OFF", "FALSE", "0"):
        return False
    raise CommandError(
        f"cmd/{name}: expected ON or OFF, got {clip(_text(payload))!r}",
        code="on_or_off",
        value=_text(payload),
    )


def _hold(name: str, payload: bytes) -> float:
    body = _json(name, payload) if payload.strip() else {}
    if not isinstance(body, dict) or set(body) - {"hold_ms"}:
        raise CommandError(f'cmd/{name}: expected {{"hold_ms": N}}', code="hold_object")
    hold = body.get("hold_ms", 0)
    if isinstance(hold, bool) or not isinstance(hold, int) or not 0 <= hold <= MAX_HOLD_MS:
        raise CommandError(
            f"cmd/{name}: hold_ms: expected a whole number of milliseconds, 0 to {MAX_HOLD_MS}",
            "hold_ms",
            code="hold_ms",
            most=MAX_HOLD_MS,
        )
    return hold / 1000


def _sim(name: str, parts: list[str], payload: bytes) -> Command:
    if parts == ["centre", "press"]:
        return Command("sim-press", {"slot": CENTRE, "hold_s": _hold(name, payload)})
    if len(parts) == 3 and parts[0] == "slot" and parts[2] in ("press", "marker"):
        digits = parts[1].isascii() and parts[1].isdigit() and len(parts[1]) <= 2
        if not digits or int(parts[1]) not in SLOTS:
            slots = f"there are slots {SLOTS[0]} to {SLOTS[-1]}"
            raise CommandError(
                f"cmd/{clip(name)}: slot {clip(parts[1], 20)!r}: {slots}",
                code="no_such_slot",
                slot=clip(parts[1], 20),
                last=SLOTS[-1],
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
            raise CommandError(
                f'cmd/{name}: expected {{"present": true}} or ON/OFF', code="marker_body"
            )
        return Command("sim-marker", {"slot": slot, "present": body["present"]})
    raise _unknown(name)


def _unknown(name: str) -> CommandError:
    allowed = ", ".join(NAMES)
    why = f"cmd/{clip(name)}: unknown command (allowed: {allowed})"
    return CommandError(why, code="unknown_command", name=name, allowed=NAMES)


def parse(name: str, payload: bytes, check: CheckSettings) -> Command:
    """The command ``cmd/<name>`` with ``payload``, checked (a settings change by
    ``check``); :class:`CommandError` if not."""
    found = command_id(name, payload)
    command = _parse(name, payload, check)
    return Command(command.name, command.args, found)


def _parse(name: str, payload: bytes, check: CheckSettings) -> Command:
    if name == "settings":
        return _settings(name, _json(name, payload), check)
    if name == "volume":
        try:
            volume: object = float(_text(payload))
        except ValueError:
            volume = _text(payload)
        return _settings(name, {"volume": volume}, check)
    if name == "quiet":
        return _settings(name, {"quiet": _text(payload)}, check)
    if name == "turn_chime":
        return Command("settings", {"changes": {"turn_chime": _on_off(name, payload)}})
    if name == "undo":
        return Command("undo")
    parts = name.split("/")
    if parts[0] == "sim":
        return _sim(name, parts[1:], payload)
    raise _unknown(name)


class SimInputs(Protocol):
    """The simulated pins (``hub.io.pins.SimPins``) as the commands use them."""

    def button(self, slot: int, pressed: bool, at: float | None = None) -> None:
        """Press or release a slot's button (slot 0: the centre button), the edge
        stamped ``at`` (default: now)."""

    def now(self) -> float:
        """What an edge made now is stamped."""

    def marker(self, slot: int, present: bool) -> None:
        """Put a marker on a slot's sensor or take it off."""


class HubCommands:
    """Checks commands (:meth:`parse`, a settings change by ``check_settings``) and
    carries them out on the hub: settings, undo, simulated inputs."""

    def __init__(
        self,
        apply_settings: Callable[[dict[str, Any]], object],
        undo: Callable[[str], object],
        sim: SimInputs | None,
        check_settings: CheckSettings,
    ) -> None:
        self.check_settings = check_settings
        self.apply_settings = apply_settings
        self.undo = undo
        self.sim = sim
        self._held = threading.BoundedSemaphore(MOST_HELD)  # presses waiting for release

    def parse(self, name: str, payload: bytes) -> Command:
        """The command ``cmd/<name>`` with ``payload``, checked (:func:`parse`)."""
        return parse(name, payload, self.check_settings)

    def run(self, command: Command) -> None:
        """Carry ``command`` out; :class:`CommandError` when this hub cannot."""
        if command.name == "settings":
            try:  # refused when applied too: a spelling the voice says too long
                self.apply_settings(command.args["changes"])
            except FieldError as exc:
                raise CommandError.because(command.name, exc) from None
        elif command.name == "undo":
            self.undo("mqtt")  # the core's UndoRequested(by="mqtt"), as the centre's long hold
        elif command.name == "sim-press":
            self._press(command.args["slot"], command.args["hold_s"])
        elif command.name == "sim-marker":
            self._simulated().marker(command.args["slot"], command.args["present"])

    def _simulated(self) -> SimInputs:
        if self.sim is None:
            raise CommandError(
                "cmd/sim: this hub's inputs are not simulated (backend sim only)",
                code="not_simulated",
                backend="",
            )
        return self.sim

    def _press(self, slot: int, hold_s: float) -> None:
        sim = self._simulated()
        if not self._held.acquire(blocking=False):  # a flood: bounded threads, not 923
            raise CommandError(
                f"cmd/sim: {MOST_HELD} presses are held already",
                code="presses_held",
                count=MOST_HELD,
            )
        try:
            pressed_at = sim.now()
            sim.button(slot, True, at=pressed_at)
        except ValueError as exc:  # the centre button has no pin
            self._held.release()
            why = f"cmd/sim/centre/press: {exc}"
            raise CommandError(why, code="no_centre_pin") from None
        _later(hold_s, self._release, sim, slot, pressed_at + hold_s)

    def _release(self, sim: SimInputs, slot: int, at: float) -> None:
        try:  # stamped when the finger meant it, however late the timer runs
            sim.button(slot, False, at=at)
        finally:
            self._held.release()


def _later(delay_s: float, fn: Callable[..., None], *args: object) -> None:
    """Release on a timer: a long hold never holds up the publisher or the exit."""
    timer = threading.Timer(delay_s, fn, args)
    timer.daemon = True
    timer.start()

"""What the lights say (docs/serial.md, "The ring"): the table's state drawn on the ring.

Each slot owns an arc of the ring (24 pixels: 3 a slot, clockwise from slot 1). The
middle of the arc is the owner's colour, breathing while it is their turn (or they
must cover an open double); the ends are amber while the train is public, red and
blinking while a double is open on it. A refused press flashes the slot red once;
a finished round chases round the ring in the winner's colour; no game is a dim white
idle. Brightness comes from the settings, dimmed further in the quiet hours.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime, time
from typing import Any, Protocol

from hub.io.leds import BLINK, BREATHE, CHASE, EFFECTS, STEADY, LedDriver, Pixel
from hub.io.sound import in_quiet_hours
from scorer.profiles import SLOTS

# The players' colours, by their place in the game, and the Mexican Train's: their one
# home. The page shows the same ones (app.css ``--c0`` … ``--c7`` and ``--mex`` of its
# dark scheme, and of its light scheme the same hues darkened to be read on white):
# tests/arch/test_facts.py holds app.css to these.
PLAYER_COLOURS = [
    (0x5A, 0xAE, 0xEA),
    (0xFF, 0x8A, 0x4C),
    (0x2F, 0xC5, 0x9A),
    (0xE8, 0x95, 0xC6),
    (0xE6, 0xA8, 0x17),
    (0x8E, 0xCF, 0xF2),
    (0xD0, 0x8A, 0x5C),
    (0xB0, 0xB0, 0xB0),
]
MEXICAN = (0x3E, 0xCF, 0x7E)
AMBER = (0xFF, 0x9A, 0x00)
RED = (0xFF, 0x00, 0x10)
WHITE = (0xFF, 0xFF, 0xFF)
IDLE = (0x30, 0x30, 0x2C)
QUIET_FACTOR = 0.25
FLASH_S = 0.25

Rgb = tuple[int, int, int]


def arc(slot: int, count: int) -> range:
    """The pixels of ``slot``'s arc on a ring of ``count`` (an arc a slot, clockwise)."""
    slots = len(SLOTS)
    return range((slot - 1) * count // slots, slot * count // slots)


def render(snapshot: dict[str, Any], count: int, flash: Sequence[int] = ()) -> list[Pixel]:
    """The ring for ``snapshot`` (GET /api/state's), at full brightness; a slot waiting
    for a scorekeeper claim's chord (that slot and the centre held together) blinks
    white over everything."""
    ring = _table_ring(snapshot, count, flash)
    for claim in snapshot.get("claims") or []:
        for p in arc(claim["slot"], count):
            ring[p] = (*WHITE, BLINK)
    return ring


def _table_ring(snapshot: dict[str, Any], count: int, flash: Sequence[int]) -> list[Pixel]:
    game = snapshot.get("game")
    if game is None or game["phase"] == "finished":
        return [(*IDLE, STEADY)] * count
    if game["phase"] == "round-over":
        winner = _owner_colour(game, snapshot.get("went_out")) or WHITE
        return [(*winner, CHASE)] * count
    ring: list[Pixel] = [(0, 0, 0, STEADY)] * count
    doubles = snapshot.get("doubles") or []
    open_on = {d["slot"] for d in doubles}
    responsible = {d["responsible"] for d in doubles if not d.get("queued")}
    for entry in snapshot["slots"]:
        slot = entry["slot"]
        pixels = list(arc(slot, count))
        if not pixels:
            continue
        colour = _owner_colour(game, entry["owner"])
        ends = pixels if len(pixels) < 3 else [pixels[0], pixels[-1]]
        middle = [p for p in pixels if p not in ends] or pixels[:1]
        if slot in open_on:
            for p in ends:
                ring[p] = (*RED, BLINK)
        elif entry["public"]:
            for p in ends:
                ring[p] = (*AMBER, STEADY)
        if colour is not None:
            breathing = slot == snapshot.get("turn") or slot in responsible
            for p in middle:
                ring[p] = (*colour, BREATHE if breathing else STEADY)
        if slot in flash:
            for p in pixels:
                ring[p] = (*RED, STEADY)
    return ring


def _owner_colour(game: dict[str, Any], owner: object) -> Rgb | None:
    if owner == "mexican":
        return MEXICAN
    if owner in game.get("players", ()):
        players: list[str] = game["players"]
        return PLAYER_COLOURS[players.index(str(owner)) % len(PLAYER_COLOURS)]
    return None


def dim(pixels: list[Pixel], level: float) -> list[Pixel]:
    """``pixels`` at ``level`` (0-1) brightness."""
    return [(round(r * level), round(g * level), round(b * level), e) for r, g, b, e in pixels]


def hex_colours(pixels: list[Pixel]) -> list[str]:
    """Each pixel's colour as ``rrggbb``."""
    return [f"{r:02x}{g:02x}{b:02x}" for r, g, b, _ in pixels]


class Palette:
    """Each full-brightness pixel at one level, dimmed and as ``rrggbb``, worked out once.

    A ring has a handful of distinct pixels (a colour per player, amber, red, dark),
    so a redraw on the loop thread looks them up instead of rounding 72 channels and
    formatting 24 strings each time; a new level starts a new palette.
    """

    def __init__(self, level: float) -> None:
        self.level = level
        self._known: dict[Pixel, tuple[Pixel, str]] = {}

    def shade(self, pixels: list[Pixel]) -> tuple[list[Pixel], list[str]]:
        """``pixels`` dimmed to the level, and their colours as ``rrggbb``."""
        known = self._known
        shaded = [known.get(p) or self._learn(p) for p in pixels]
        return [d for d, _ in shaded], [h for _, h in shaded]

    def _learn(self, pixel: Pixel) -> tuple[Pixel, str]:
        (dimmed,) = dim([pixel], self.level)
        if len(self._known) > 256:  # an override may bring any colours: stay bounded
            self._known.clear()
        self._known[pixel] = entry = (dimmed, hex_colours([dimmed])[0])
        return entry


class Cancellable(Protocol):
    """A call scheduled for later (:class:`hub.runtime.timers.TimedCall`)."""

    def cancel(self) -> None:
        """Do not make the call (nothing happens once it was made)."""


class Scheduler(Protocol):
    """Runs a call later on a thread of its own (the hub's :class:`hub.runtime.timers.Timers`)."""

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> Cancellable:
        """Run ``fn()`` in ``delay_s`` seconds."""


class RingLights:
    """Keeps the ring in step with the table.

    The loop draws it into each snapshot (:meth:`draw`, one of the loop's ``views``, on
    the loop thread, right after the event's sounds went out): its pixels join the
    snapshot of that same change, one ``state`` per change. What changes the ring by
    itself (a refused press's flash and its end, the brightness, the self-test's
    lights) is shown at once and calls ``changed()`` (the loop's ``refresh``: the ring
    is drawn into a new snapshot). The flash ends on the hub's timers
    (``later``); the serial link's refresh reads the ring from its own thread, so its
    state sits behind a lock."""

    def __init__(
        self,
        driver: LedDriver,
        *,
        later: Scheduler,
        pixels: int = 24,
        brightness: float = 0.6,
        quiet_hours: tuple[time, time] | None = None,
        wall: Callable[[], datetime] = datetime.now,
        changed: Callable[[], None] | None = None,
    ) -> None:
        self.driver = driver
        self.count = pixels
        self.brightness = brightness
        self.quiet_hours = quiet_hours
        self.wall = wall
        self._later = later
        self._changed = changed
        self._snapshot: dict[str, Any] = {"game": None}
        self._flash: tuple[int, ...] = ()
        self._flash_end: Cancellable | None = None
        self._flashes = 0  # the flashes so far: an end that comes late ends only its own
        self._lock = threading.RLock()
        self._override: list[Pixel] | None = None
        self._palette = Palette(self.level())

    def override(self, pixels: list[Pixel] | None) -> None:
        """Show ``pixels`` instead of the table (the self-test's lights); None: the
        table again. The serial link's refresh sends the override too."""
        with self._lock:
            self._override = None if pixels is None else list(pixels)
        self._change()

    def level(self) -> float:
        """The brightness now: the setting, dimmed in the quiet hours."""
        quiet = self.quiet_hours is not None and in_quiet_hours(self.quiet_hours, self.wall())
        return self.brightness * (QUIET_FACTOR if quiet else 1.0)

    def pixels(self, count: int | None = None) -> list[Pixel]:
        """The ring as it should be shown now, on ``count`` pixels."""
        return self._shaded(count)[0]

    def _shaded(self, count: int | None = None) -> tuple[list[Pixel], list[str]]:
        with self._lock:
            full = (
                self._override
                if self._override is not None
                else render(self._snapshot, count or self.count, self._flash)
            )
            level = self.level()
            if level != self._palette.level:
                self._palette = Palette(level)
            return self._palette.shade(full)

    def draw(self, snapshot: dict[str, Any]) -> dict[str, object]:
        """The table is ``snapshot``: show it on the ring; the ring as the snapshot
        tells the page (``pixels`` as ``"rrggbb"``, each one's ``effects``)."""
        with self._lock:
            self._snapshot = snapshot
            return self.redraw()

    def set_brightness(self, brightness: float) -> None:
        """A new brightness from the settings."""
        with self._lock:
            self.brightness = brightness
        self._change()

    def refused(self, slot: int) -> None:
        """The core refused a press on ``slot`` (:class:`hub.core.effects.PressRefused`):
        flash it red once (a later refusal keeps its own whole flash). The centre
        (``CENTRE``) has no arc of its own: nothing."""
        if slot not in SLOTS:
            return
        with self._lock:
            self._flash = (slot,)
            self._flashes += 1
            number = self._flashes
            if self._flash_end is not None:
                self._flash_end.cancel()
            self._flash_end = self._later.call_later(FLASH_S, lambda: self._end_flash(number))
        self._change()

    def _end_flash(self, number: int) -> None:
        """Flash ``number`` is over (the timers' thread): unless a later one began."""
        with self._lock:
            if number != self._flashes:
                return
            self._flash = ()
            self._flash_end = None
        self._change()

    def _change(self) -> None:
        """The ring changed by itself: shown at once, and drawn into a new snapshot."""
        self.redraw()
        if self._changed is not None:
            self._changed()

    def redraw(self) -> dict[str, object]:
        """Send the ring to the driver; the ring as the snapshot tells the page."""
        with self._lock:
            pixels, colours = self._shaded()
            self.driver.show(pixels)
            return {"pixels": colours, "effects": [EFFECTS[p[3]] for p in pixels]}

"""What the lights say (DESIGN.md): the table's state drawn on the ring.

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
from typing import Any

from hub.core.effects import Effect, LogEntry, PlaySound
from hub.io.leds import BLINK, BREATHE, CHASE, EFFECTS, STEADY, LedDriver, Pixel
from hub.io.sound import in_quiet_hours

# The page's player colours (web/static), so a phone and the ring agree.
PLAYER_COLOURS = [(0x00, 0x72, 0xB2), (0xD5, 0x5E, 0x00), (0x00, 0x9E, 0x73),
                  (0xCC, 0x79, 0xA7), (0xE6, 0x9F, 0x00), (0x56, 0xB4, 0xE9),
                  (0xA0, 0x52, 0x2D), (0x7F, 0x7F, 0x7F)]
MEXICAN = (0x0B, 0x9A, 0x3B)
AMBER = (0xFF, 0x9A, 0x00)
RED = (0xFF, 0x00, 0x10)
WHITE = (0xFF, 0xFF, 0xFF)
IDLE = (0x30, 0x30, 0x2C)
QUIET_FACTOR = 0.25
FLASH_S = 0.25
PLAYING = ("first-turn", "play")

Rgb = tuple[int, int, int]


def arc(slot: int, count: int) -> range:
    """The pixels of ``slot``'s arc on a ring of ``count``."""
    return range((slot - 1) * count // 8, slot * count // 8)


def render(snapshot: dict[str, Any], count: int, flash: Sequence[int] = ()) -> list[Pixel]:
    """The ring for ``snapshot`` (GET /api/state's), at full brightness; a slot waiting
    for a scorekeeper claim's press blinks white over everything."""
    ring = _table_ring(snapshot, count, flash)
    claim = snapshot.get("claim")
    if claim:
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
    responsible = {d["responsible"] for d in doubles}
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


class RingLights:
    """Keeps the ring in step with the table. Called on the loop thread
    (:meth:`table_changed`, :meth:`take`); the flash timer and the serial link's
    refresh read it from theirs, so its state sits behind a lock."""

    def __init__(self, driver: LedDriver, *, pixels: int = 24, brightness: float = 0.6,
                 quiet_hours: tuple[time, time] | None = None,
                 wall: Callable[[], datetime] = datetime.now,
                 publish: Callable[[dict[str, object]], None] | None = None) -> None:
        self.driver = driver
        self.count = pixels
        self.brightness = brightness
        self.quiet_hours = quiet_hours
        self.wall = wall
        self.publish = publish
        self._snapshot: dict[str, Any] = {"game": None}
        self._flash: tuple[int, ...] = ()
        self._lock = threading.RLock()
        self._published: dict[str, object] | None = None
        self._override: list[Pixel] | None = None

    def override(self, pixels: list[Pixel] | None) -> None:
        """Show ``pixels`` instead of the table (the self-test's lights); None: the
        table again. The serial link's refresh sends the override too."""
        with self._lock:
            self._override = None if pixels is None else list(pixels)
        self.redraw()

    def level(self) -> float:
        """The brightness now: the setting, dimmed in the quiet hours."""
        quiet = self.quiet_hours is not None and in_quiet_hours(self.quiet_hours, self.wall())
        return self.brightness * (QUIET_FACTOR if quiet else 1.0)

    def pixels(self, count: int | None = None) -> list[Pixel]:
        """The ring as it should be shown now, on ``count`` pixels."""
        with self._lock:
            if self._override is not None:
                return dim(self._override, self.level())
            full = render(self._snapshot, count or self.count, self._flash)
            return dim(full, self.level())

    def table_changed(self, snapshot: dict[str, Any]) -> None:
        """The table changed: redraw."""
        with self._lock:
            self._snapshot = snapshot
        self.redraw()

    def set_brightness(self, brightness: float) -> None:
        """A new brightness from the settings."""
        with self._lock:
            self.brightness = brightness
        self.redraw()

    def take(self, effects: list[Effect]) -> None:
        """Effects of one event: a refused press (``nope``) flashes its slot."""
        if not any(isinstance(e, PlaySound) and e.name == "nope" for e in effects):
            return
        slots = [dict(e.fields).get("slot") for e in effects if isinstance(e, LogEntry)]
        slot = next((s for s in slots if isinstance(s, int) and 1 <= s <= 8), None)
        if slot is None:  # the centre button has no arc of its own
            return
        with self._lock:
            self._flash = (slot,)
        self.redraw()
        timer = threading.Timer(FLASH_S, self._end_flash)
        timer.daemon = True
        timer.start()

    def _end_flash(self) -> None:
        with self._lock:
            self._flash = ()
        self.redraw()

    def redraw(self) -> None:
        """Send the ring to the driver, and tell the page when it changed."""
        with self._lock:
            pixels = self.pixels()
            self.driver.show(pixels)
            shown: dict[str, object] = {
                "connected": self.driver.connected(), "pixels": hex_colours(pixels),
                "effects": [EFFECTS[p[3]] for p in pixels]}
            if shown != self._published and self.publish is not None:
                self._published = shown
                self.publish(shown)

    def connection_changed(self) -> None:
        """The controller came or went: tell the page."""
        with self._lock:
            self._published = None
        self.redraw()

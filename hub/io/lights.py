"""What the lights say (docs/serial.md, "The ring"): the table's state drawn on the ring.

Each slot owns an arc of the ring (24 pixels: 3 a slot, clockwise from slot 1). The
middle of the arc is the owner's colour, breathing while it is their turn (or they
must cover an open double); the ends are amber while the train is public, red and
blinking while a double is open on it. A refused press flashes the slot red once;
a finished round chases round the ring in the winner's colour; no game is a dim white
idle. Brightness comes from the settings, dimmed further in the quiet hours.
"""

from __future__ import annotations

import logging
import threading
import time as monotonic_clock
from collections.abc import Callable, Sequence
from datetime import datetime, time
from typing import Any

from hub.io.leds import BLINK, BREATHE, CHASE, EFFECTS, STEADY, LedDriver, Pixel
from hub.io.sound import in_quiet_hours
from scorer.profiles import SLOTS

# The players' colours, by their place in the game, and the Mexican Train's: their one
# home. The page shows the same ones (app.css ``--c0`` … ``--c7`` and ``--mex`` of its
# dark scheme, and of its light scheme the same hues darkened to be read on white):
# tests/test_facts.py holds app.css to these.
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

log = logging.getLogger("hub.io.lights")


def arc(slot: int, count: int) -> range:
    """The pixels of ``slot``'s arc on a ring of ``count`` (an arc a slot, clockwise)."""
    slots = len(SLOTS)
    return range((slot - 1) * count // slots, slot * count // slots)


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


class Deadline:
    """Calls ``due()`` on a thread of its own once the deadline last set has passed.

    The thread starts at the first :meth:`set` and then waits on a condition between
    deadlines: setting one (from the loop thread) only notifies it, and a later
    deadline replaces an earlier one, so a second refused press keeps its own flash.
    After ``linger_s`` without a deadline the thread ends (a hub that stops leaves none).
    """

    def __init__(self, due: Callable[[], None], name: str, linger_s: float = 30.0) -> None:
        self.linger_s = linger_s
        self._due = due
        self._name = name
        self._cond = threading.Condition()
        self._at: float | None = None
        self._thread: threading.Thread | None = None

    def set(self, delay: float) -> None:
        """Call ``due()`` ``delay`` seconds from now (instead of any earlier deadline)."""
        with self._cond:
            self._at = monotonic_clock.monotonic() + delay
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._at is None and not self._cond.wait_for(
                    lambda: self._at is not None, self.linger_s
                ):
                    self._thread = None  # idle a while: the next deadline starts another
                    return
                assert self._at is not None
                left = self._at - monotonic_clock.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                self._at = None
            try:
                self._due()
            except Exception:  # a failed redraw must not end the thread
                log.exception("%s failed", self._name)


class RingLights:
    """Keeps the ring in step with the table. Called on the loop thread
    (:meth:`table_changed`, :meth:`refused`); the flash's end (:class:`Deadline`) and the
    serial link's refresh read it from theirs, so its state sits behind a lock.

    The ring is drawn on the loop thread, right after the event's sounds went out, so
    its pixels join the snapshot of that same change: one ``state`` per change (drawn
    on a thread of its own, each change would announce a second snapshot)."""

    def __init__(
        self,
        driver: LedDriver,
        *,
        pixels: int = 24,
        brightness: float = 0.6,
        quiet_hours: tuple[time, time] | None = None,
        wall: Callable[[], datetime] = datetime.now,
        publish: Callable[[dict[str, object]], None] | None = None,
    ) -> None:
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
        self._palette = Palette(self.level())
        self._flash_end = Deadline(self._end_flash, "ring-flash")

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

    def refused(self, slot: int) -> None:
        """The core refused a press on ``slot`` (:class:`hub.core.effects.PressRefused`):
        flash it red once. The centre (``CENTRE``) has no arc of its own: nothing."""
        if slot not in SLOTS:
            return
        with self._lock:
            self._flash = (slot,)
        self.redraw()
        self._flash_end.set(FLASH_S)

    def _end_flash(self) -> None:
        with self._lock:
            self._flash = ()
        self.redraw()

    def redraw(self) -> None:
        """Send the ring to the driver, and tell the page when it changed."""
        with self._lock:
            pixels, colours = self._shaded()
            self.driver.show(pixels)
            shown: dict[str, object] = {
                "connected": self.driver.connected(),
                "pixels": colours,
                "effects": [EFFECTS[p[3]] for p in pixels],
            }
            if shown != self._published and self.publish is not None:
                self._published = shown
                self.publish(shown)

    def connection_changed(self) -> None:
        """The controller came or went: tell the page."""
        with self._lock:
            self._published = None
        self.redraw()

#!/usr/bin/env python3
"""Draw the hub's wiring diagrams from the default config's pin map (standard library only).

``hardware/layout.svg`` shows the hub from above with each slot's pins;
``hardware/wiring.svg`` is the default build (the Pi reads the inputs and plays the
sound; the Pico drives the ring); ``hardware/wiring-usb.svg`` is the "hub box on USB"
build (the Pico reads everything). Pin numbers come from :mod:`hub.runtime.config` (the Pi's)
and :mod:`hub.io.pinmap` (the header and the Pico's), so the drawing cannot drift from
the config: ``tests/deploy/test_hardware_files.py`` redraws them and compares.

    python tools/make_wiring.py           # writes hardware/wiring.svg, wiring-usb.svg, layout.svg
    python tools/make_wiring.py --out DIR
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import tomllib
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from hub.io.pinmap import (  # noqa: E402
    AMPLIFIER_PINS,
    GP_TO_PICO_PIN,
    HEADER,
    PICO_HEADER,
    PICO_PINS,
    RING_PIXELS,
    pin_uses,
)
from hub.runtime.config import DEFAULTS  # noqa: E402

with open(ROOT / "hardware" / "parts.toml", "rb") as _f:
    PARTS = tomllib.load(_f)["part"]
HALL = PARTS["hall"]  # the marker sensor: its rail and supply range label the drawings
HALL_SUPPLY = f"{HALL['supply'][0]:g}-{HALL['supply'][1]:g} V"

INK, GREY, RED, BLUE, GREEN, AMBER = "#222", "#888", "#c0392b", "#1f5fa8", "#2e7d32", "#b36b00"
POWER_PINS = ("GND", "3V3", "5V", "VBUS", "VSYS", "3V3(OUT)")
FONT = "font-family:DejaVu Sans,Arial,sans-serif"


class Svg:
    """A tiny SVG writer: shapes and text appended in order, serialised once."""

    def __init__(self, width: int, height: int, title: str) -> None:
        self.width, self.height = width, height
        self.items: list[str] = []
        self.text(width / 2, 34, title, size=22, anchor="middle", weight="bold")

    def line(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        colour: str = INK,
        width: float = 2.0,
        dash: str = "",
    ) -> None:
        """A straight wire."""
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.items.append(
            f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" '
            f'stroke="{colour}" stroke-width="{width:g}"{extra}/>'
        )

    def wire(self, points: list[tuple[float, float]], colour: str = INK) -> None:
        """A wire through several points."""
        path = " ".join(f"{x:g},{y:g}" for x, y in points)
        self.items.append(
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
        )

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str = "#fff",
        stroke: str = INK,
        radius: float = 4,
    ) -> None:
        """A box: a board, a chip or a panel."""
        self.items.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
            f'rx="{radius:g}" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        )

    def circle(self, x: float, y: float, r: float, fill: str = "#fff", stroke: str = INK) -> None:
        """A pin, a node or a ring."""
        self.items.append(
            f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="1.5"/>'
        )

    def text(
        self,
        x: float,
        y: float,
        words: str,
        size: float = 12,
        anchor: str = "start",
        colour: str = INK,
        weight: str = "normal",
    ) -> None:
        """A label."""
        self.items.append(
            f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" '
            f'text-anchor="{anchor}" fill="{colour}" font-weight="{weight}" '
            f'style="{FONT}">{escape(words)}</text>'
        )

    def render(self) -> str:
        """The whole document."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
            f'height="{self.height}" viewBox="0 0 {self.width} {self.height}">\n'
            f'<rect width="100%" height="100%" fill="#fff"/>\n'
        )
        return head + "\n".join(self.items) + "\n</svg>\n"


def net_colour(name: str) -> str:
    """Red for 5 V, amber for 3V3, blue for ground, ink for signals."""
    if "5V" in name or name in ("VBUS", "VSYS"):
        return RED
    if "3V3" in name:
        return AMBER
    return BLUE if name == "GND" else INK


def header_block(
    svg: Svg,
    x: float,
    y: float,
    pins: dict[int, int | str],
    name: str,
    prefix: str,
    roles: dict[int | str, str],
) -> dict[int, tuple[float, float]]:
    """A 2-column pin header; returns each physical pin's position. Used pins are labelled."""
    pitch = 26
    svg.rect(x, y, 60, pitch * 20 + 16, fill="#e8f0e0")
    svg.text(x + 30, y - 10, name, size=15, anchor="middle", weight="bold")
    spots: dict[int, tuple[float, float]] = {}
    for pin, what in pins.items():
        left = pin % 2 == 1 if prefix == "BCM" else pin <= 20
        row = (pin - 1) // 2 if prefix == "BCM" else (pin - 1 if pin <= 20 else 40 - pin)
        px, py = (x + 15 if left else x + 45), y + 20 + row * pitch
        spots[pin] = (px, py)
        label = f"{prefix} {what}" if isinstance(what, int) else what
        role = roles.get(what, "")
        used = bool(role) or what in POWER_PINS
        svg.circle(px, py, 6, fill=net_colour(str(what)) if used else "#fff")
        svg.text(
            px + (-12 if left else 12),
            py + 4,
            str(pin),
            size=9,
            anchor="end" if left else "start",
            colour=GREY,
        )
        text = f"{label}  {role}" if left else f"{role}  {label}"
        svg.text(
            px + (-34 if left else 34),
            py + 4,
            text.strip(),
            size=11,
            anchor="end" if left else "start",
            colour=INK if used else GREY,
            weight="bold" if role else "normal",
        )
    return spots


def pi_roles(pins: dict[str, Any]) -> dict[int | str, str]:
    """What each BCM pin does in the default build."""
    roles: dict[int | str, str] = {}
    for use in pin_uses(pins):
        roles[use.pin] = use.part.replace("marker sensor", "hall sensor")
    for signal, bcm in AMPLIFIER_PINS.items():
        roles[bcm] = f"amplifier {signal}"
    return roles


def button(svg: Svg, x: float, y: float, net: str, name: str) -> None:
    """A push button from ``net`` to ground."""
    svg.text(x - 6, y + 4, net, size=11, anchor="end", weight="bold")
    svg.line(x, y, x + 30, y)
    svg.circle(x + 30, y, 3, fill=INK)
    svg.line(x + 30, y, x + 56, y - 10)
    svg.line(x + 43, y - 5, x + 43, y - 14)
    svg.line(x + 35, y - 14, x + 51, y - 14)
    svg.circle(x + 60, y, 3, fill=INK)
    svg.line(x + 60, y, x + 90, y, colour=BLUE)
    svg.text(x + 94, y + 4, "GND", size=11, colour=BLUE)
    svg.text(x + 45, y + 16, name, size=10, anchor="middle", colour=GREY)


def hall(svg: Svg, x: float, y: float, net: str, name: str, supply: str) -> None:
    """A 3-pin hall-effect switch: supply, ground, open-drain output to ``net``."""
    svg.rect(x + 40, y - 14, 44, 28, fill="#f3f3f3")
    svg.text(x + 62, y + 4, "hall", size=10, anchor="middle")
    svg.text(x - 6, y + 4, net, size=11, anchor="end", weight="bold")
    svg.line(x, y, x + 40, y)
    svg.line(x + 84, y - 8, x + 110, y - 8, colour=net_colour(supply))
    svg.text(x + 114, y - 4, supply, size=10, colour=net_colour(supply))
    svg.line(x + 84, y + 8, x + 110, y + 8, colour=BLUE)
    svg.text(x + 114, y + 12, "GND", size=10, colour=BLUE)
    svg.text(x - 6, y + 16, name, size=10, anchor="end", colour=GREY)


def inputs_panel(
    svg: Svg, x: float, y: float, pins: dict[str, Any], prefix: str, supply: str
) -> float:
    """Every slot's button and hall sensor, and the centre button, each with its socket on
    the hub board (J1 ...); returns the bottom."""
    import make_board  # tools/make_board.py: it borrows this module's Svg

    jack = {s.what: s.name for s in make_board.bm.sockets(DEFAULTS["pins"])}
    svg.text(x, y, "Buttons (active low: pin to GND)", size=14, weight="bold")
    svg.text(x + 270, y, "Hall sensors under the slots (magnet = low)", size=14, weight="bold")
    for i, (b, m) in enumerate(zip(pins["buttons"], pins["markers"], strict=True)):
        row, slot = y + 34 + i * 40, f"slot {i + 1}"
        button(svg, x + 60, row, f"{prefix} {b}", f"{slot} · {jack[slot + ' button']}")
        hall(svg, x + 330, row, f"{prefix} {m}", f"{slot} · {jack[slot + ' hall sensor']}", supply)
    bottom = y + 34 + 8 * 40
    button(svg, x + 60, bottom, f"{prefix} {pins['centre']}", f"centre · {jack['centre button']}")
    return bottom + 20


def ring_panel(svg: Svg, x: float, y: float, data_pin: str, supply: str) -> None:
    """The Pico's data pin, the 74AHCT125 level shifter, 330 R, 1000 uF and the ring."""
    svg.text(x, y, f"LED ring ({RING_PIXELS} x WS2812B, 3 per slot)", size=14, weight="bold")
    top = y + 30
    svg.text(x, top + 44, data_pin, size=11, weight="bold")
    svg.line(x + 70, top + 40, x + 110, top + 40)
    svg.rect(x + 110, top, 120, 110, fill="#f3f3f3")
    svg.text(x + 170, top + 18, "74AHCT125", size=12, anchor="middle", weight="bold")
    for dy, label in ((40, "1A (2)"), (70, "1OE (1)"), (95, "GND (7)")):
        svg.text(x + 116, top + dy + 4, label, size=10)
    svg.text(x + 224, top + 44, "1Y (3)", size=10, anchor="end")
    svg.text(x + 224, top + 74, "VCC (14)", size=10, anchor="end")
    svg.wire(
        [(x + 110, top + 70), (x + 90, top + 70), (x + 90, top + 95), (x + 110, top + 95)],
        colour=BLUE,
    )
    svg.text(x + 86, top + 86, "GND", size=10, anchor="end", colour=BLUE)
    svg.line(x + 230, top + 70, x + 270, top + 70, colour=RED)
    svg.text(x + 274, top + 74, f"{supply} (+100 nF to GND)", size=10, colour=RED)
    svg.line(x + 230, top + 40, x + 280, top + 40)
    svg.rect(x + 280, top + 32, 50, 16, fill="#fff")
    svg.text(x + 305, top + 44, "330 Ω", size=10, anchor="middle")
    svg.line(x + 330, top + 40, x + 400, top + 40)
    cx, cy = x + 470, top + 60
    svg.circle(cx, cy, 58, fill="none", stroke=GREEN)
    svg.circle(cx, cy, 42, fill="none", stroke=GREEN)
    svg.text(cx, cy + 4, "ring", size=12, anchor="middle", colour=GREEN)
    svg.text(x + 404, top + 36, "DIN", size=10)
    svg.line(x + 360, top + 120, x + 420, top + 120, colour=RED)
    svg.text(x + 356, top + 124, supply, size=10, anchor="end", colour=RED)
    svg.line(x + 360, top + 150, x + 420, top + 150, colour=BLUE)
    svg.text(x + 356, top + 154, "GND", size=10, anchor="end", colour=BLUE)
    svg.text(x + 424, top + 124, "ring 5V", size=10)
    svg.text(x + 424, top + 154, "ring GND", size=10)
    svg.line(x + 380, top + 120, x + 380, top + 130, colour=RED)
    svg.line(x + 370, top + 130, x + 390, top + 130)
    svg.line(x + 370, top + 138, x + 390, top + 138)
    svg.line(x + 380, top + 138, x + 380, top + 150, colour=BLUE)
    svg.text(x + 300, top + 140, "1000 µF", size=10, anchor="end")


def amplifier_panel(svg: Svg, x: float, y: float) -> None:
    """The MAX98357A on the Pi's I2S pins, and its speaker."""
    svg.text(x, y, "Sound (I2S)", size=14, weight="bold")
    svg.rect(x + 110, y + 16, 120, 150, fill="#f3f3f3")
    svg.text(x + 170, y + 34, "MAX98357A", size=12, anchor="middle", weight="bold")
    nets = [(f"BCM {bcm}", signal) for signal, bcm in AMPLIFIER_PINS.items()]
    nets += [("5V", "VIN"), ("GND", "GND")]
    for i, (net, signal) in enumerate(nets):
        row = y + 56 + i * 22
        svg.text(x + 40, row + 4, net, size=11, anchor="end", weight="bold", colour=net_colour(net))
        svg.line(x + 46, row, x + 110, row, colour=net_colour(net))
        svg.text(x + 116, row + 4, signal, size=10)
    svg.text(x + 224, y + 100, "+  -", size=10, anchor="end")
    svg.line(x + 230, y + 90, x + 270, y + 90)
    svg.line(x + 230, y + 110, x + 270, y + 110)
    svg.rect(x + 270, y + 80, 16, 40, fill="#fff")
    svg.wire([(x + 286, y + 80), (x + 306, y + 62), (x + 306, y + 138), (x + 286, y + 120)])
    svg.text(x + 278, y + 150, "speaker 8 Ω", size=10, anchor="middle")


def power_panel(svg: Svg, x: float, y: float, lines: list[str]) -> None:
    """How power reaches every part, in words beside a supply box."""
    svg.text(x, y, "Power", size=14, weight="bold")
    for i, line in enumerate(lines):
        svg.text(x, y + 24 + i * 18, line, size=11, colour=RED if "5V" in line else INK)


def default_build(pins: dict[str, Any]) -> str:
    """The default build: Pi Zero 2 W header, inputs, amplifier, Pico with the ring, power."""
    svg = Svg(1500, 1340, "Mexican Train hub: wiring of the default build (Pi Zero 2 W + Pico)")
    header_block(svg, 330, 90, HEADER, "Pi Zero 2 W header (BCM)", "BCM", pi_roles(pins))
    inputs_panel(svg, 780, 90, pins, "BCM", HALL["rail"])
    amplifier_panel(svg, 60, 660)
    svg.rect(470, 700, 150, 70, fill="#e8f0e0")
    svg.text(545, 728, "Raspberry Pi Pico", size=12, anchor="middle", weight="bold")
    svg.text(545, 748, "USB to the Zero's USB port", size=10, anchor="middle")
    svg.text(
        545,
        762,
        f"GP{PICO_PINS['ring']} (pin {GP_TO_PICO_PIN[PICO_PINS['ring']]}) → ring",
        size=10,
        anchor="middle",
    )
    ring_panel(svg, 780, 580, f"Pico GP{PICO_PINS['ring']}", "5V")
    power_panel(
        svg,
        60,
        880,
        [
            "5.1 V 2.5 A supply → the Zero's PWR IN (micro USB).",
            f"{HALL['rail']} from header pin 2/4 → amplifier VIN, ring 5V, 74AHCT125 VCC, "
            f"hall sensors VCC (they run on {HALL_SUPPLY}).",
            "74AHCT125: unused inputs 2A, 3A, 4A and enables 2OE, 3OE, 4OE to GND.",
            "The Pico is powered by its USB cable from the Zero's USB (data) port.",
            "Every GND joins: header GND, Pico GND, amplifier, shifter, ring, sensors, buttons.",
            "Inputs use the Pi's internal pull-ups: no resistors. "
            "I2S, UART and ID EEPROM pins stay free.",
        ],
    )
    hub_board_panel(svg, 60, 1050)
    return svg.render()


def usb_build() -> str:
    """The hub box on USB: the Pico reads every input and drives the ring."""
    svg = Svg(
        1500, 1210, "Mexican Train hub: wiring of the hub box on USB (the Pico reads everything)"
    )
    roles: dict[int | str, str] = {}
    pico = {
        "buttons": PICO_PINS["buttons"],
        "markers": PICO_PINS["markers"],
        "centre": PICO_PINS["centre"],
    }
    for use in pin_uses(pico):
        roles[use.pin] = use.part.replace("marker sensor", "hall sensor")
    roles[PICO_PINS["ring"]] = "ring data (via 74AHCT125)"
    header_block(svg, 330, 90, PICO_HEADER, "Raspberry Pi Pico (GP)", "GP", roles)
    inputs_panel(svg, 780, 90, pico, "GP", "VBUS")
    ring_panel(svg, 780, 580, f"GP{PICO_PINS['ring']}", "VBUS")
    power_panel(
        svg,
        60,
        700,
        [
            "One USB cable to the computer powers the box: 500 mA, so keep the ring dim.",
            f"VBUS (pin 40, 5V) → ring 5V, 74AHCT125 VCC, hall sensors VCC ({HALL_SUPPLY}).",
            "74AHCT125: unused inputs 2A, 3A, 4A and enables 2OE, 3OE, 4OE to GND.",
            "Every GND joins: Pico GND, shifter, ring, sensors, buttons.",
            "Inputs use the Pico's internal pull-ups: no resistors. Sound plays on the computer.",
        ],
    )
    hub_board_panel(svg, 60, 910)
    return svg.render()


def hub_board_panel(svg: Svg, x: float, y: float) -> None:
    """The hub board in one box (its layout: hub-board.svg) and the plugs of its sockets,
    with the A3144's legs named (tools/make_board.py draws both)."""
    import make_board  # tools/make_board.py: it borrows this module's Svg

    svg.rect(x, y - 22, 1380, 292, fill="none", stroke=GREY)
    svg.text(
        x + 10,
        y,
        "Hub board (hardware/hub-board.svg): the shifter, the 5V and GND buses, 18 sockets "
        "J1-J18; every socket 1 GND, 2 5V (button sockets: no pin, their key), 3 signal",
        size=12,
        weight="bold",
    )
    make_board.plugs_panel(svg, x + 10, y + 28)


def polar(cx: float, cy: float, angle: float, r: float, across: float = 0.0) -> tuple[float, float]:
    """The point ``r`` out from the centre along ``angle`` (SVG's y points down),
    moved ``across`` at right angles."""
    ux, uy = math.cos(angle), -math.sin(angle)
    return cx + ux * r - uy * across, cy + uy * r + ux * across


def layout(pins: dict[str, Any]) -> str:
    """The hub from above: slot n's domino slot, marker seat and button with their pins."""
    svg = Svg(760, 800, "The hub from above: slots clockwise from 12 o'clock")
    cx, cy, rim = 380.0, 420.0, 300.0
    svg.circle(cx, cy, rim, fill="#f7f7f2")
    svg.circle(cx, cy, 102, fill="none", stroke=GREEN)
    svg.circle(cx, cy, 77, fill="none", stroke=GREEN)
    svg.circle(cx, cy, 17, fill="#ddd")
    svg.text(cx, cy + 4, f"BCM {pins['centre']}", size=10, anchor="middle", weight="bold")
    svg.text(cx, cy + 34, "centre button", size=10, anchor="middle")
    svg.text(cx, cy - 60, f"LED ring, {RING_PIXELS} pixels", size=10, anchor="middle", colour=GREEN)
    count = len(pins["buttons"])
    for i, (b, m) in enumerate(zip(pins["buttons"], pins["markers"], strict=True)):
        at = functools.partial(polar, cx, cy, math.radians(90 - i * 360 / count))
        corners = [at(r, w) for r, w in ((220, -40), (300, -40), (300, 40), (220, 40))]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
        svg.items.append(
            f'<polygon points="{path}" fill="#fff" stroke="{INK}" stroke-width="1.5"/>'
        )
        x, y = at(262)
        svg.text(x, y + 5, f"slot {i + 1}", size=13, anchor="middle", weight="bold")
        x, y = at(180)
        svg.circle(x, y, 21, fill="#fff", stroke=AMBER)
        svg.text(x, y + 4, f"BCM {m}", size=9, anchor="middle")
        x, y = at(128)
        svg.circle(x, y, 15, fill="#ddd")
        svg.text(x, y + 4, f"BCM {b}", size=9, anchor="middle", weight="bold")
    svg.text(
        20,
        760,
        "white: domino slot (open to the rim)   amber: marker seat, hall sensor "
        "below   grey: button",
        size=12,
    )
    svg.text(
        20,
        780,
        "Pixels 1-3 sit at slot 1 (the ring's DIN), then clockwise. Schematic, not to scale.",
        size=12,
    )
    return svg.render()


def write(out: Path) -> list[Path]:
    """Write the diagrams into ``out``; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "wiring.svg": default_build(DEFAULTS["pins"]),
        "wiring-usb.svg": usb_build(),
        "layout.svg": layout(DEFAULTS["pins"]),
    }
    written = []
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--out DIR`` (default ``hardware/``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "hardware")
    args = parser.parse_args(argv)
    for path in write(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

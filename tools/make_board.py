#!/usr/bin/env python3
"""Draw the hub board from the pin map: ``hardware/hub-board.svg`` (standard library only).

The layout and its checks are :mod:`board_model` (the netlist from :mod:`hub.io.pinmap` and
the config's pins, the perfboard's parts, runs and wires); this script draws it seen from
the parts' side, the underside's runs and wires as if the board were glass, every socket
with its position 1 and pin order, the plugs that go into them (the A3144's legs named),
and a table of the sockets. ``tests/deploy/test_hub_board.py`` redraws it and compares.
``make hardware`` runs it; ``tools/make_wiring.py`` borrows :func:`plugs_panel`.

    python tools/make_board.py           # writes hardware/hub-board.svg
    python tools/make_board.py --out DIR
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))

import board_model as bm  # noqa: E402
from make_wiring import BLUE, GREEN, GREY, INK, RED, Svg  # noqa: E402

from hub.runtime.config import DEFAULTS  # noqa: E402

S = 30  # pixels per 2.54 mm
MM = S / bm.PITCH
X0, Y0 = 190.0, 220.0  # the board's top left corner
MARGIN = (
    (bm.SIZE_MM[0] * MM - (bm.COLS - 1) * S) / 2,
    (bm.SIZE_MM[1] * MM - (bm.ROWS - 1) * S) / 2,
)
COPPER, RUN = "#c8873a", "#9a9a9a"


def at(pad: bm.Pad) -> tuple[float, float]:
    """A pad's centre in the drawing."""
    return X0 + MARGIN[0] + pad[0] * S, Y0 + MARGIN[1] + pad[1] * S


def net_colour(net: str) -> str:
    """Red for 5 V, blue for ground, green for the ring's data, ink for the rest."""
    return {"5V": RED, "GND": BLUE}.get(net, GREEN if net in ("1Y", "DIN", "GP22") else INK)


def socket(svg: Svg, s: bm.Socket) -> None:
    """A right-angle header with its housing past the board's edge, position 1
    marked, and each position's net and the socket's name beside it."""
    top = s.row == bm.POWERED
    (xa, ya), (xb, _) = at(s.pad(1)), at(s.pad(3))
    left, edge = min(xa, xb) - S / 2 + 1, Y0 if top else Y0 + bm.SIZE_MM[1] * MM
    body = 8.5 * MM  # how far the header and its plug stand out
    y = edge - body if top else edge
    svg.rect(left, y, 3 * S - 2, body, fill="#f6efd9", radius=2)
    svg.items.append(
        f'<polygon points="{xa - 6:g},{ya + (-16 if top else 16):g} {xa + 6:g},'
        f'{ya + (-16 if top else 16):g} {xa:g},{ya + (-9 if top else 9):g}" fill="{RED}"/>'
    )
    for position in (1, 2, 3):
        x, _ = at(s.pad(position))
        net = s.net(position)
        label = f"{position} {net.split()[0] if 'empty' in net else net}"
        label = label.replace(f"{s.name}.{position}", "cut")
        ty = y + 20 if top else y + body - 26
        svg.text(x, ty, str(position), size=11, anchor="middle", weight="bold")
        svg.text(x, ty + 14, label[2:], size=8, anchor="middle", colour=net_colour(net))
    name_y = y - 24 if top else y + body + 16
    svg.text(left + 1.5 * S, name_y, s.name, size=12, anchor="middle", weight="bold")
    svg.text(left + 1.5 * S, name_y + 12, s.what.replace(" sensor", ""), size=8, anchor="middle")


def shifter(svg: Svg, part: bm.Part) -> None:
    """The DIP-14 from the top: its outline, notch on pin 1's end, and pin numbers."""
    (x1, y1), (x2, y2) = at(part.legs["1"][0]), at(part.legs["8"][0])
    svg.items.append(
        f'<rect x="{x1 - 14:g}" y="{y1 - 12:g}" width="{x2 - x1 + 28:g}" height="{y2 - y1 + 24:g}" '
        'rx="3" fill="#3a3a3a" fill-opacity="0.55" stroke="#222" stroke-width="1.5"/>'
    )
    svg.circle(x1 - 14, (y1 + y2) / 2, 8, fill="#fff", stroke="#3a3a3a")
    svg.text(
        (x1 + x2) / 2, (y1 + y2) / 2 - 4, "U1 74AHCT125", size=12, anchor="middle", colour="#fff"
    )
    svg.text(
        (x1 + x2) / 2,
        (y1 + y2) / 2 + 12,
        "notch = pin 1 end",
        size=9,
        anchor="middle",
        colour="#ddd",
    )
    for leg, (pad, _) in part.legs.items():
        x, y = at(pad)
        svg.text(x, y + (18 if int(leg) <= 7 else -12), leg, size=8, anchor="middle", colour="#fff")


def two_leg(svg: Svg, part: bm.Part) -> None:
    """R1 lying flat, C1 standing: a body between the legs with the value."""
    (a, _), (b, _) = part.legs.values()
    (xa, ya), (xb, yb) = at(a), at(b)
    if ya == yb:
        svg.line(xa, ya, xb, yb, colour=INK, width=2)
        svg.rect(xa + 22, ya - 8, xb - xa - 44, 16, fill="#e9d8b0", radius=6)
        svg.text((xa + xb) / 2, ya + 4, f"{part.name} {part.what}", size=9, anchor="middle")
    else:
        svg.rect(xa - 9, min(ya, yb) - 4, 18, abs(yb - ya) + 8, fill="#f2c14e", radius=8)
        svg.text(xa + 14, (ya + yb) / 2 + 4, f"{part.name} {part.what}", size=9)


def leads(svg: Svg, b: bm.Board) -> None:
    """The leads that leave the board: a tag at the pad, the whole list below the board."""
    for n, (pad, _, _) in enumerate(b.leads, 1):
        if pad[1] in (bm.POWERED, bm.BUTTONS):
            continue  # lap-soldered onto a socket's signal pin: named in the socket table
        x, y = at(pad)
        svg.rect(x + 5, y - 20, 24, 13, fill="#fffbe6", stroke=GREY, radius=2)
        svg.text(x + 17, y - 10, f"L{n}", size=9, anchor="middle", weight="bold")


def layout(svg: Svg, b: bm.Board) -> None:
    """The board: outline, pads, runs, wires, parts, sockets."""
    svg.rect(X0, Y0, bm.SIZE_MM[0] * MM, bm.SIZE_MM[1] * MM, fill="#e6f0d8", radius=3)
    for c in range(bm.COLS):
        for r in range(bm.ROWS):
            x, y = at((c, r))
            svg.circle(x, y, 6, fill="#fff", stroke=COPPER)
    for a, z in b.runs:
        (x1, y1), (x2, y2) = at(a), at(z)
        svg.line(x1, y1, x2, y2, colour=RUN, width=7)
    nets = {pad: uses[0][1] for pad, uses in b.pins().items()}
    for a, z in b.wires:
        (x1, y1), (x2, y2) = at(a), at(z)
        colour = net_colour(nets.get(a) or nets.get(z) or "")
        svg.line(x1 + 3, y1, x2 + 3, y2, colour=colour, width=3, dash="7 3")
        for x, y in ((x1 + 3, y1), (x2 + 3, y2)):
            svg.circle(x, y, 3.5, fill=colour, stroke=colour)
    for part in b.parts:
        (shifter if part.name == "U1" else two_leg)(svg, part)
    for s in b.sockets:
        socket(svg, s)
    leads(svg, b)


def plugs_panel(svg: Svg, x: float, y: float) -> float:
    """The three plugs with their wires on positions 1-3, the A3144's legs named; returns
    the bottom. Every socket takes any of them without a short (hardware/README.md)."""
    svg.text(
        x,
        y,
        "The plugs (1x3 DuPont-style housings, seen from the wire side)",
        size=14,
        weight="bold",
    )
    notes = {
        "button": "switch legs on 1 and 3; cavity 2 blocked: the key",
        "sensor": "A3144: legs 1 VCC, 2 GND, 3 OUT (below)",
        "ring": "ring's GND, 5V and DIN pads",
    }
    for i, (kind, plug) in enumerate(bm.PLUGS.items()):
        left, top = x + i * 360, y + 20
        svg.rect(left, top, 3 * 26 + 8, 30, fill="#f6efd9", radius=2)
        for p in plug["key"]:
            svg.rect(left + 4 + (p - 1) * 26 + 6, top + 6, 14, 20, fill=INK, radius=1)
        for p, wire in enumerate(plug["wires"], 1):
            px = left + 4 + (p - 0.5) * 26
            svg.text(px, top + 22, str(p), size=11, anchor="middle", weight="bold")
            if wire:
                svg.line(
                    px, top + 30, px, top + 60, colour=net_colour({"VCC": "5V"}.get(wire, wire))
                )
                svg.text(px, top + 74, wire, size=9, anchor="middle")
        svg.text(left + 100, top + 14, kind, size=12, weight="bold")
        svg.text(left + 100, top + 30, notes[kind], size=9, colour=GREY)
    legs_y = y + 120
    svg.rect(x + 360, legs_y, 100, 44, fill="#3a3a3a", radius=3)
    svg.text(x + 410, legs_y + 26, "A3144 (flat face)", size=10, anchor="middle", colour="#fff")
    for i, (leg, name, position) in enumerate(bm.A3144_LEGS):
        lx = x + 376 + i * 34
        svg.line(lx, legs_y + 44, lx, legs_y + 74, colour=GREY, width=3)
        svg.text(lx, legs_y + 88, f"{leg} {name}", size=9, anchor="middle")
        svg.text(lx, legs_y + 100, f"→{position}", size=9, anchor="middle", colour=RED)
    svg.text(x + 480, legs_y + 30, "legs 1, 2, 3 go to plug positions 2, 1, 3", size=10)
    svg.text(x + 480, legs_y + 46, "(cross VCC and GND before you crimp)", size=10)
    return legs_y + 110


def socket_table(svg: Svg, b: bm.Board, x: float, y: float) -> float:
    """One line per socket: its name, what plugs in, each position's net, where the signal
    goes; and the leads that leave the board. Returns the bottom."""
    svg.text(
        x,
        y,
        "Sockets (position 1 has the red mark; 1 GND, 2 5V or no pin, 3 signal)",
        size=14,
        weight="bold",
    )
    goes = {pad: where for pad, _, where in b.leads}
    for i, s in enumerate(b.sockets):
        col, row = divmod(i, 9)
        nets = "  ".join(f"{p} {s.net(p)}" for p in (1, 2, 3)).replace(
            f"{s.name}.2 (empty)", "no pin"
        )
        lead = goes.get(s.pad(3), "U1 1Y via R1")
        svg.text(
            x + col * 560, y + 22 + row * 17, f"{s.name}  {s.what}:  {nets}  → {lead}", size=10
        )
    bottom = y + 22 + 9 * 17
    svg.text(x, bottom + 10, "Leads off the board", size=14, weight="bold")
    tagged = [
        (n, pad, net, where)
        for n, (pad, net, where) in enumerate(b.leads, 1)
        if pad[1] not in (0, 6)
    ]
    for i, (n, _pad, net, where) in enumerate(tagged):
        svg.text(x + i * 280, bottom + 30, f"L{n} {net} ← {where}", size=10, colour=net_colour(net))
    return bottom + 40


def legend(svg: Svg, x: float, y: float) -> None:
    """How to read the drawing."""
    lines = [
        "Seen from the parts' side; the underside's connections drawn as if the board were glass.",
        "Grey bar: a bare run (tinned wire or a solder bridge) soldered to EVERY pad it passes.",
        "Dashed colour: an insulated wire, soldered only at its two dots "
        "(red 5V, blue GND, green ring data).",
        "Signal leads (a 1x1 DuPont contact at the Pi's end) are lap-soldered onto position 3 "
        "of each socket.",
    ]
    for i, line in enumerate(lines):
        svg.text(x, y + i * 16, line, size=10, colour=INK if i else GREY)


def draw(pins: dict[str, Any]) -> str:
    """The hub board's drawing for ``pins``."""
    b = bm.board(pins)
    svg = Svg(
        1200,
        1220,
        "The hub board: 70 x 20 mm perfboard, 18 3-pin sockets (drawn from the pin map)",
    )
    svg.text(
        X0,
        66,
        "powered edge: marker sensors and the ring (1 GND, 2 5V, 3 signal)",
        size=11,
        colour=RED,
    )
    layout(svg, b)
    svg.text(
        X0,
        612,
        "button edge: buttons and the centre (1 GND, 2 no pin: clip it off, 3 signal)",
        size=11,
        colour=BLUE,
    )
    legend(svg, X0, 640)
    socket_table(svg, b, 40, 730)
    plugs_panel(svg, 40, 980)
    return svg.render()


def write(out: Path) -> list[Path]:
    """Write ``hub-board.svg`` into ``out``; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "hub-board.svg"
    path.write_text(draw(DEFAULTS["pins"]), encoding="utf-8")
    return [path]


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--out DIR`` (default ``hardware/``); refuses a layout that fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=TOOLS.parent / "hardware")
    args = parser.parse_args(argv)
    errors = bm.connectivity_errors(bm.board(DEFAULTS["pins"]))
    if errors:
        print("the hub board's layout is wrong:\n  " + "\n  ".join(errors), file=sys.stderr)
        return 1
    for path in write(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

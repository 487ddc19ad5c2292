"""The hub board as data: its netlist from the pin map, its perfboard layout, and the checks
that hold the two together (standard library only; ``tools/make_board.py`` draws it).

The board is a 70 x 20 mm perfboard (isolated pads on a 2.54 mm grid: 27 columns x 7 rows).
Row 0 carries the powered edge's sockets (the 8 marker sensors and the ring), row 6 the
button edge's (the 8 slot buttons and the centre): 1x3 right-angle 2.54 mm headers side by
side, 27 pins to an edge (a polarized header, Molex KK 254 or JST-XH, is 8 mm or more
wide: 9 do not fit 70 mm). Every socket's position 1 is GND, position 2 5V (powered edge)
or no pin (button edge: clipped off), position 3 the signal. The only parts of a plug that
can join two of its wires (a button's switch, a sensor's output transistor) sit between
positions 1 and 3, so no plug in any socket, either way round, reaches the 5 V pin with
them; and a button's housing has cavity 2 blocked (its key), so it goes on a button socket
only (:func:`placements`, :func:`fits`, :func:`hazards`; hardware/README.md).

Connections underneath are of two kinds: a **run**, bare tinned wire (or a solder bridge)
soldered to every pad on a straight line between its ends, and a **wire**, insulated, which
joins only its two end pads. :func:`connectivity_errors` joins pads by both (a union-find)
and compares the groups with the netlist.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hub.io.pinmap import BCM_TO_HEADER, GP_TO_PICO_PIN, PICO_PINS, pin_uses  # noqa: E402

COLS, ROWS = 27, 7
SIZE_MM = (70.0, 20.0)
PITCH = 2.54
POWERED, BUTTONS = 0, 6  # the rows of the two edges' sockets
# A socket's positions 1-3 (seen from the plug side), by kind.
ORDER: dict[str, tuple[str, str, str]] = {
    "sensor": ("GND", "5V", "SIG"),
    "ring": ("GND", "5V", "SIG"),
    "button": ("GND", "", "SIG"),
}
RAILS = ("5V", "GND")
# The 74AHCT125 (DIP-14): pin -> net; 2Y, 3Y and 4Y are outputs left unconnected.
SHIFTER = {1: "GND", 2: "GP22", 3: "1Y", 4: "GND", 5: "GND", 6: "", 7: "GND"}
SHIFTER |= {8: "", 9: "GND", 10: "GND", 11: "", 12: "GND", 13: "GND", 14: "5V"}
SHIFTER_AT = 10  # its pin 1's column; pins 1-7 on row 2, pins 14-8 on row 5
Pad = tuple[int, int]


@dataclass(frozen=True)
class Socket:
    """One 3-pin header: name (J1), kind, what plugs in, its signal net and the edge's row."""

    name: str
    kind: str
    what: str
    signal: str
    row: int
    group: int  # which 3 columns: 3 * group .. 3 * group + 2

    def pad(self, position: int) -> Pad:
        """Where position 1-3 sits: the button edge's headers face the other way."""
        column = self.group * 3 + (position - 1 if self.row == POWERED else 3 - position)
        return column, self.row

    def net(self, position: int) -> str:
        """The net on position 1-3 (an empty position: its own ``J7.2`` net)."""
        name = ORDER[self.kind][position - 1]
        if name == "SIG":
            return self.signal
        return name or f"{self.name}.{position} (empty)"


@dataclass(frozen=True)
class Part:
    """A soldered part: its name, what it is, and each leg's pad and net."""

    name: str
    what: str
    legs: dict[str, tuple[Pad, str]]


@dataclass
class Board:
    """The whole board: sockets, parts, runs, wires and the leads that leave it."""

    sockets: list[Socket]
    parts: list[Part]
    runs: list[tuple[Pad, Pad]] = field(default_factory=list)
    wires: list[tuple[Pad, Pad]] = field(default_factory=list)
    leads: list[tuple[Pad, str, str]] = field(default_factory=list)  # pad, net, goes to

    def pins(self) -> dict[Pad, list[tuple[str, str]]]:
        """Each pad's connections as (what, net): socket positions, legs, leads."""
        found: dict[Pad, list[tuple[str, str]]] = {}
        for s in self.sockets:
            for position in (1, 2, 3):
                found.setdefault(s.pad(position), []).append(
                    (f"{s.name}.{position}", s.net(position))
                )
        for part in self.parts:
            for leg, (pad, net) in part.legs.items():
                found.setdefault(pad, []).append((f"{part.name}.{leg}", net))
        for pad, net, where in self.leads:
            found.setdefault(pad, []).append((f"lead to {where}", net))
        return found


def pi_pin(bcm: int) -> str:
    """``BCM 23 (pin 16)``."""
    return f"BCM {bcm} (pin {BCM_TO_HEADER[bcm]})"


def sockets(pins: dict[str, Any]) -> list[Socket]:
    """The 18 sockets from the config's pins: sensors and the ring on the powered edge
    (the ring next to the last, by the 330 ohm resistor), buttons and the centre (in the
    middle) on the other."""
    uses = pin_uses(pins)
    sensors = [u for u in uses if "marker" in u.part]
    buttons = [u for u in uses if "button" in u.part]
    middle = len(sensors) // 2
    powered: list[tuple[str, str, str]] = [
        ("sensor", u.part.replace("marker sensor", "hall sensor"), f"BCM {u.pin}") for u in sensors
    ]
    powered.insert(len(sensors) - 1, ("ring", "LED ring", "DIN"))
    edge_b = [("button", u.part, f"BCM {u.pin}") for u in buttons]
    edge_b.insert(middle, edge_b.pop())  # the centre button in the middle too
    found = []
    for row, edge in ((POWERED, powered), (BUTTONS, edge_b)):
        for group, (kind, what, signal) in enumerate(edge):
            name = f"J{len(found) + 1}"
            found.append(Socket(name, kind, what, signal, row, group))
    return found


def shifter() -> Part:
    """U1 at :data:`SHIFTER_AT`, pin 1 top left (the notch to the left)."""
    legs: dict[str, tuple[Pad, str]] = {}
    for pin, net in SHIFTER.items():
        pad = (SHIFTER_AT + pin - 1, 2) if pin <= 7 else (SHIFTER_AT + 14 - pin, 5)
        legs[str(pin)] = (pad, net or f"U1.{pin} (unconnected)")
    return Part("U1", "74AHCT125 (DIP-14)", legs)


def board(pins: dict[str, Any]) -> Board:
    """The layout: the parts' places and every run and wire underneath."""
    socks = sockets(pins)
    groups = range(COLS // 3)
    parts = [
        shifter(),
        Part("R1", "330 Ω", {"a": ((19, 4), "1Y"), "b": ((23, 4), "DIN")}),
        Part("C1", "100 nF", {"+": ((17, 3), "5V"), "-": ((17, 2), "GND")}),
    ]
    b = Board(socks, parts)
    b.runs += [((0, 1), (26, 1)), ((0, 3), (26, 3))]  # the GND bus and the 5V bus
    b.runs += [((0, 5), (9, 5)), ((17, 5), (26, 5))]  # the button edge's GND, either side of U1
    b.runs += [((3 * g, 0), (3 * g, 1)) for g in groups]  # powered edge GND -> the GND bus
    b.runs += [((3 * g + 2, 6), (3 * g + 2, 5)) for g in groups]  # button edge GND -> its bus
    b.runs += [((c, 2), (c, 1)) for c in (10, 13, 14, 16, 17)]  # U1's top GND pins, C1's GND
    b.runs += [((10, 5), (10, 3)), ((11, 5), (12, 5)), ((14, 5), (15, 5))]  # U1's VCC, GNDs
    b.runs += [((11, 5), (11, 4)), ((15, 5), (15, 4))]
    b.wires += [((3 * g + 1, 0), (3 * g + 1, 3)) for g in groups]  # powered edge 5V -> 5V bus
    b.wires += [((0, 5), (0, 1)), ((26, 5), (26, 1))]  # the button edge's GND -> the GND bus
    b.wires += [((11, 4), (9, 5)), ((15, 4), (17, 5))]  # U1's bottom GND pins -> GND
    b.wires += [((12, 2), (19, 4)), ((23, 4), (23, 0))]  # 1Y -> R1, R1 -> the ring's DIN
    for s in socks:
        if s.signal.startswith("BCM"):
            b.leads.append((s.pad(3), s.signal, pi_pin(int(s.signal.split()[1]))))
    ring_gp = PICO_PINS["ring"]
    b.leads += [
        ((2, 3), "5V", "5V (pin 4)"),
        ((2, 1), "GND", "GND (pin 6)"),
        ((11, 2), "GP22", f"Pico GP{ring_gp} (pin {GP_TO_PICO_PIN[ring_gp]})"),
        ((20, 1), "GND", "Pico GND (pin 28)"),
    ]
    return b


def _line(a: Pad, b: Pad) -> list[Pad]:
    """Every pad a straight run from ``a`` to ``b`` is soldered to."""
    if a[0] != b[0] and a[1] != b[1]:
        raise ValueError(f"a run goes along a row or a column, not {a} -> {b}")
    (x0, x1), (y0, y1) = sorted((a[0], b[0])), sorted((a[1], b[1]))
    return [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]


def groups(b: Board) -> dict[Pad, Pad]:
    """Each pad that something touches -> its group's root (runs and wires join pads)."""
    parent: dict[Pad, Pad] = {}

    def root(p: Pad) -> Pad:
        parent.setdefault(p, p)
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for pad in b.pins():
        root(pad)
    joins = [_line(*r) for r in b.runs] + [list(w) for w in b.wires]
    for pads in joins:
        for p in pads:
            parent[root(p)] = root(pads[0])
    return {p: root(p) for p in list(parent)}


def connectivity_errors(b: Board) -> list[str]:
    """What is wrong with the layout against the netlist; empty when every net is one group
    and no group holds two nets. Also: a pad off the board, two legs in one hole."""
    errors = []
    pins = b.pins()
    for pad, uses in pins.items():
        if not (0 <= pad[0] < COLS and 0 <= pad[1] < ROWS):
            errors.append(f"{uses[0][0]} at {pad} is off the board")
        legs = [u for u in uses if not u[0].startswith("lead")]
        if len(legs) > 1:
            errors.append(f"{' and '.join(u for u, _ in legs)} share the hole {pad}")
    root = groups(b)
    nets_of: dict[Pad, set[str]] = {}
    roots_of: dict[str, set[Pad]] = {}
    for pad, uses in pins.items():
        for _, net in uses:
            nets_of.setdefault(root[pad], set()).add(net)
            roots_of.setdefault(net, set()).add(root[pad])
    for nets in nets_of.values():
        if len(nets) > 1:
            errors.append(f"joined: {', '.join(sorted(nets))}")
    for net, roots in roots_of.items():
        if len(roots) > 1:
            errors.append(f"{net} is in {len(roots)} pieces")
    return errors


# --- plugs: what can join two wires of a plug, and which way round a load must be fed ---

# Per plug kind: its wires on positions 1-3 ("" for none), the pairs a closed switch or a
# conducting output joins, its polarized loads (+ wire, - wire), and its blocked cavities
# (the key: a button's housing has cavity 2 blocked, and a button socket has no pin 2).
PLUGS: dict[str, dict[str, Any]] = {
    "button": {"wires": ("switch", "", "switch"), "joins": [(1, 3)], "loads": [], "key": (2,)},
    "sensor": {"wires": ("GND", "VCC", "OUT"), "joins": [(3, 1)], "loads": [(2, 1)], "key": ()},
    "ring": {"wires": ("GND", "5V", "DIN"), "joins": [], "loads": [(2, 1)], "key": ()},
}
# The A3144's legs, its branded (flat) face towards you, left to right, and the plug
# position each is crimped into.
A3144_LEGS = (("1", "VCC", 2), ("2", "GND", 1), ("3", "OUT", 3))
Spot = dict[int, str | None]  # what a plug's positions 1-3 sit on: a net, or no pin


def pin_nets(socks: list[Socket], row: int) -> dict[int, str | None]:
    """Column -> the net of the pin there along one edge; None where no pin stands
    (a button socket's clipped pin 2)."""
    nets: dict[int, str | None] = {}
    for s in socks:
        if s.row == row:
            for p in (1, 2, 3):
                nets[s.pad(p)[0]] = s.net(p) if ORDER[s.kind][p - 1] or s.kind != "button" else None
    return nets


def placements(socks: list[Socket]) -> list[tuple[str, Spot, bool]]:
    """Every way a 3-position housing can sit on an edge's pins: on one socket (in
    register) or pushed one or two pins along across two, each way round (a housing
    without a wall turns). Returns (where, position -> net, in register)."""
    found = []
    for row in (POWERED, BUTTONS):
        nets = pin_nets(socks, row)
        for start in range(COLS - 2):
            spot = {p: nets.get(start + p - 1) for p in (1, 2, 3)}
            if row == BUTTONS:  # the button edge's headers face the other way
                spot = {4 - p: n for p, n in spot.items()}
            where = f"row {row} columns {start}-{start + 2}"
            found.append((where, spot, start % 3 == 0))
            found.append((where + " turned", {4 - p: n for p, n in spot.items()}, start % 3 == 0))
    return found


def fits(kind: str, spot: Spot) -> bool:
    """Whether a ``kind`` plug goes on there at all: a blocked cavity stops on a pin."""
    return all(spot[p] is None for p in PLUGS[kind]["key"])


def hazards(kind: str, where: str, spot: Spot) -> list[str]:
    """What a ``kind`` plug sitting on ``spot`` does: a rail shorted to ground, 5 V put on
    a signal pin, a load fed the wrong way round (+ on GND, - on 5 V)."""
    plug = PLUGS[kind]
    found = []
    for a, b in plug["joins"]:
        nets = {spot[a], spot[b]}
        if nets == set(RAILS):
            found.append(f"{kind} plug on {where}: shorts 5V to GND")
        elif "5V" in nets and any(n and n.startswith(("BCM", "DIN", "GP")) for n in nets):
            found.append(
                f"{kind} plug on {where}: puts 5V on {sorted(n for n in nets if n != '5V')}"
            )
    for plus, minus in plug["loads"]:
        if spot[plus] == "GND" and spot[minus] == "5V":
            found.append(f"{kind} plug on {where}: fed the wrong way round")
    return found

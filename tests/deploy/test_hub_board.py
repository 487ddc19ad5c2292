"""The hub board (hardware/hub-board.svg): drawn from the pin map by tools/make_board.py,
every net of its perfboard layout one piece and no two nets joined, and no plug in any
socket, either way round, shorting a rail or putting 5 V on a signal pin."""

from __future__ import annotations

import re

import pytest

from hub.io.pinmap import BCM_TO_HEADER, pin_uses
from hub.runtime.config import DEFAULTS
from tests.deploy.test_hardware_files import HARDWARE, tool

make_board = tool("make_board")
bm = make_board.bm  # tools/board_model.py, as the drawing uses it


@pytest.fixture
def board():
    return bm.board(DEFAULTS["pins"])


def test_the_committed_board_drawing_is_what_the_script_draws(tmp_path):
    (written,) = make_board.write(tmp_path)
    assert written.name == "hub-board.svg"
    committed = HARDWARE / "hub-board.svg"
    assert committed.exists(), "hardware/hub-board.svg is missing: run make hardware"
    assert committed.read_text() == written.read_text(), "hub-board.svg is stale: make hardware"
    assert "tools/make_board.py" in (HARDWARE.parent / "Makefile").read_text()


def test_every_net_is_one_piece_and_no_two_nets_touch(board):
    assert bm.connectivity_errors(board) == []
    # every pad the nets use is on the 70 x 20 mm board
    assert bm.COLS * bm.PITCH <= bm.SIZE_MM[0] and bm.ROWS * bm.PITCH <= bm.SIZE_MM[1]


def test_the_connectivity_check_finds_a_missing_run_and_a_stray_one(board):
    board.runs.remove(((0, 3), (26, 3)))  # the 5V bus
    assert any(e.startswith("5V is in") for e in bm.connectivity_errors(board))
    board.runs.append(((0, 3), (26, 3)))
    board.runs.append(((2, 0), (2, 1)))  # slot 1's sensor signal onto the GND bus
    assert "joined: BCM 23, GND" in bm.connectivity_errors(board)
    board.runs.pop()
    board.wires.append(((26, 1), (27, 1)))
    board.leads.append(((27, 1), "GND", "nowhere"))
    assert "lead to nowhere at (27, 1) is off the board" in bm.connectivity_errors(board)


def test_two_legs_in_one_hole_are_refused(board):
    board.parts.append(bm.Part("R9", "spare", {"a": ((17, 2), "GND"), "b": ((18, 2), "X")}))
    assert "C1.- and R9.a share the hole (17, 2)" in bm.connectivity_errors(board)


def in_register(board):
    return [(w, spot) for w, spot, register in bm.placements(board.sockets) if register]


def test_no_plug_in_any_socket_either_way_round_shorts_a_rail(board):
    tried = [
        (kind, where)
        for where, spot in in_register(board)
        for kind in bm.PLUGS
        if bm.fits(kind, spot)
    ]
    # sensor and ring plugs go on all 18 sockets each way round, a button's on its 9
    assert len(tried) == 2 * 18 * 2 + 9 * 2
    for kind, where in tried:
        spot = dict(in_register(board))[where]
        assert bm.hazards(kind, where, spot) == [], (kind, where)


def test_a_button_plug_goes_on_a_button_socket_only(board):
    goes = [w for w, spot, _ in bm.placements(board.sockets) if bm.fits("button", spot)]
    buttons = {s.pad(2)[0] - 1 for s in board.sockets if s.kind == "button"}
    assert sorted(goes) == sorted(
        f"row {bm.BUTTONS} columns {c}-{c + 2}{turned}"
        for c in buttons
        for turned in ("", " turned")
    )


def test_on_the_button_edge_any_plug_anywhere_is_harmless(board):
    spots = [(w, spot) for w, spot, _ in bm.placements(board.sockets) if w.startswith("row 6")]
    assert len(spots) == 2 * 25  # 25 starting pins, each way round
    for where, spot in spots:
        for kind in bm.PLUGS:
            if bm.fits(kind, spot):
                assert bm.hazards(kind, where, spot) == [], where


def test_the_check_bites_on_a_pin_order_with_gnd_in_the_middle(monkeypatch, board):
    """The order the brief warned of: 5V, GND, signal, a button's switch on 2 and 3."""
    monkeypatch.setitem(bm.ORDER, "button", ("5V", "GND", "SIG"))
    button = {"wires": ("", "a", "b"), "joins": [(2, 3)], "loads": [], "key": ()}
    monkeypatch.setitem(bm.PLUGS, "button", button)
    spots = dict(in_register(board))
    assert bm.hazards("button", "J10", spots["row 6 columns 0-2"]) == []
    assert bm.hazards("button", "J10", spots["row 6 columns 0-2 turned"]) == [
        "button plug on J10: shorts 5V to GND"
    ]


def test_a_sensor_is_crimped_so_its_legs_meet_the_socket_right(board):
    legs = {name: position for _, name, position in bm.A3144_LEGS}
    wires = bm.PLUGS["sensor"]["wires"]
    sensor = next(s for s in board.sockets if s.kind == "sensor")
    for name, net in (("VCC", "5V"), ("GND", "GND"), ("OUT", sensor.signal)):
        assert wires[legs[name] - 1] == name
        assert sensor.net(legs[name]) == net


def test_every_pin_the_pin_map_uses_is_on_the_drawing_with_its_socket(board):
    svg = (HARDWARE / "hub-board.svg").read_text()
    lines = re.findall(r">([^<]+)</text>", svg)
    by_signal = {s.signal: s for s in board.sockets}
    for use in pin_uses(DEFAULTS["pins"]):
        socket = by_signal[f"BCM {use.pin}"]
        part = use.part.replace("marker sensor", "hall sensor")
        line = next(t for t in lines if t.startswith(f"{socket.name}  "))
        assert part in line and f"3 BCM {use.pin}" in line, line
        assert f"→ BCM {use.pin} (pin {BCM_TO_HEADER[use.pin]})" in line, line
    assert len(by_signal) == len(pin_uses(DEFAULTS["pins"])) + 1  # and the ring's DIN
    for label in ("U1 74AHCT125", "R1 330 Ω", "C1 100 nF", "Pico GP22 (pin 29)", "5V (pin 4)"):
        assert any(label in t for t in lines), label


def test_a_changed_pin_changes_the_board():
    pins = dict(DEFAULTS["pins"], centre=9)
    assert "centre button:  1 GND  2 no pin  3 BCM 9" in make_board.draw(pins)
    assert "3 BCM 9 " not in (HARDWARE / "hub-board.svg").read_text()


def test_the_wiring_draws_the_board_the_plugs_and_the_a3144s_legs():
    for name in ("wiring.svg", "wiring-usb.svg"):
        svg = (HARDWARE / name).read_text()
        for label in ("hub-board.svg", "cavity 2 blocked", "1 VCC", "2 GND", "3 OUT", "J1-J18"):
            assert label in svg, (name, label)


def test_the_bom_has_a_socket_a_housing_and_the_contacts_for_every_plug(board):
    parts = tool("make_bom").read_parts()
    header, housing = parts["rim_header"], parts["rim_housing"]
    assert header["qty"]["default"] == len(board.sockets) == 18
    assert "pin 2 clipped off on the 9 button sockets" in header["why"]
    assert housing["qty"]["default"] >= len(board.sockets) and "cavity 2 blocked" in housing["why"]
    wires = sum(sum(1 for w in bm.PLUGS[s.kind]["wires"] if w) for s in board.sockets)
    assert parts["contact"]["qty"]["default"] >= wires + parts["pin_housing"]["qty"]["default"]


def test_the_guide_shows_the_board_and_says_why_perfboard():
    guide = (HARDWARE / "README.md").read_text()
    assert "![the hub board](hub-board.svg)" in guide
    assert "Why perfboard" in guide and "continuity" in guide


def test_the_guide_warns_of_what_the_pin_order_cannot_cover(board):
    """A sensor's or the ring's housing pushed one pin along, across two powered sockets,
    can short 5 V (the 27 pins of an edge leave no gap between headers): the guide must
    say so, and nothing else may be found."""
    harmful = {
        (kind, where.split(" columns")[0])
        for where, spot, register in bm.placements(board.sockets)
        for kind in bm.PLUGS
        if bm.fits(kind, spot) and bm.hazards(kind, where, spot)
    }
    assert harmful == {("sensor", f"row {bm.POWERED}"), ("ring", f"row {bm.POWERED}")}
    guide = (HARDWARE / "README.md").read_text()
    assert "pushed on **one pin along**" in guide and "Plug all nine before" in guide
    # ... and why plugging all nine closes it: 9 housings 3 pins wide tile the edge's 27
    # pins one way only, each on its own header
    powered = [s for s in board.sockets if s.row == bm.POWERED]
    assert len(powered) * 3 == bm.COLS
    assert sum(1 for s in powered if s.kind in ("sensor", "ring")) == len(powered)

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


def test_no_plug_in_any_socket_either_way_round_shorts_a_rail(board):
    tried = [
        (kind, s.name, flipped)
        for s, flipped in bm.placements(board.sockets)
        for kind in bm.PLUGS
        if not bm.hazards(kind, s, flipped)
    ]
    # 3 kinds of plug x 18 sockets x 2 ways round, every one harmless
    assert len(tried) == 3 * 18 * 2


def test_a_button_edge_plug_pushed_on_one_or_two_pins_along_is_harmless_too(board):
    spots = [(w, spot) for w, spot in bm.offsets(board.sockets) if w.startswith("row 6")]
    assert len(spots) == 2 * 2 * 8  # two shifts at each of 8 joins, each way round
    for where, spot in spots:
        for kind in bm.PLUGS:
            assert bm.offset_hazards(kind, where, spot) == [], where


def test_the_check_bites_on_a_pin_order_with_gnd_in_the_middle(monkeypatch, board):
    """The order the brief warned of: 5V, GND, signal, a button's switch on 2 and 3."""
    monkeypatch.setitem(bm.ORDER, "button", ("5V", "GND", "SIG"))
    monkeypatch.setitem(
        bm.PLUGS, "button", {"wires": ("", "a", "b"), "joins": [(2, 3)], "loads": []}
    )
    button = next(s for s in board.sockets if s.kind == "button")
    assert bm.hazards("button", button, False) == []
    assert bm.hazards("button", button, True) == [f"button plug in {button.name}: shorts 5V to GND"]


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
    assert "centre button:  1 GND  2 empty  3 BCM 9" in make_board.draw(pins)
    assert "3 BCM 9 " not in (HARDWARE / "hub-board.svg").read_text()


def test_the_wiring_draws_the_board_the_plugs_and_the_a3144s_legs():
    for name in ("wiring.svg", "wiring-usb.svg"):
        svg = (HARDWARE / name).read_text()
        for label in ("hub-board.svg", "Molex KK 254", "1 VCC", "2 GND", "3 OUT", "J1-J18"):
            assert label in svg, (name, label)


def test_the_bom_has_a_polarized_socket_and_housing_for_every_plug(board):
    parts = tool("make_bom").read_parts()
    header, housing = parts["rim_header"], parts["rim_housing"]
    assert "polarized" in header["name"] and "polarized" in housing["name"]
    assert header["number"].startswith("Molex 22-05-3031")
    assert housing["number"].startswith("Molex 22-01-3037")
    assert header["qty"]["default"] == len(board.sockets) == 18
    assert housing["qty"]["default"] >= len(board.sockets)
    wires = sum(sum(1 for w in bm.PLUGS[s.kind]["wires"] if w) for s in board.sockets)
    assert parts["rim_contact"]["qty"]["default"] >= wires


def test_the_guide_shows_the_board_and_says_why_perfboard():
    guide = (HARDWARE / "README.md").read_text()
    assert "![the hub board](hub-board.svg)" in guide
    assert "Why perfboard" in guide and "continuity" in guide


def test_the_guide_warns_of_what_the_pin_order_cannot_cover(board):
    """A housing pushed one pin along, across two powered sockets, can short 5 V (the 27
    pins of an edge leave no gap between headers): the guide must say so."""
    harmful = {
        where.split(" columns")[0]
        for where, spot in bm.offsets(board.sockets)
        for kind in bm.PLUGS
        if bm.offset_hazards(kind, where, spot)
    }
    assert harmful == {f"row {bm.POWERED}"}
    guide = (HARDWARE / "README.md").read_text()
    assert "pushed on **one pin along**" in guide and "flush" in guide

"""The serial backend against the fake microcontroller on a real pty: presses, and every
fault recovered without restarting the hub, with no phantom press, the API answering."""

from __future__ import annotations

import pytest

from firmware_bridge.fake_mcu import FakeMcu
from firmware_bridge.firmware import proto
from hub.runtime.clock import SystemClock
from scorer.setup import check_setup
from tests.helpers import until
from web import create_app

PLAYERS = ["Ann", "Bob", "Cid"]


@pytest.fixture
def mcu():
    board = FakeMcu()
    yield board
    board.close()


@pytest.fixture
def hub(make_hub, mcu):
    the_hub = make_hub(
        threaded=True, clock=SystemClock(), backend="serial", serial={"port": mcu.path}
    )
    until(lambda: the_hub.link.connected, what="the hub box to connect")
    return the_hub


@pytest.fixture
def api(hub):
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()

    def state() -> dict:
        response = client.get("/api/state")
        assert response.status_code == 200
        return response.get_json()

    return state


def gestures(hub) -> list[tuple[str, int]]:
    return [
        (e["kind"], e["slot"])
        for e in hub.eventlog.recent(500)
        if e["kind"] in ("tap", "hold", "long-hold", "marker")
    ]


def tap(mcu, hub, slot: int) -> None:
    before = len(gestures(hub))
    mcu.press(slot, 80)
    until(lambda: len(gestures(hub)) > before, what=f"the tap on slot {slot}")


def start(hub) -> None:
    setup = check_setup({"players": PLAYERS, "first": 1, "seats": [1, 2, 3]}, "consensus")
    hub.games.new_game(setup)


def test_a_game_plays_through_the_hub_box(hub, mcu, api):
    start(hub)
    assert api()["serial"] == {"connected": True, "port": mcu.path}
    assert "connected" not in api()["ring"]  # the box's link is said once: "serial"
    tap(mcu, hub, 1)
    tap(mcu, hub, 2)
    assert api()["turn"] == 3
    mcu.marker(3, True)
    until(lambda: api()["slots"][2]["public"], what="slot 3 public")
    assert gestures(hub) == [("tap", 1), ("tap", 2), ("marker", 3)]
    assert hub.sound.played.count("choo") == 1
    # The ring the box shows is the hub's: Ann's colour (slot 1's middle pixel) steady,
    # amber on public slot 3's ends.
    until(lambda: mcu.frames and mcu.frames[-1] == hub.leds.pixels, what="the ring")
    assert api()["ring"]["pixels"][6] != "000000"


def test_hold_and_long_hold_are_timed_by_the_box(hub, mcu):
    start(hub)
    mcu.press(1, 1300)
    until(lambda: gestures(hub) == [("hold", 1)], what="a hold")
    held = [e for e in hub.eventlog.recent(50) if e["kind"] == "hold"][0]["held_s"]
    # as the box's scan saw it: a busy machine delays the scan of either edge
    assert 1.2 <= held < 1.6


def test_unplugged_mid_game_then_caught_up(hub, mcu, api):
    start(hub)
    tap(mcu, hub, 1)
    mcu.unplug()
    until(lambda: api()["serial"]["connected"] is False, what="the page to say unplugged")
    mcu.marker(2, True)  # while unplugged
    mcu.replug()
    until(lambda: api()["serial"]["connected"], what="the box to come back")
    until(lambda: api()["slots"][1]["public"], what="the marker change caught up")
    until(lambda: mcu.frames and mcu.frames[-1] == hub.leds.pixels, what="lights restored")
    assert gestures(hub) == [("tap", 1), ("marker", 2)]
    tap(mcu, hub, 2)
    assert gestures(hub)[-1] == ("tap", 2)


def test_a_button_held_at_replug_is_no_press(hub, mcu, api):
    start(hub)
    mcu.unplug()
    until(lambda: api()["serial"]["connected"] is False, what="unplugged")
    mcu.button(3, True)  # a finger resting on a button as it is plugged in
    mcu.replug()
    until(lambda: api()["serial"]["connected"], what="replugged")
    mcu.button(3, False)
    tap(mcu, hub, 1)
    assert gestures(hub) == [("tap", 1)]


def test_garbage_bytes_change_nothing(hub, mcu, api):
    start(hub)
    for _ in range(5):
        mcu.garbage(300)
    tap(mcu, hub, 1)
    mcu.garbage(1000)
    tap(mcu, hub, 2)
    assert gestures(hub) == [("tap", 1), ("tap", 2)]
    assert api()["serial"]["connected"] and hub.link.opened == 1


def test_a_reset_mid_frame(hub, mcu, api):
    start(hub)
    tap(mcu, hub, 1)
    frames = len(mcu.frames)
    mcu.reset()
    until(lambda: len(mcu.frames) > frames, what="the ring sent to the rebooted box")
    # A frame can reach the box before the hub has shaken hands with it again: wait.
    until(lambda: api()["serial"]["connected"], what="the API to say the box is connected")
    tap(mcu, hub, 2)
    assert gestures(hub) == [("tap", 1), ("tap", 2)]
    assert hub.link.opened == 1  # the port stayed open


def test_a_stalled_box(hub, mcu, api):
    start(hub)
    mcu.button(1, True)
    until(lambda: hub.link.session.pressed == {1}, what="the press")
    mcu.stall(2.5)
    until(lambda: api()["serial"]["connected"] is False, what="the stall noticed")
    mcu.button(1, False)
    until(lambda: api()["serial"]["connected"], what="the box back")
    tap(mcu, hub, 2)
    # The press the stall cut off makes no gesture (nobody knows how long it was): the
    # turn is still slot 1's, and slot 2's tap is out of turn.
    assert gestures(hub) == [("tap", 2)]
    assert api()["turn"] == 1
    assert hub.link.opened == 1


def test_a_press_cut_by_a_short_pause_of_the_box_makes_no_gesture(hub, mcu, api):
    start(hub)
    mcu.button(1, True)
    until(lambda: hub.link.session.pressed == {1}, what="the press")
    mcu.stall(0.6)  # too short to look stalled; the release is seen only after it
    mcu.button(1, False)
    until(lambda: not hub.link.session.pressed, what="the press to end")
    tap(mcu, hub, 1)
    assert gestures(hub) == [("tap", 1)]  # only the second press: 0.6 s was no hold


def test_a_tap_whose_press_was_lost_on_the_line_still_counts(hub, mcu, api):
    start(hub)
    mcu.lose(proto.EDGE)  # the press's EDGE never reaches the hub
    tap(mcu, hub, 1)  # the release shows the gap: the box sends the press again
    assert gestures(hub) == [("tap", 1)]
    assert api()["turn"] == 2


def test_a_marker_edge_lost_on_the_line_is_caught_up(hub, mcu, api):
    start(hub)
    mcu.lose(proto.EDGE)  # nothing follows it but heartbeats
    mcu.marker(3, True)
    until(lambda: api()["slots"][2]["public"], what="the lost marker edge sent again")
    assert gestures(hub) == [("marker", 3)]
    assert hub.sound.played.count("choo") == 1


def test_the_watchdog_resets_a_hung_box_and_the_hub_sees_it_come_back(hub, mcu, api):
    start(hub)
    boot = hub.link.session.identity.boot_id
    mcu.stall(60)  # hung for good: only the watchdog gets it going again
    until(lambda: mcu.boots == 2, what="the watchdog's reset")
    until(lambda: api()["serial"]["connected"], what="the box back")
    assert hub.link.session.identity.boot_id != boot
    assert any("restarted" in e for e in hub.link.session.errors)
    tap(mcu, hub, 1)
    assert gestures(hub) == [("tap", 1)]


def test_an_exception_in_the_firmware_resets_the_box_and_the_hub_hears_why(hub, mcu, api):
    start(hub)
    boot = hub.link.session.identity.boot_id
    mcu.crash("a bug")
    until(lambda: mcu.boots == 2, what="the reset")
    until(
        lambda: hub.link.session.identity.boot_id != boot and api()["serial"]["connected"],
        what="the box back with a new boot id",
    )
    assert any("firmware failed (RuntimeError: a bug)" in e for e in hub.link.session.errors)
    tap(mcu, hub, 1)
    assert gestures(hub) == [("tap", 1)]


def test_the_centre_button_comes_through(hub, mcu):
    start(hub)
    tap(mcu, hub, 1)
    mcu.press(0, 4300)  # a long hold of the centre: undo
    until(
        lambda: any(e["kind"] == "long-hold" and e["slot"] == 0 for e in hub.eventlog.recent(100)),
        what="the centre's long hold",
    )
    until(lambda: hub.loop.snapshot["turn"] == 1, what="the tap undone")

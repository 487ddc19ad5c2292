"""What the lights say (docs/serial.md), drawn from snapshots; brightness, quiet hours, the
refused press's flash (from the core's ``PressRefused``), the no-ring driver, and the
ring in /api/state."""

from __future__ import annotations

from datetime import datetime, time

from hub.core.effects import LogEntry, PlaySound, PressRefused
from hub.core.entries import TapEntry
from hub.core.events import CENTRE
from hub.io.leds import BLINK, BREATHE, CHASE, STEADY, NoRing, payload
from hub.io.lights import (
    AMBER,
    FLASH_S,
    IDLE,
    MEXICAN,
    PLAYER_COLOURS,
    RED,
    WHITE,
    RingLights,
    arc,
    render,
)
from hub.io.sound import SoundPolicy
from hub.runtime.broadcast import Broadcaster
from hub.runtime.dispatch import EffectDispatcher
from hub.runtime.eventlog import EventLog
from hub.runtime.timers import Timers
from tablesim.virtual import FakeClock, RecordingPlayer
from tests.doubles import RecordingLeds


class HeldTimers:
    """The hub's timers, held: a call scheduled runs when the test says (``fire``)."""

    def __init__(self) -> None:
        self.calls: list[list] = []  # [delay_s, fn, cancelled]

    def call_later(self, delay_s, fn):
        call = [delay_s, fn, False]
        self.calls.append(call)

        class Handle:
            def cancel(self) -> None:
                call[2] = True

        return Handle()

    def fire(self, index: int = -1) -> None:
        """Make call ``index`` (cancelled or not: a cancel can come too late)."""
        self.calls[index][1]()


def snapshot(turn=1, public=(), doubles=(), phase="play", went_out=None):
    owners = {1: "Ann", 3: "Bob", 5: "Cid", 8: "mexican"}
    return {
        "game": {"phase": phase, "players": ["Ann", "Bob", "Cid"]},
        "turn": turn,
        "slots": [
            {
                "slot": s,
                "owner": owners.get(s),
                "public": s in public or s == 8,
                "marker": s in public,
            }
            for s in range(1, 9)
        ],
        "doubles": [{"slot": s, "responsible": r} for s, r in doubles],
        "went_out": went_out,
    }


def test_arcs_cover_the_ring_clockwise():
    assert [list(arc(s, 24)) for s in (1, 8)] == [[0, 1, 2], [21, 22, 23]]
    assert sum(len(arc(s, 24)) for s in range(1, 9)) == 24


def test_no_game_is_dim_white_idle():
    assert render({"game": None}, 24) == [(*IDLE, STEADY)] * 24


def test_whose_turn_breathes_in_their_colour_public_trains_are_amber():
    ring = render(snapshot(turn=3, public=(5,)), 24)
    assert ring[1] == (*PLAYER_COLOURS[0], STEADY)  # Ann, slot 1
    assert ring[7] == (*PLAYER_COLOURS[1], BREATHE)  # Bob's turn, slot 3
    assert ring[12] == ring[14] == (*AMBER, STEADY)  # Cid's train public
    assert ring[13] == (*PLAYER_COLOURS[2], STEADY)
    assert ring[22] == (*MEXICAN, STEADY) and ring[21] == (*AMBER, STEADY)
    assert ring[3:6] == [(0, 0, 0, STEADY)] * 3  # an empty slot is dark


def test_every_waiting_claim_blinks_white_over_everything():
    ring = render({**snapshot(turn=1), "claims": [{"slot": 2}, {"slot": 5}]}, 24)
    lit = [p for p, pixel in enumerate(ring) if pixel == (*WHITE, BLINK)]
    assert lit == [*arc(2, 24), *arc(5, 24)]


def test_an_open_double_blinks_red_and_its_cover_breathes():
    ring = render(snapshot(turn=1, doubles=[(5, 3)]), 24)
    assert ring[12] == ring[14] == (*RED, BLINK)
    assert ring[7][3] == BREATHE and ring[1][3] == BREATHE


def test_a_finished_round_chases_in_the_winners_colour():
    ring = render(snapshot(phase="round-over", went_out="Cid"), 24)
    assert set(ring) == {(*PLAYER_COLOURS[2], CHASE)}


def test_brightness_quiet_hours_and_the_nope_flash():
    leds = RecordingLeds()
    timers = HeldTimers()
    now = [datetime(2026, 12, 1, 12, 0)]
    lights = RingLights(
        leds,
        later=timers,
        brightness=0.5,
        quiet_hours=(time(22, 0), time(7, 0)),
        wall=lambda: now[0],
    )
    lights.draw(snapshot())
    assert leds.pixels[1][:3] == tuple(round(c * 0.5) for c in PLAYER_COLOURS[0])
    now[0] = datetime(2026, 12, 1, 23, 0)
    lights.redraw()
    assert leds.pixels[1][:3] == tuple(round(c * 0.125) for c in PLAYER_COLOURS[0])
    lights.refused(3)
    assert leds.pixels[6:9] == [(round(255 * 0.125), 0, round(16 * 0.125), STEADY)] * 3
    assert timers.calls[-1][0] == FLASH_S
    timers.fire()  # the flash is over
    assert leds.pixels[7][3] == STEADY
    before = list(leds.pixels)
    lights.refused(CENTRE)  # the centre has no arc of its own
    assert leds.pixels == before and len(timers.calls) == 1
    shown = lights.draw(snapshot())  # what the snapshot's "ring" says
    assert set(shown) == {"pixels", "effects"} and len(shown["pixels"]) == 24
    assert shown["effects"][1] == "breathe"


def test_a_flash_ends_once_its_time_is_up_and_a_late_end_spares_a_newer_flash():
    leds = RecordingLeds()
    timers = HeldTimers()
    lights = RingLights(leds, later=timers, brightness=1.0)
    lights.draw(snapshot())
    lights.refused(3)
    lights.refused(5)  # a second refusal: the first flash's end is cancelled
    assert [cancelled for _, _, cancelled in timers.calls] == [True, False]
    timers.fire(0)  # ... but it ran already (a cancel too late): slot 5 still flashes
    assert leds.pixels[arc(5, 24)[0]] == (*RED, STEADY)
    timers.fire(1)
    assert (*RED, STEADY) not in leds.pixels


def test_the_no_ring_driver_keeps_only_the_last_frame():
    leds = NoRing()
    for i in range(100):
        leds.show([(i, 0, 0, STEADY)])
    assert leds.pixels == [(99, 0, 0, STEADY)] and leds.connected() is None
    assert vars(leds) == {"pixels": [(99, 0, 0, STEADY)]}  # nothing else is held


def test_the_ring_flashes_from_the_refusal_not_from_the_sound():
    leds = RecordingLeds()
    lights = RingLights(leds, later=HeldTimers(), brightness=1.0)
    lights.draw(snapshot())
    player = RecordingPlayer()
    muted = SoundPolicy(quiet="mute")
    dispatch = EffectDispatcher(player, lights, EventLog(FakeClock()), Broadcaster(), muted)
    muted.set_quiet("off")
    dispatch([LogEntry(TapEntry(3), 1.0), PlaySound("nope")])
    assert player.played == ["nope"]
    assert (*RED, STEADY) not in leds.pixels  # the sound alone flashes nothing
    muted.set_quiet("mute")
    dispatch([PlaySound("nope"), PressRefused(3)])
    assert player.played == ["nope"]  # muted: no sound this time
    assert leds.pixels[arc(3, 24)[0]] == (*RED, STEADY)  # the refusal still flashes


def test_led_payload_is_the_protocols():
    assert payload([(1, 2, 3, BLINK), (4, 5, 6, STEADY)]) == bytes((2, 1, 2, 3, 2, 4, 5, 6, 0))


def test_the_ring_is_in_the_snapshot_and_follows_brightness(client, live_hub, table_proof):
    ring = client.get("/api/state").get_json()["ring"]
    assert ring["pixels"][0] == "1d1d1a" and "connected" not in ring  # the box's: "serial"
    assert "serial" not in client.get("/api/state").get_json()
    assert client.post("/api/settings", json={"brightness": 1.0}).status_code == 200
    live_hub.loop.drain()
    assert client.get("/api/state").get_json()["ring"]["pixels"][0] == "30302c"
    assert client.post("/api/settings", json={"brightness": 2}).status_code == 400


def test_the_palette_shades_as_dim_and_hex_colours_would():
    from hub.io.lights import Palette, dim, hex_colours

    ring = render(snapshot(turn=3, public=(5,), doubles=[(1, 3)]), 24) + [(1, 2, 3, BLINK)]
    for level in (1.0, 0.6, 0.125, 0.0):
        palette = Palette(level)
        for _ in range(2):  # worked out, then looked up
            assert palette.shade(ring) == (dim(ring, level), hex_colours(dim(ring, level)))


def test_the_flash_ends_by_itself_on_the_hubs_timers_however_many_presses_are_refused():
    import threading

    leds = RecordingLeds()
    dark = threading.Event()

    def changed():  # the loop's refresh: here, a look at the ring
        if "ff0010" not in lights.redraw()["pixels"]:  # no red left on the ring
            dark.set()

    lights = RingLights(leds, later=Timers(), brightness=1.0, changed=changed)
    lights.draw(snapshot())
    before = {t.name for t in threading.enumerate()}
    for slot in (3, 5, 3, 5, 3):
        dark.clear()
        lights.refused(slot)
        assert leds.pixels[arc(slot, 24)[0]] == (*RED, STEADY)
    started = {t.name for t in threading.enumerate()} - before
    assert started <= {"hub-timers"}  # the hub's one timer thread, no thread of the ring's
    assert dark.wait(5)  # the last flash ended without anyone calling in
    assert (*RED, STEADY) not in leds.pixels

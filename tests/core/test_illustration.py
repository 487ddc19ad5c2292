"""The encyclopedia seed's worked example, driven through gpiozero mock pins."""

from __future__ import annotations

from scorer.setup import check_setup

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


class Table:
    """Presses and markers on the mock pins, on the hub's fake clock."""

    def __init__(self, hub):
        self.hub = hub

    def press(self, slot, hold):
        self.hub.sim.button(slot, True)
        self.hub.clock.advance(hold)
        self.hub.sim.button(slot, False)
        self.hub.clock.advance(0.2)
        self.hub.loop.drain()

    def tap(self, slot):
        self.press(slot, 0.15)

    def hold(self, slot):
        self.press(slot, 1.5)

    def marker(self, slot, present=True):
        self.hub.sim.marker(slot, present)
        self.hub.clock.advance(0.2)
        self.hub.loop.drain()

    def sounds(self):
        return self.hub.sound.played

    def logged_sounds(self):
        return [e["name"] for e in self.hub.eventlog.recent(2000) if e["kind"] == "sound"]


def play_to_turn_15(hub, rules, options=None):
    body = {"players": PLAYERS, "rules": rules, "set": 9, "first": 1, "mexican_slot": 8}
    if options:
        body["options"] = options
    hub.games.new_game(check_setup(body))
    t = Table(hub)
    for _ in range(2):  # turns 1-12: start trains, then one tile each
        for slot in range(1, 7):
            t.tap(slot)
    t.hold(1)  # turn 13: the double-five ...
    t.tap(1)  # ... covered by its own player
    t.hold(2)  # turn 14: the double-six ...
    t.marker(2)  # ... which its player cannot cover
    return t


def test_illustration_through_mock_pins_consensus(make_hub):
    hub = make_hub()
    t = play_to_turn_15(hub, "consensus")
    t.marker(3)  # turn 15: player 3 fails too
    t.tap(2)  # turn 16: player 4 covers the double-six
    snap = hub.loop.snapshot
    public = {s["slot"] for s in snap["slots"] if s["public"] and s["owner"] != "mexican"}
    assert public == {2, 3}
    assert snap["turn"] == 5 and snap["double"] is None
    assert t.logged_sounds().count("chicken") == 2
    assert t.logged_sounds().count("choo") == 2
    assert t.sounds().count("chicken") == 2 and "reminder" not in t.sounds()
    t.tap(3)  # turn 17: player 5 plays on the public NW train
    assert hub.loop.snapshot["turn"] == 6


def test_mexicantrainfun_pass_without_marker(make_hub):
    hub = make_hub()
    t = play_to_turn_15(hub, "mexicantrainfun")
    t.tap(3)
    assert "reminder" not in t.sounds()
    assert hub.loop.snapshot["double"] == {
        "slot": 2,
        "covers_left": 1,
        "responsible": 4,
        "waiting": False,
        "queued": False,
    }


def test_consensus_pass_without_marker_gets_reminder(make_hub):
    hub = make_hub()
    t = play_to_turn_15(hub, "consensus")
    t.tap(3)
    assert t.sounds().count("reminder") == 1
    assert any(e["kind"] == "reminder" for e in hub.eventlog.recent(2000))


def test_chickenfoot_double_stays_open_until_three_covers(make_hub):
    hub = make_hub()
    t = play_to_turn_15(hub, "mexicantrainfun", {"chickenfoot": True})
    # Under chickenfoot the double-five of turn 13 needs three covers: the hold on
    # slot 2 was refused and player 2 marked their train; the double-five is open.
    assert hub.loop.snapshot["double"]["slot"] == 1
    assert hub.loop.snapshot["double"]["covers_left"] == 2
    t.tap(1)
    assert hub.loop.snapshot["double"]["covers_left"] == 1
    t.tap(1)
    assert hub.loop.snapshot["double"] is None


def test_bounce_burst_through_pins_is_one_tap(make_hub):
    hub = make_hub()
    for level in (True, False, True, False, True):
        hub.sim.button(4, level)
        hub.clock.advance(0.002)
    hub.clock.advance(0.15)
    hub.sim.button(4, False)
    hub.clock.advance(0.5)
    hub.loop.drain()
    assert [e["kind"] for e in hub.eventlog.recent(50)] == ["tap"]


def test_marker_flicker_through_pins(make_hub):
    hub = make_hub()
    hub.sim.marker(5, True)
    hub.clock.advance(0.03)
    hub.sim.marker(5, False)
    hub.clock.advance(1)
    hub.loop.drain()
    assert not hub.loop.snapshot["slots"][4]["public"]
    hub.sim.marker(5, True)
    hub.clock.advance(0.2)
    hub.loop.drain()
    assert hub.loop.snapshot["slots"][4]["public"]
    assert hub.sound.played == ["choo"]

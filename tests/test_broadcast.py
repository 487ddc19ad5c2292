"""The fan-out: subscribers hear only the kinds they asked for; a burst never pushes the
latest ``state`` out of a slow subscriber's queue."""

from __future__ import annotations

import pytest

from hub.runtime.broadcast import Broadcaster


def test_only_wanted_kinds_are_queued():
    hub = Broadcaster()
    phone = hub.subscribe({"state", "sound"})
    hub.publish("event", {"kind": "tap"})
    hub.publish("game", {"id": 1})
    assert phone.pending == 0
    hub.publish("sound", {"name": "choo"})
    assert phone.get(timeout=0) == ("sound", {"name": "choo"})
    assert not hub.wants("event") or hub.callbacks


def test_a_burst_never_pushes_the_latest_state_out():
    hub = Broadcaster(queue_size=4)
    phone = hub.subscribe({"state", "event"})
    hub.publish("state", {"turn": 1})
    for n in range(100):
        hub.publish("event", {"n": n})
    assert phone.dropped == 96
    items = [phone.get(timeout=0) for _ in range(phone.pending)]
    assert items[0] == ("state", {"turn": 1})
    assert [payload["n"] for _, payload in items[1:]] == [96, 97, 98, 99]


def test_a_newer_state_replaces_an_untaken_one_and_keeps_the_order():
    hub = Broadcaster()
    phone = hub.subscribe({"state", "sound"})
    hub.publish("state", {"turn": 1})
    hub.publish("sound", {"name": "turn"})
    hub.publish("state", {"turn": 2})
    assert phone.get(timeout=0) == ("sound", {"name": "turn"})
    assert phone.get(timeout=0) == ("state", {"turn": 2})
    assert phone.get(timeout=0) is None


def test_close_ends_every_subscription_after_its_news():
    hub = Broadcaster()
    phone = hub.subscribe({"game"})
    hub.publish("game", {"id": 1})
    hub.close()
    assert phone.get(timeout=0) == ("game", {"id": 1})
    assert phone.get(timeout=0) == ("closed", None)
    assert hub.subscribe({"state"}).get(timeout=0) == ("closed", None)


def test_unknown_kinds_are_refused():
    with pytest.raises(ValueError, match="unknown kinds"):
        Broadcaster().subscribe({"state", "gossip"})


def test_a_failing_callback_does_not_stop_the_others():
    hub = Broadcaster()
    heard = []
    hub.callbacks += [lambda kind, payload: 1 / 0, lambda kind, payload: heard.append(kind)]
    hub.publish("event", {})
    assert heard == ["event"]


def test_a_table_change_sends_one_state_with_the_ring_drawn_for_it(make_hub):
    from hub.io.lights import hex_colours
    from scorer.setup import check_setup

    hub = make_hub()
    hub.games.new_game(check_setup({"players": ["Ann", "Bob"], "first": 1}))
    states = []
    hub.broadcaster.callbacks.append(
        lambda kind, payload: states.append(payload) if kind == "state" else None
    )
    hub.sim.button(1, True)
    hub.clock.advance(0.05)
    hub.sim.button(1, False)  # a tap: the turn passes to slot 2
    hub.clock.advance(0.05)
    hub.loop.drain()
    assert len(states) == 1
    assert states[0]["turn"] == 2 and states[0]["ring"] == hub.loop.snapshot["ring"]
    assert states[0]["ring"]["pixels"] == hex_colours(hub.lights.pixels())  # drawn for turn 2


def test_a_refused_press_sends_the_ring_flash_though_the_table_is_unchanged(make_hub):
    from scorer.setup import check_setup

    hub = make_hub()
    hub.games.new_game(check_setup({"players": ["Ann", "Bob", "Cid"], "first": 1}))
    before = hub.loop.snapshot["ring"]
    states = []
    hub.broadcaster.callbacks.append(
        lambda kind, payload: states.append(payload) if kind == "state" else None
    )
    hub.sim.button(2, True)  # Bob's private train, on Ann's turn: refused ("nope")
    hub.clock.advance(0.05)
    hub.sim.button(2, False)
    hub.loop.drain()
    assert "nope" in hub.sound.played
    assert states and states[-1]["turn"] == 1 and states[-1]["ring"] != before

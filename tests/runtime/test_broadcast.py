"""The fan-out: every listener hears every piece of news, in order, one failing
listener never stops the others, and nothing is published once the hub stops."""

from __future__ import annotations

import hub.runtime.broadcast as broadcast
from hub.runtime.broadcast import Broadcaster


def test_every_listener_hears_the_news_in_order_until_the_hub_stops():
    hub = Broadcaster()
    phones: list[list[tuple[str, object]]] = [[], []]
    for heard in phones:
        hub.callbacks.append(lambda kind, payload, heard=heard: heard.append((kind, payload)))
    hub.publish("state", {"turn": 1})
    hub.publish("sound", {"name": "choo"})
    hub.close()
    hub.publish("state", {"turn": 2})
    assert phones[0] == phones[1] == [("state", {"turn": 1}), ("sound", {"name": "choo"})]


def test_the_phones_queues_live_with_the_streams_not_here():
    """The phones' path is the live streams' (hub/http/streams.py); no queue of news is
    kept here that nothing reads."""
    assert not hasattr(broadcast, "NewsQueue")
    assert not hasattr(Broadcaster, "subscribe")


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

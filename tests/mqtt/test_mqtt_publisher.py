"""The publisher against its fake link: the outbox, what goes on which topic, commands."""

from __future__ import annotations

import json

import pytest

from hub.io.mqtt import LinkHandlers, Will
from hub.mqtt.commands import HubCommands
from hub.mqtt.publisher import MqttPublisher
from hub.mqtt.settings import MqttSettings
from hub.runtime.settings import check
from tests.doubles import RecordingLink

GAME = {"id": 4, "round": 1, "engine": 12, "phase": "play"}


def snapshot(turn=1, public=(), game=GAME):
    return {
        "game": game,
        "turn": turn,
        "slots": [
            {"slot": s, "owner": None, "public": s in public, "marker": False} for s in range(1, 9)
        ],
    }


class World:
    """The publisher with a fake link and a record of what it was told."""

    def __init__(self, **settings):
        self.statuses: list[dict] = []
        self.applied: list[dict] = []
        self.posted: list[object] = []
        self.link: RecordingLink | None = None
        commands = HubCommands(self.applied.append, self.posted.append, None, check)
        self.settings = MqttSettings(
            host="127.0.0.1", port=1883, hub_id="h", **{"outbox": 16, **settings}
        )
        self.publisher = MqttPublisher(
            self.settings,
            self._link,
            snapshot=snapshot,
            load_game=lambda game_id: {"id": game_id, "standings": ["Ann"]},
            settings_now=lambda: {"volume": 0.8, "quiet": "off", "turn_chime": True},
            on_status=self.statuses.append,
            commands=commands,
            version="1.2.3",
        )

    def _link(self, handlers: LinkHandlers, will: Will, subscriptions):
        self.will, self.subscriptions = will, subscriptions
        self.link = RecordingLink(handlers)
        return self.link

    def sent(self, topic):
        return [payload for t, payload, _ in self.link.sent if t == topic]

    def retained(self, topic):
        return [payload for t, payload, retain in self.link.sent if t == topic and retain]


@pytest.fixture
def world():
    return World()


def test_the_last_will_and_the_subscriptions(world):
    assert world.will == Will("mtrain/h/status", "offline")
    assert world.subscriptions == ("homeassistant/status",)  # commands are off
    assert World(commands=True).subscriptions == ("homeassistant/status", "mtrain/h/cmd/#")


def test_on_connect_it_says_online_and_publishes_everything(world):
    world.link.connect()
    world.publisher.pump()
    assert world.retained("mtrain/h/status") == ["online"]
    assert json.loads(world.retained("mtrain/h/state")[-1])["turn"] == 1
    assert world.retained("mtrain/h/slot/1/public") == ["OFF"]
    assert json.loads(world.retained("mtrain/h/game")[-1]) == {
        "id": 4,
        "standings": ["Ann"],
        "leader": None,  # no round scored yet
    }
    assert json.loads(world.retained("mtrain/h/settings")[-1])["volume"] == 0.8
    assert any(t.startswith("homeassistant/") for t, _, _ in world.link.sent)
    assert world.statuses[-1] == {"enabled": True, "connected": True, "dropped": 0}


def test_slots_are_published_when_they_change(world):
    world.link.connect()
    world.publisher.pump()
    world.link.sent.clear()
    world.publisher.offer("state", snapshot(turn=2, public={3}))
    world.publisher.pump()
    assert world.retained("mtrain/h/slot/3/public") == ["ON"]
    assert world.sent("mtrain/h/slot/1/public") == []
    assert world.sent("mtrain/h/game") == []  # the same game: not loaded again


def test_offline_the_state_is_the_latest_and_the_oldest_events_are_dropped(world):
    for turn in range(1, 40):
        world.publisher.offer("state", snapshot(turn=turn))
        world.publisher.offer("event", {"kind": "tap", "slot": 1, "n": turn})
    world.publisher.pump()
    assert world.link.sent == []
    assert world.publisher.outbox.dropped == 39 - 16
    assert world.statuses[-1] == {"enabled": True, "connected": False, "dropped": 23}
    world.link.connect()
    world.publisher.pump()
    states = [json.loads(p) for p in world.retained("mtrain/h/state")]
    assert [s["turn"] for s in states] == [39]  # the latest, not the ones before it
    events = [json.loads(p)["n"] for p in world.sent("mtrain/h/event")]
    assert events == list(range(24, 40))  # the newest 16, in order


def test_gestures_go_to_the_action_topics(world):
    world.link.connect()
    world.publisher.pump()
    for kind, slot in (("tap", 2), ("hold", 3), ("long-hold", 4), ("tap", 0), ("turn", 5)):
        world.publisher.offer("event", {"kind": kind, "slot": slot})
    world.publisher.pump()
    assert world.sent("mtrain/h/slot/2/action") == ["tap"]
    assert world.sent("mtrain/h/slot/3/action") == ["hold"]
    assert world.sent("mtrain/h/slot/4/action") == ["long_hold"]
    assert world.sent("mtrain/h/centre/action") == ["tap"]
    assert world.sent("mtrain/h/slot/5/action") == []
    assert not any(retain for t, _, retain in world.link.sent if t.endswith("/event"))


def test_each_topic_has_its_qos_what_is_resent_or_a_copy_at_0(world):
    world.link.connect()
    world.publisher.pump()
    world.publisher.offer("event", {"kind": "tap", "slot": 2})
    world.publisher.offer("state", snapshot(turn=2, public={3}))
    world.publisher.pump()
    qos = world.link.qos
    for topic in ("status", "state", "game", "settings", "event"):
        assert qos[f"mtrain/h/{topic}"] == 1, topic
    assert qos["mtrain/h/slot/3/public"] == 0  # re-sent whole after every reconnect
    assert qos["mtrain/h/slot/2/action"] == 0  # a copy of the event, sent at QoS 1


def test_home_assistant_online_resends_discovery(world):
    world.link.connect()
    world.publisher.pump()
    world.link.sent.clear()
    world.link.handlers.message("homeassistant/status", b"offline")
    world.publisher.pump()
    assert world.link.sent == []
    world.link.handlers.message("homeassistant/status", b"online")
    world.publisher.pump()
    configs = [t for t, _, retain in world.link.sent if t.startswith("homeassistant/")]
    assert len(configs) > 30 and world.retained("mtrain/h/state")


def test_a_new_game_loads_the_game(world):
    world.link.connect()
    world.publisher.pump()
    world.publisher.offer("state", snapshot(game={**GAME, "id": 5}))
    world.publisher.pump()
    assert json.loads(world.retained("mtrain/h/game")[-1])["id"] == 5
    world.publisher.offer("state", snapshot(game=None))
    world.publisher.pump()
    assert world.retained("mtrain/h/game")[-1] == "null"


@pytest.mark.parametrize(
    ("topic", "payload", "applied"),
    [
        ("settings", b'{"volume": 0.5, "quiet": "mute"}', {"volume": 0.5, "quiet": "mute"}),
        ("volume", b"0.25", {"volume": 0.25}),
        ("quiet", b"turn-only", {"quiet": "turn-only"}),
        ("turn_chime", b"OFF", {"turn_chime": False}),
    ],
)
def test_commands_change_settings(topic, payload, applied):
    world = World(commands=True)
    world.link.connect()
    world.link.handlers.message(f"mtrain/h/cmd/{topic}", payload)
    world.publisher.pump()
    assert world.applied == [applied]


@pytest.mark.parametrize(
    ("topic", "payload", "why", "code"),
    [
        ("settings", b"{not json", "not valid JSON", "not_json"),
        ("settings", b'{"volume": 3}', "volume", "setting_value"),
        ("settings", b'{"colour": "red"}', "unknown setting", "unknown_setting"),
        ("settings", b"[]", "expected an object", "not_an_object"),
        ("volume", b"loud", "volume", "setting_value"),
        ("quiet", b"sometimes", "quiet", "setting_value"),
        ("turn_chime", b"maybe", "expected ON or OFF", "on_or_off"),
        ("reboot", b"", "unknown command", "unknown_command"),
        ("sim/slot/9/press", b"", "slots 1 to 8", "no_such_slot"),
        ("sim/slot/2/press", b'{"hold_ms": -1}', "hold_ms", "hold_ms"),
        ("sim/slot/2/press", b"\xff\xfe", "not valid JSON", "not_json"),
        ("sim/slot/2/marker", b'{"present": "yes"}', "present", "marker_body"),
        ("sim/slot/2/press", b"{}", "backend sim only", "not_simulated"),
    ],
)
def test_a_bad_command_is_logged_and_changes_nothing(topic, payload, why, code, caplog):
    world = World(commands=True)
    world.link.connect()
    world.link.handlers.message(f"mtrain/h/cmd/{topic}", payload)
    world.publisher.pump()
    assert world.applied == [] and world.posted == []
    assert why in caplog.text and "ignored" in caplog.text
    assert f"mqtt: refused {code}: " in caplog.text  # the code first, as the HTTP API's


def test_undo_asks_the_hub(world):
    world = World(commands=True)
    world.link.connect()
    world.link.handlers.message("mtrain/h/cmd/undo", b"PRESS")
    world.publisher.pump()
    assert world.posted == ["mqtt"]


def test_commands_are_ignored_when_off(world):
    world.link.connect()
    world.link.handlers.message("mtrain/h/cmd/volume", b"0.1")
    world.publisher.pump()
    assert world.applied == []


def test_stop_says_offline(world):
    world.link.connect()
    world.publisher.start()
    world.publisher.stop()
    assert world.link.farewell == Will("mtrain/h/status", "offline")


def test_a_retained_command_is_ignored_and_cleared_and_its_echo_is_no_command():
    world = World(commands=True)
    world.link.connect()
    world.link.handlers.retained("mtrain/h/cmd/undo", b"PRESS")
    world.link.handlers.retained("mtrain/h/cmd/volume", b"0.1")
    world.publisher.pump()
    assert world.posted == [] and world.applied == []
    assert world.retained("mtrain/h/cmd/undo") == [""]
    assert world.retained("mtrain/h/cmd/volume") == [""]
    world.link.handlers.message("mtrain/h/cmd/undo", b"")  # the broker's echo of the clear
    world.publisher.pump()
    assert world.posted == []
    world.link.handlers.message("mtrain/h/cmd/undo", b"PRESS")  # a live one runs
    world.publisher.pump()
    assert world.posted == ["mqtt"]


def test_home_assistants_retained_status_still_counts():
    world = World(commands=True)
    world.link.connect()
    world.publisher.pump()
    before = len(world.retained("homeassistant/sensor/mtrain_h/turn/config"))
    world.link.handlers.retained("homeassistant/status", b"online")
    world.publisher.pump()
    assert len(world.retained("homeassistant/sensor/mtrain_h/turn/config")) > before


def test_a_repeated_command_id_is_a_duplicate(caplog):
    world = World(commands=True)
    world.link.connect()
    for volume in (0.5, 0.6):
        world.link.handlers.message(
            "mtrain/h/cmd/settings", json.dumps({"volume": volume, "id": "x1"}).encode()
        )
    world.link.handlers.message("mtrain/h/cmd/settings", b'{"volume": 0.7, "id": "x2"}')
    world.publisher.pump()
    assert world.applied == [{"volume": 0.5}, {"volume": 0.7}]
    assert "'x1' again" in caplog.text


@pytest.mark.parametrize(
    ("topic", "payload", "why", "code"),
    [
        ("settings", b'{"volume": ' * 5000 + b"1" + b"}" * 5000, "nested", "too_deep"),
        ("sim/slot/²/press", b"", "slots 1 to 8", "no_such_slot"),
        ("sim/slot/99999999999999999999/press", b"", "slots 1 to 8", "no_such_slot"),
        ("settings", b'{"volume": 0.5, "volume": 0.1}', "twice", "key_twice"),
        (
            "sim/slot/2/press",
            b'{"hold_ms": 1' + b"0" * 5000 + b"}",
            "too large",
            "number_too_large",
        ),
        ("settings", b'{"volume": 0.5, "id": 7}', "id", "command_id"),
    ],
)
def test_commands_are_checked_as_http_bodies_are(topic, payload, why, code, caplog):
    world = World(commands=True)
    world.link.connect()
    world.link.handlers.message(f"mtrain/h/cmd/{topic}", payload)
    world.publisher.pump()
    assert world.applied == [] and world.posted == []
    assert why in caplog.text and "ignored" in caplog.text
    assert f"mqtt: refused {code}: " in caplog.text
    assert "publishing failed" not in caplog.text and "Traceback" not in caplog.text


def test_a_command_flood_costs_bounded_threads_and_log_lines(caplog):
    import threading

    class Pins:
        def __init__(self):
            self.presses = 0

        def button(self, slot, pressed, at=None):
            self.presses += pressed

        def now(self):
            return 0.0

        def marker(self, slot, present):
            pass

    pins = Pins()
    world = World(commands=True)
    world.publisher._commands = HubCommands(world.applied.append, world.posted.append, pins, check)
    world.link.connect()
    threads = threading.active_count()
    for i in range(10_000):
        world.link.handlers.message(
            "mtrain/h/cmd/sim/slot/1/press" if i % 2 else "mtrain/h/cmd/bogus",
            b'{"hold_ms": 10000}',
        )
        if i % 50 == 0:
            world.publisher.pump()
    world.publisher.pump()
    assert pins.presses <= 16  # MOST_HELD held at once (and COMMANDS_PER_S a second)
    assert threading.active_count() - threads <= 16
    assert len(caplog.records) <= 10, [r.getMessage() for r in caplog.records]

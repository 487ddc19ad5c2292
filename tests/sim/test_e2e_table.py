"""Issue 11 end to end: one ``mtrain-hub run`` subprocess, spoken to only over HTTP,
plays a short scenario for each of items 1-12 (a new game each)."""

from __future__ import annotations

import pytest

from tests.helpers import until
from tests.http_client import HubProcess

FOUR = ["Ann", "Bob", "Cid", "Dee"]
TWO = ["Ann", "Bob"]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    state = tmp_path_factory.mktemp("e2e-table")
    config = state / "hub.toml"
    # A roomy last-tile window: two HTTP presses in a row on a busy test machine.
    config.write_text("[gestures]\nlast_tile_ms = 2000\n")
    process = HubProcess(state / "state", "--config", str(config))
    yield process
    assert process.stop() == 0


class Game:
    """One game at the hub subprocess: presses, markers and the scorekeeper's calls
    (under the tournament rules, ``consensus``, unless ``rules`` names others)."""

    last_token: str | None = None

    def __init__(self, hub, players=FOUR, **body):
        self.hub = hub
        # The hub is the module's: a marker an earlier test left on its sensor (in
        # whatever order the workers ran them) is lifted before the new game.
        for slot in hub.get("/api/state")[1]["slots"]:
            if slot["marker"]:
                self.marker(slot["slot"], False)
        status, made = hub.post(
            "/api/games",
            {"players": players, "rules": "consensus", "first": 1, **body},
            token=Game.last_token,
        )
        assert status == 201, made
        self.id, self.token = made["id"], made["token"]
        Game.last_token = self.token

    def press(self, slot, hold_ms=80):
        status, state = self.hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": hold_ms})
        assert status == 200, state
        return state

    def centre(self, hold_ms=80):
        status, state = self.hub.post("/api/sim/centre/press", {"hold_ms": hold_ms})
        assert status == 200, state
        return state

    def marker(self, slot, present=True):
        return self.hub.post(f"/api/sim/slots/{slot}/marker", {"present": present})[1]

    def me(self, path, body=None):
        return self.hub.post(f"/api/games/{self.id}{path}", body or {}, token=self.token)

    def round(self, number=1):
        return self.hub.get(f"/api/games/{self.id}")[1]["rounds"][number - 1]

    def sounds_since(self, mark):
        _, log = self.hub.get("/api/log?limit=2000")
        return [e["name"] for e in log[mark:] if e["kind"] == "sound"]

    def log_mark(self):
        return len(self.hub.get("/api/log?limit=2000")[1])


def test_1_mexicantrainfun_first_turn(hub):
    g = Game(hub, rules="mexicantrainfun", mexican_slot=8)
    g.press(1)
    assert g.marker(2)["turn"] == 3
    assert g.press(2)["turn"] == 3  # refused: Bob's marked train is closed in first turns
    assert g.press(8)["turn"] == 4  # the Mexican Train is open any time


def test_2_mexicantrainfun_chickenfoot_mexican_double(hub):
    g = Game(hub, rules="mexicantrainfun", mexican_slot=8, options={"chickenfoot": True})
    for slot in (1, 2, 3, 4):
        g.press(slot)
    assert g.press(8, 1100)["double"]["covers_left"] == 1


def test_3_mexicantrainfun_doubler_reminded(hub):
    g = Game(hub, rules="mexicantrainfun", mexican_slot=8)
    for slot in (1, 2, 3, 4):
        g.press(slot)
    g.press(8, 1100)
    mark = g.log_mark()
    g.press(1)
    assert "reminder" in g.sounds_since(mark)


def test_4_consensus_privatising_double(hub):
    g = Game(hub, rules="consensus")
    g.press(1)
    g.marker(2)
    for slot in (3, 4, 1):
        g.press(slot)
    g.marker(2, False)
    state = g.press(2, 1100)
    assert state["double"] is None and state["turn"] == 2  # no cover owed; he may go on
    state = g.press(2)  # his tile on the double (or nothing more): the turn ends
    assert state["double"] is None and state["turn"] == 3


def test_5_marker_lifted_out_of_turn(hub):
    g = Game(hub, rules="consensus")
    g.press(1)
    g.marker(2)
    mark = g.log_mark()
    state = g.marker(2, False)
    assert not state["slots"][1]["public"]
    # The reminder is logged by the loop after the answer may have left (a busy machine).
    until(lambda: "reminder" in g.sounds_since(mark), "the reminder after the marker")


def test_6_aces_first_turn(hub):
    g = Game(hub, rules="aces", mexican_slot=8)
    assert g.press(8)["turn"] == 1
    assert g.press(1)["turn"] == 2


def test_7_aces_engine(hub):
    g = Game(hub, players=TWO, rules="aces", rounds=3)
    status, game = g.me("/rounds/1/engine", {"engine": 9})
    assert status == 200 and game["rounds"][0]["engine"] == 9
    assert hub.get("/api/state")[1]["game"]["engine"] == 9
    g.press(1)
    g.press(2)
    g.press(1, 4150)
    status, game = g.me("/rounds/1/scores", {"tiles": {"Bob": ["12-12", "1-0"]}})
    assert status == 200, game
    assert game["rounds"][0]["points"]["Bob"] == 25 and game["rounds"][1]["engine"] == 8
    status, game = g.me("/finish")
    assert status == 200 and game["finished"] and game["round_count"] == 1


def test_8_consensus_blanks(hub):
    g = Game(hub, players=TWO, options={"blanks": True})
    g.press(1)
    g.press(2)
    g.press(1, 4150)
    status, game = g.me("/rounds/1/scores", {"tiles": {"Bob": ["0-0", "7-0"]}})
    assert status == 200 and game["rounds"][0]["points"]["Bob"] == 50 + 32


def test_9_new_game_chimes_where_the_turn_stood(hub):
    Game(hub)
    mark = len(hub.get("/api/log?limit=2000")[1])
    g = Game(hub)
    assert hub.get("/api/state")[1]["turn"] == 1
    assert "turn" in g.sounds_since(mark)


def test_10_undo_and_fix(hub):
    g = Game(hub, players=TWO)
    g.press(1)
    g.press(2)
    g.press(1, 4150)
    assert g.round()["went_out"] == "Ann"
    mark = g.log_mark()
    state = g.centre(4150)  # the centre's long hold
    assert state["game"]["phase"] == "play" and state["turn"] == 1
    assert g.round()["went_out"] is None
    status, state = g.me("/undo")
    assert status == 200 and state["turn"] == 2
    assert g.sounds_since(mark).count("turn_back") == 2
    status, state = g.me("/fix", {"turn": 1})
    assert status == 200 and state["turn"] == 1
    status, state = g.me("/fix", {"public": {"slot": 2, "public": True}})
    assert state["slots"][1]["public"]
    _, log = hub.get("/api/log?limit=2000")
    assert [e["by"] for e in log[mark:] if e["kind"] == "undo"] == ["centre", "scorekeeper"]
    assert [e["what"] for e in log[mark:] if e["kind"] == "fix"] == ["turn", "public"]


def test_11_centre_for_the_mexican_train(hub):
    g = Game(hub, players=[*FOUR, "Eve", "Fay", "Gus", "Hal"])
    for slot in range(1, 9):
        g.press(slot)
    assert g.centre()["turn"] == 2
    assert g.centre(1200)["double"]["slot"] == 0


def test_12_last_tile_call(hub):
    g = Game(hub, players=TWO, rules="consensus")
    g.press(1)
    g.press(2)
    mark = g.log_mark()
    g.press(1)
    state = g.press(1)
    assert state["one_tile"] == [1] and state["turn"] == 2
    assert "last_tile" in g.sounds_since(mark)
    g.press(2)
    mark = g.log_mark()
    g.press(1, 4150)
    assert "reminder" not in g.sounds_since(mark)

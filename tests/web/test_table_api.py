"""web.table_api: undo, fixes and the engine from the scorekeeper's phone; the centre on
the sim backend. Token, JSON only, and clear errors naming the field."""

from __future__ import annotations

import pytest

from tests.fake_service import FakeHubService
from web import create_app

PLAYERS = ["Ann", "Bob", "Cid"]


@pytest.fixture
def game(client):
    answer = client.post("/api/games", json={"players": PLAYERS, "first": 1})
    return answer.get_json()


def bearer(game):
    return {"Authorization": f"Bearer {game['token']}"}


def test_centre_press_on_the_sim_backend(client, game):
    for slot in (1, 2, 3):
        client.post(f"/api/sim/slots/{slot}/press", json={"hold_ms": 50})
    state = client.post("/api/sim/centre/press", json={"hold_ms": 50}).get_json()
    assert state["turn"] == 2  # Ann played on the Mexican Train (slot 4) from the centre
    answer = client.post("/api/sim/centre/press", json={"hold_ms": -1})
    assert answer.status_code == 400 and answer.get_json()["field"] == "hold_ms"
    answer = client.post("/api/sim/centre/press", json={"hold": 1})
    assert answer.status_code == 400 and answer.get_json()["field"] == "hold"


def test_centre_press_is_refused_off_the_sim_backend():
    app = create_app(FakeHubService(backend="gpio"), {"TESTING": True})
    answer = app.test_client().post("/api/sim/centre/press", json={"hold_ms": 0})
    assert answer.status_code == 404 and answer.get_json()["error"] == "not_simulated"


def test_undo_needs_the_token_and_json(client, game):
    path = f"/api/games/{game['id']}/undo"
    client.post("/api/sim/slots/1/press", json={"hold_ms": 50})
    client.delete_cookie(f"mtrain_token_{game['id']}")
    assert client.post(path, json={}).status_code == 401
    assert client.post(path, json={}, headers={"Authorization": "Bearer nope"}).status_code == 403
    answer = client.post(path, data="{}", headers=bearer(game))
    assert answer.status_code == 415
    state = client.post(path, json={}, headers=bearer(game)).get_json()
    assert state["turn"] == 1 and state["undo"] == 0
    log = client.get("/api/log?limit=50").get_json()
    assert log[-1]["kind"] == "turn" or any(e["kind"] == "undo" for e in log)
    assert [e["by"] for e in log if e["kind"] == "undo"] == ["scorekeeper"]
    answer = client.post(path, json={"again": True}, headers=bearer(game))
    assert answer.status_code == 400 and answer.get_json()["field"] == "again"


def test_an_undo_names_the_table_it_saw_and_a_double_tap_undoes_once(client, game, live_hub):
    """A grandparent's double tap on Undo, a second phone undoing the same mistake, a
    press at the hub while the phone was still showing the table before it: the undo
    names the table it saw (the snapshot's ``undo``) and takes back one action of that
    table, never one the phone did not show."""
    path = f"/api/games/{game['id']}/undo"
    for slot in (1, 2):
        client.post(f"/api/sim/slots/{slot}/press", json={"hold_ms": 50})
    seen = client.get("/api/state").get_json()
    assert seen["turn"] == 3 and seen["undo"] == 2
    state = client.post(path, json={"undo": 2}, headers=bearer(game)).get_json()
    assert state["turn"] == 2 and state["undo"] == 1
    again = client.post(path, json={"undo": 2}, headers=bearer(game))  # the second tap
    assert again.status_code == 409
    assert again.get_json()["field"] == "undo"
    assert again.get_json()["error"] == "undo_moved"
    assert again.get_json()["params"] == {"then": 2, "now": 1}
    assert client.get("/api/state").get_json()["undo"] == 1
    client.post("/api/sim/slots/2/press", json={"hold_ms": 50})  # Bob plays again meanwhile
    stale = client.post(path, json={"undo": 1}, headers=bearer(game))
    assert stale.status_code == 409 and stale.get_json()["params"] == {"then": 1, "now": 2}
    now = client.get("/api/state").get_json()
    assert now["undo"] == 2 and now["turn"] == 3
    undone = [e for e in client.get("/api/log?limit=100").get_json() if e["kind"] == "undo"]
    # one undo, of what the phone saw: Bob's tap, named as data
    assert [e["undid"] for e in undone] == [{"kind": "tap", "slot": 2}]
    for bad in (-1, "2", True, 1.5, [2]):
        answer = client.post(path, json={"undo": bad}, headers=bearer(game))
        assert answer.status_code == 400 and answer.get_json()["field"] == "undo", bad


def test_an_undo_names_the_action_itself_not_the_count_aba(client, game, live_hub):
    """Issue 33, 7: phone A shows an undo of Bob's tap (undo 2); phone B undoes it (1);
    Bob taps again (2 again). A's undo names the action it showed (its stamp), not the
    count: refused, and Bob's new tap stays."""
    path = f"/api/games/{game['id']}/undo"
    for slot in (1, 2):
        client.post(f"/api/sim/slots/{slot}/press", json={"hold_ms": 50})
    shown = client.get("/api/state").get_json()  # what phone A shows
    assert shown["undo"] == 2 and shown["undo_stamp"] >= 1
    seen = {"undo": shown["undo"], "stamp": shown["undo_stamp"]}
    b = client.post(path, json=seen, headers=bearer(game)).get_json()  # phone B
    assert b["undo"] == 1 and b["undo_stamp"] != shown["undo_stamp"]
    again = client.post("/api/sim/slots/2/press", json={"hold_ms": 50}).get_json()
    assert again["undo"] == 2 and again["undo_stamp"] > shown["undo_stamp"]
    a = client.post(path, json=seen, headers=bearer(game))  # phone A, at last
    assert a.status_code == 409 and a.get_json()["error"] == "undo_moved"
    assert a.get_json()["field"] == "stamp"
    assert a.get_json()["params"] == {"then": shown["undo_stamp"], "now": again["undo_stamp"]}
    assert client.get("/api/state").get_json()["undo_stamp"] == again["undo_stamp"]
    for bad in (-1, "2", True, 1.5):
        answer = client.post(path, json={"stamp": bad}, headers=bearer(game))
        assert answer.status_code == 400 and answer.get_json()["error"] == "undo_stamp", bad


def test_an_undo_stamp_is_never_reused_across_rounds():
    """A phone that showed round 1's fourth action never undoes round 2's fourth."""
    from hub.core import apply, new_table, snapshot
    from hub.core.events import ButtonChanged, GameStarted, RoundScored

    table, _ = apply(
        new_table(), GameStarted(1, "consensus", ("A", "B"), (1, 2), None, 12, 13, 0.0)
    )
    table, _ = apply(table, ButtonChanged(1, True, 1.0))
    table, _ = apply(table, ButtonChanged(1, False, 1.1))
    first = snapshot(table, "sim")
    table, _ = apply(table, RoundScored(2.0, 11))
    for at in (3.0, 4.0, 5.0):  # the engine placed, then plays, until one is undoable
        slot = table.turn or 1
        table, _ = apply(table, ButtonChanged(slot, True, at))
        table, _ = apply(table, ButtonChanged(slot, False, at + 0.1))
        if table.history:
            break
    second = snapshot(table, "sim")
    assert first["undo"] == second["undo"] and first["undo_stamp"] != second["undo_stamp"]


def test_two_phones_undoing_the_same_mistake_at_once_undo_it_once(client, game, live_hub):
    """Both requests reach the hub together; its one writer thread looks and undoes in
    one step, so exactly one is done and the other is told the table changed."""
    import threading

    from web import create_app

    path = f"/api/games/{game['id']}/undo"
    for slot in (1, 2, 3):
        client.post(f"/api/sim/slots/{slot}/press", json={"hold_ms": 50})
    assert client.get("/api/state").get_json()["undo"] == 3
    phones = [create_app(live_hub.web_service(), {"TESTING": True}).test_client() for _ in "ab"]
    ready = threading.Barrier(len(phones))
    codes: list[int] = []

    def tap(phone) -> None:
        ready.wait()
        codes.append(phone.post(path, json={"undo": 3}, headers=bearer(game)).status_code)

    threads = [threading.Thread(target=tap, args=(phone,)) for phone in phones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(codes) == [200, 409]
    assert client.get("/api/state").get_json()["undo"] == 2


def test_fix_turn_double_and_public(client, game):
    path = f"/api/games/{game['id']}/fix"
    state = client.post(path, json={"turn": 3}, headers=bearer(game)).get_json()
    assert state["turn"] == 3
    state = client.post(
        path, json={"double": {"slot": 2, "covers_left": 1, "responsible": 1}}, headers=bearer(game)
    ).get_json()
    assert state["double"]["slot"] == 2 and state["turn"] == 1
    state = client.post(path, json={"double": {"slot": None}}, headers=bearer(game)).get_json()
    assert state["double"] is None
    state = client.post(
        path, json={"public": {"slot": 2, "public": True}}, headers=bearer(game)
    ).get_json()
    assert state["slots"][1]["public"] and state["slots"][1]["by_hand"]
    kinds = [
        e.get("what") for e in client.get("/api/log?limit=100").get_json() if e["kind"] == "fix"
    ]
    assert kinds == ["turn", "double", "double", "public"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"turn": 9}, "turn"),
        ({"turn": 1, "public": {"slot": 1, "public": True}}, None),
        ({"double": 3}, "double"),
        ({"double": {"slot": 2, "covers_left": 4}}, "double.covers_left"),
        ({"double": {"covers_left": 1}}, "double.slot"),
        ({"public": {"slot": 2}}, "public.public"),
        ({"public": {"slot": 2, "public": True, "x": 1}}, "public.x"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_fix_refuses_bad_bodies_naming_the_field(client, game, body, field):
    answer = client.post(f"/api/games/{game['id']}/fix", json=body, headers=bearer(game))
    assert answer.status_code == 400
    assert answer.get_json().get("field") == field


def test_fix_the_table_cannot_take_is_a_conflict(client, game):
    answer = client.post(f"/api/games/{game['id']}/fix", json={"turn": 5}, headers=bearer(game))
    assert answer.status_code == 409 and answer.get_json()["error"] == "fix_no_player"
    assert (answer.get_json()["field"], answer.get_json()["params"]) == ("turn", {"slot": 5})
    other = client.post("/api/games", json={"players": PLAYERS}).get_json()
    answer = client.post(f"/api/games/{game['id']}/undo", json={}, headers=bearer(game))
    assert answer.status_code == 409 and answer.get_json()["error"] == "not_on_table"
    assert (
        client.post(f"/api/games/{other['id']}/undo", json={}, headers=bearer(other)).status_code
        == 200
    )


def test_engine_route(client):
    game = client.post("/api/games", json={"players": PLAYERS, "rules": "aces"}).get_json()
    path = f"/api/games/{game['id']}/rounds/1/engine"
    answer = client.post(path, json={"engine": 10}, headers=bearer(game))
    assert answer.status_code == 200 and answer.get_json()["rounds"][0]["engine"] == 10
    assert client.get("/api/state").get_json()["game"]["engine"] == 10
    answer = client.post(path, json={"engine": "ten"}, headers=bearer(game))
    assert answer.status_code == 400 and answer.get_json()["field"] == "engine"
    answer = client.post(path, json={"engine": 13}, headers=bearer(game))
    assert answer.status_code == 400 and answer.get_json()["error"] == "engine_range"
    assert answer.get_json()["params"] == {"value": 13, "most": 12}

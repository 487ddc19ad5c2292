"""The self-test on the page: the running hub walks a scripted person through every
part over ``/api/selftest``; its inputs do not reach the table meanwhile."""

from __future__ import annotations

from hub.io.sound import SOUND_NAMES
from tests.helpers import eventually


def status(client) -> dict:
    r = client.get("/api/selftest")
    assert r.status_code == 200
    return r.get_json()


def act(client, action: str, **headers):
    return client.post("/api/selftest", json={"action": action}, headers=headers)


def wait_step(client, number: int, timeout: float = 5.0) -> dict:
    """The status once step ``number`` waits (or the test is over); after ``timeout`` s,
    the status as it is (the test's assertions then say what is wrong)."""

    def reached() -> dict | None:
        now = status(client)
        return now if not now["running"] or now["step"]["number"] >= number else None

    return eventually(reached, timeout) or status(client)


def do(hub, step: dict) -> None:
    """What a person at the hub does for ``step``."""
    if step["kind"] == "button":
        hub.sim.button(step["slot"], True)
        hub.sim.button(step["slot"], False)
    else:
        hub.sim.marker(step["slot"], step["kind"] == "marker-on")


def test_a_person_at_the_hub_passes_every_part_from_the_page(live_hub, client):
    assert status(client)["running"] is False
    started = act(client, "start")
    assert started.status_code == 200
    now = started.get_json()
    assert now["step"] == {
        "kind": "button",
        "slot": 1,
        "sound": "",
        "part": "slot 1 button",
        "pin": "BCM 4 (header pin 7)",
        "number": 1,
        "answer": False,
        "prompt": "Press and release the button of slot 1.",
    }
    lit_seen = []
    while now["running"]:
        step = now["step"]
        if step["answer"]:
            if step["kind"] == "light":
                lit_seen.append([i for i, p in enumerate(live_hub.leds.pixels) if any(p[:3])])
            now = act(client, "yes").get_json()
        else:
            do(live_hub, step)
            now = wait_step(client, step["number"] + 1)
            if step["kind"] == "marker-on":  # the table never saw it
                live_hub.loop.drain()
                assert live_hub.loop.snapshot["slots"][step["slot"] - 1]["marker"] is False
    assert now["done"] and now["passed"]
    assert len(now["results"]) == 8 + 1 + 16 + 8 + len(SOUND_NAMES)
    assert now["results"][8] == {
        "kind": "button",
        "slot": 0,
        "sound": "",
        "part": "centre button",
        "pin": "BCM 10 (header pin 19)",
        "passed": True,
        "detail": "pressed and released",
    }
    assert lit_seen == [[3 * n, 3 * n + 1, 3 * n + 2] for n in range(8)]
    assert live_hub.sound.played[-len(SOUND_NAMES) :] == list(SOUND_NAMES)
    # Nothing reached the table meanwhile, and the ring shows the table again.
    assert [e for e in live_hub.eventlog.recent(100) if e.get("kind") == "marker"] == []
    assert all(p[:3] != (255, 255, 255) for p in live_hub.leds.pixels)


def test_the_markers_are_read_again_when_the_test_ends(live_hub, client):
    act(client, "start")
    live_hub.sim.marker(3, True)  # put down during the test: the table did not see it
    assert act(client, "stop").get_json()["running"] is False
    eventually(lambda: live_hub.loop.snapshot["slots"][2]["marker"], 5)
    assert live_hub.loop.snapshot["slots"][2]["marker"] is True


def test_skip_and_stop_keep_what_was_done(live_hub, client):
    act(client, "start")
    now = act(client, "skip").get_json()
    assert now["results"] == [
        {
            "kind": "button",
            "slot": 1,
            "sound": "",
            "part": "slot 1 button",
            "pin": "BCM 4 (header pin 7)",
            "passed": False,
            "detail": "skipped",
        }
    ]
    assert act(client, "yes").status_code == 409  # a button step wants the hub, not an answer
    now = act(client, "stop").get_json()
    assert now["running"] is False and len(now["results"]) == 1
    assert act(client, "skip").status_code == 409
    live_hub.sim.button(2, True)  # after the test: the table sees presses again
    live_hub.sim.button(2, False)


def test_no_self_test_while_a_game_is_played(live_hub, client):
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": "consensus"})
    assert r.status_code == 201
    r = act(client, "start")
    assert r.status_code == 409
    assert r.get_json() == {
        "error": "action: a game is being played: finish it (or end it) "
        "before the self-test takes the hub",
        "field": "action",
        "message": "A game is being played: finish it (or end it) before the self-test "
        "takes the hub",
    }
    assert status(client)["running"] is False


def test_bad_requests_are_refused_by_name(client):
    r = client.post("/api/selftest", data="action=start")
    assert r.status_code == 415
    r = act(client, "start", Origin="http://evil.example")
    assert r.status_code == 403 and "Origin http://evil.example" in r.get_json()["error"]
    r = act(client, "launch")
    assert r.status_code == 400 and r.get_json()["field"] == "action"
    r = client.post("/api/selftest", json={"action": "start", "force": True})
    assert r.status_code == 400 and r.get_json()["field"] == "force"
    assert status(client)["running"] is False


def test_the_page_view_is_there(client):
    assert client.get("/selftest").headers["Location"].endswith("/#/selftest")
    js = client.get("/static/selftest.js")
    assert js.status_code == 200 and b"/api/selftest" in js.data
    assert b'selftest: () => import("./selftest.js")' in client.get("/static/app.js").data


def test_a_game_started_during_the_self_test_ends_it_and_gets_the_presses(live_hub, client):
    assert act(client, "start").status_code == 200
    assert status(client)["running"] is True
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "first": 1})
    assert r.status_code == 201
    before = client.get("/api/state").get_json()["turn"]
    live_hub.sim.button(before, True)  # the first player ends the turn at the hub
    live_hub.sim.button(before, False)
    # The press reaches the game (not the self-test), which ends the self-test.
    assert eventually(lambda: client.get("/api/state").get_json()["turn"] != before)
    assert status(client)["running"] is False

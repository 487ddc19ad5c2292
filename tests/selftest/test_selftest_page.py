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


def test_a_person_at_the_hub_passes_every_part_from_the_page(live_hub, client, table_proof):
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
        "outcome": "pressed",
        "seconds": None,
        "strays": [],
    }
    assert lit_seen == [[3 * n, 3 * n + 1, 3 * n + 2] for n in range(8)]
    assert live_hub.sound.played[-len(SOUND_NAMES) :] == list(SOUND_NAMES)
    # Nothing reached the table meanwhile, and the ring shows the table again.
    assert [e for e in live_hub.eventlog.recent(100) if e.get("kind") == "marker"] == []
    assert all(p[:3] != (255, 255, 255) for p in live_hub.leds.pixels)


def test_the_markers_are_read_again_when_the_test_ends(live_hub, client, table_proof):
    act(client, "start")
    live_hub.sim.marker(3, True)  # put down during the test: the table did not see it
    assert act(client, "stop").get_json()["running"] is False
    eventually(lambda: live_hub.loop.snapshot["slots"][2]["marker"], 5)
    assert live_hub.loop.snapshot["slots"][2]["marker"] is True


def test_skip_and_stop_keep_what_was_done(live_hub, client, table_proof):
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
            "outcome": "skipped",
            "seconds": None,
            "strays": [],
        }
    ]
    assert act(client, "yes").status_code == 409  # a button step wants the hub, not an answer
    now = act(client, "stop").get_json()
    assert now["running"] is False and len(now["results"]) == 1
    assert act(client, "skip").status_code == 409
    live_hub.sim.button(2, True)  # after the test: the table sees presses again
    live_hub.sim.button(2, False)


def test_an_answer_names_its_step_and_a_double_tap_answers_one_step(live_hub, client, table_proof):
    """A "yes" tapped twice (or tapped on a page a poll behind the hub) must not answer
    the next light or sound unseen: an answer naming another step than the one waiting
    is refused, 409 on the field ``step``, and nothing is recorded for it."""
    now = act(client, "start").get_json()
    while now["running"] and not now["step"]["answer"]:
        now = client.post(
            "/api/selftest", json={"action": "skip", "step": now["step"]["number"]}
        ).get_json()
    first = now["step"]["number"]
    assert now["step"]["kind"] == "light" and first == 8 + 1 + 16 + 1
    tap = {"action": "yes", "step": first}
    now = client.post("/api/selftest", json=tap).get_json()
    assert now["step"]["number"] == first + 1 and now["results"][-1]["outcome"] == "confirmed"
    again = client.post("/api/selftest", json=tap)  # the second tap of a double tap
    assert again.status_code == 409
    assert again.get_json()["field"] == "step"
    assert again.get_json()["error"] == "selftest_moved"
    assert again.get_json()["params"] == {"now": first + 1}
    late_skip = client.post("/api/selftest", json={"action": "skip", "step": first})
    assert late_skip.status_code == 409
    now = status(client)
    assert now["step"]["number"] == first + 1 and len(now["results"]) == first
    # Without a step (a script, the CLI's habit), an answer is for the step waiting.
    assert act(client, "no").get_json()["results"][-1]["outcome"] == "not_seen"
    # Stop ends it whatever the page showed.
    stopped = client.post("/api/selftest", json={"action": "stop", "step": 1})
    assert stopped.status_code == 200 and stopped.get_json()["running"] is False


def test_no_self_test_while_a_game_is_played(live_hub, client, table_proof):
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "rules": "consensus"})
    assert r.status_code == 201
    r = act(client, "start")
    assert r.status_code == 409
    assert r.get_json() == {
        "error": "selftest_game",
        "field": "action",
        "params": {},
        "message": "A game is being played: finish it before the self-test takes the hub.",
    }
    assert status(client)["running"] is False


def test_bad_requests_are_refused_by_name(client):
    r = client.post("/api/selftest", data="action=start")
    assert r.status_code == 415
    r = act(client, "start", Origin="http://evil.example")
    assert r.status_code == 403 and r.get_json()["error"] == "origin_refused"
    assert r.get_json()["params"] == {"origin": "http://evil.example"}
    r = act(client, "launch")
    assert r.status_code == 400 and r.get_json()["field"] == "action"
    r = client.post("/api/selftest", json={"action": "start", "force": True})
    assert r.status_code == 400 and r.get_json()["field"] == "force"
    for step in (0, -1, "3", 2.0, True, [1]):
        r = client.post("/api/selftest", json={"action": "yes", "step": step})
        assert r.status_code == 400 and r.get_json()["field"] == "step", step
    assert status(client)["running"] is False


def test_the_page_view_is_there(client):
    assert client.get("/selftest").headers["Location"].endswith("/#/selftest")
    js = client.get("/static/selftest.js")
    assert js.status_code == 200 and b"/api/selftest" in js.data
    assert b'selftest: () => import("./selftest.js")' in client.get("/static/app.js").data


def test_a_game_started_during_the_self_test_ends_it_and_gets_the_presses(
    live_hub, client, table_proof
):
    assert act(client, "start").status_code == 200
    assert status(client)["running"] is True
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "first": 1})
    assert r.status_code == 201
    assert status(client)["running"] is False  # ended at once, not at the first press
    assert all(p[:3] != (255, 255, 255) for p in live_hub.leds.pixels)
    before = client.get("/api/state").get_json()["turn"]
    live_hub.sim.button(before, True)  # the first player ends the turn at the hub
    live_hub.sim.button(before, False)
    # The press reaches the game (not the self-test), which ends the self-test.
    assert eventually(lambda: client.get("/api/state").get_json()["turn"] != before)
    assert status(client)["running"] is False


# --- who may run it (issue 25, LOW 15) ---------------------------------------------------


def test_a_strangers_phone_cannot_start_the_self_test(live_hub, client):
    r = act(client, "start")
    assert r.status_code == 403
    assert r.get_json()["error"] == "selftest_proof"
    assert status(client)["running"] is False
    client.set_cookie("mtrain_table", "guessed-" + "0" * 24)  # a made-up table token
    assert act(client, "start").status_code == 403
    assert act(client, "start", Authorization="Bearer nothing").status_code == 403
    live_hub.sim.button(1, True)  # the table's presses still go to the table
    live_hub.sim.button(1, False)
    assert status(client)["running"] is False


def test_only_the_phone_that_started_it_or_the_table_answers_it(live_hub, client):
    token = live_hub.trust.table_token()
    started = act(client, "start", Authorization=f"Bearer {token}")
    assert started.status_code == 200 and started.get_json()["running"] is True
    stranger = create_stranger(live_hub)
    for action in ("skip", "stop"):
        r = act(stranger, action)
        assert r.status_code == 403 and r.get_json()["error"] == "selftest_not_yours"
    assert status(client)["results"] == []
    live_hub.trust._table_tokens.clear()  # lapsed: the starter's token still answers
    assert act(client, "skip", Authorization=f"Bearer {token}").status_code == 200
    other = live_hub.trust.table_token()  # another phone the table trusts may too
    assert act(stranger, "stop", Authorization=f"Bearer {other}").get_json()["running"] is False


def test_a_strangers_own_game_neither_starts_stops_answers_nor_ends_the_self_test(live_hub, client):
    """Issue 33, 11: a stranger plays a throwaway one-round game to its end, so the
    newest game is its own. Its token starts no self-test, stops or answers none of the
    family's, and its next game does not end the family's test; the table's proof does."""
    stranger = create_stranger(live_hub)
    r = stranger.post("/api/games", json={"players": ["Ann", "Bob"], "rounds": 1})
    game, token = r.get_json()["id"], r.get_json()["token"]
    own = {"Authorization": f"Bearer {token}"}
    blocked = stranger.post(f"/api/games/{game}/rounds/1/blocked", json={}, headers=own)
    assert blocked.status_code == 200
    scored = stranger.post(
        f"/api/games/{game}/rounds/1/scores", json={"points": {"Ann": 0, "Bob": 5}}, headers=own
    )
    assert scored.status_code == 200 and live_hub.running_game_id() is None
    refused = act(stranger, "start")  # its cookie of the newest game
    assert refused.status_code == 403 and refused.get_json()["error"] == "selftest_proof"
    assert act(stranger, "start", **own).status_code == 403
    table = {"Authorization": f"Bearer {live_hub.trust.table_token()}"}
    assert act(client, "start", **table).status_code == 200  # the family, with the proof
    for action in ("skip", "stop"):
        r = act(stranger, action)
        assert r.status_code == 403 and r.get_json()["error"] == "selftest_not_yours"
    again = stranger.post("/api/games", json={"players": ["Ann", "Bob"]})
    assert again.status_code == 409 and again.get_json()["error"] == "selftest_table"
    assert status(client)["running"] is True and status(client)["results"] == []
    ours = client.post("/api/games", json={"players": ["Cid", "Dee"]}, headers=table)
    assert ours.status_code == 201 and status(client)["running"] is False


def create_stranger(live_hub):
    from web import create_app

    return create_app(live_hub.web_service(), {"TESTING": True}).test_client()


# --- the up-front level check and the lights (issue 22, LOW) ----------------------------


def test_a_stuck_button_and_a_marker_left_on_are_named_at_the_start(live_hub, table_proof):
    client = table_proof
    live_hub.sim.button(3, True)  # stuck before the test
    live_hub.sim.marker(5, True)  # a marker left on
    live_hub.loop.drain()
    now = act(client, "start").get_json()
    assert now["stuck"] == [
        {
            "kind": "button",
            "slot": 3,
            "pin": "BCM 27 (header pin 13)",
            "reads": "reads pressed since the start, before any press: stuck, or shorted to ground",
        },
        {
            "kind": "marker",
            "slot": 5,
            "pin": "BCM 16 (header pin 36)",
            "reads": "reads a marker since the start: one left on (take it off), or a stuck sensor",
        },
    ]
    for slot in (1, 2):
        do(live_hub, {"kind": "button", "slot": slot})
    # Step 3 failed at once, naming why: no 20 s wait for a press that cannot come.
    now = wait_step(client, 4)
    assert now["results"][2] == {
        "kind": "button",
        "slot": 3,
        "sound": "",
        "part": "slot 3 button",
        "pin": "BCM 27 (header pin 13)",
        "passed": False,
        "detail": "reads pressed since the start, before any press: stuck, or shorted to ground",
        "outcome": "stuck_button",
        "seconds": None,
        "strays": [],
    }
    assert now["step"]["part"] == "slot 4 button"


def test_without_a_hub_box_the_lights_are_left_out(make_hub):
    from hub.runtime.clock import SystemClock
    from web import create_app

    hub = make_hub(threaded=True, clock=SystemClock(), backend="gpio")
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    client.set_cookie("mtrain_table", hub.trust.table_token())
    now = act(client, "start").get_json()
    assert now["lights"] is False and now["stuck"] == []
    assert now["steps"] == 8 + 1 + 16 + len(SOUND_NAMES)  # no "slot n lights" step
    assert "selftest.no_ring" in client.get("/static/selftest.js").data.decode()

"""The trust model over HTTP on a live sim hub: who may start a game over a running one,
abandoned games and bringing them back, settings, the claim at the table, and stale
score edits (docs/security.md, "Trust: who may do what")."""

from __future__ import annotations

import stat

from hub.core import apply, new_table
from hub.core.effects import ClaimAnswered, LogEntry, PlaySound
from hub.core.events import CENTRE, ButtonChanged, ClaimRequested, ClockTicked
from hub.core.news import GESTURES
from hub.persist.storage import make_private

PLAYERS = ["Ann", "Bob", "Cid"]


def _start(client, token=None, **extra):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(
        "/api/games", json={"players": PLAYERS, "first": 1, **extra}, headers=headers
    )


def test_a_viewer_cannot_start_a_game_over_a_running_one(client, live_hub):
    first = _start(client).get_json()
    client.delete_cookie(f"mtrain_token_{first['id']}")  # now a viewer
    r = _start(client)
    assert r.status_code == 403 and r.get_json()["error"] == "game_unfinished"
    assert client.get("/api/state").get_json()["game"]["id"] == first["id"]
    assert [g["id"] for g in client.get("/api/games").get_json()] == [first["id"]]


def test_the_scorekeeper_replaces_the_game_and_the_old_one_is_abandoned(client, live_hub):
    first = _start(client).get_json()
    r = _start(client, token=first["token"])
    assert r.status_code == 201 and r.get_json()["replaced"] == first["id"]
    second = r.get_json()
    listed = {g["id"]: g["abandoned"] for g in client.get("/api/games").get_json()}
    assert listed == {first["id"]: True, second["id"]: False}
    assert live_hub.store.current_game()["id"] == second["id"]
    # The old scorekeeper alone cannot put theirs back over the new game ...
    client.delete_cookie(f"mtrain_token_{second['id']}")
    r = client.post(
        f"/api/games/{first['id']}/resume",
        json={},
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    assert r.status_code == 403 and r.get_json()["params"] == {"game": second["id"]}
    # ... with the new game's cookie too, it comes back and the new one is abandoned.
    client.set_cookie(f"mtrain_token_{second['id']}", second["token"])
    r = client.post(
        f"/api/games/{first['id']}/resume",
        json={},
        headers={"Authorization": f"Bearer {first['token']}"},
    )
    assert r.status_code == 200 and not r.get_json()["abandoned"]
    assert client.get("/api/state").get_json()["game"]["id"] == first["id"]
    assert client.get(f"/api/games/{second['id']}").get_json()["abandoned"]


def test_settings_need_the_table_with_no_game_and_the_scorekeeper_with_one(client, live_hub):
    r = client.post("/api/settings", json={"volume": 0.2})
    assert r.status_code == 401 and r.get_json()["error"] == "settings_table"
    client.set_cookie("mtrain_table", "forged")
    assert client.post("/api/settings", json={"volume": 0.2}).status_code == 403
    client.set_cookie("mtrain_table", live_hub.trust.table_token())
    assert client.post("/api/settings", json={"volume": 0.2}).status_code == 200
    client.delete_cookie("mtrain_table")
    game = _start(client).get_json()
    client.delete_cookie(f"mtrain_token_{game['id']}")
    assert client.post("/api/settings", json={"volume": 0.3}).status_code == 401
    r = client.post(
        "/api/settings", json={"volume": 0.3}, headers={"Authorization": f"Bearer {game['token']}"}
    )
    assert r.status_code == 200 and r.get_json()["volume"] == 0.3


def test_a_claim_hands_the_role_to_a_phone_by_the_chord_on_the_lit_slot(client, live_hub):
    game = _start(client).get_json()
    client.delete_cookie(f"mtrain_token_{game['id']}")
    before = client.get("/api/state").get_json()
    r = client.post("/api/claim", json={})
    assert r.status_code == 202
    claim = r.get_json()
    assert claim["seconds"] == 30 and 1 <= claim["slot"] <= 8
    state = client.get("/api/state").get_json()
    assert state["claim"] == {"slot": claim["slot"]}
    assert {"kind": "sound", "name": "turn"} in [
        {k: e[k] for k in ("kind", "name") if k in e} for e in live_hub.eventlog.recent(5)
    ]
    assert client.get(f"/api/claim/{claim['claim']}").get_json()["state"] == "waiting"
    chord = {"hold_ms": 1500, "centre": True}  # the lit slot and the centre, together
    after = client.post(f"/api/sim/slots/{claim['slot']}/press", json=chord)
    after_state = after.get_json()
    assert after_state["claim"] is None
    # The chord was the claim's: the game did not move (no double, no undo).
    assert (after_state["turn"], after_state["undo"]) == (before["turn"], before["undo"])
    r = client.get(f"/api/claim/{claim['claim']}")
    answer = r.get_json()
    assert answer["state"] == "granted" and answer["game"] == game["id"]
    assert f"mtrain_token_{game['id']}=" in r.headers["Set-Cookie"]
    assert live_hub.store.check_token(game["id"], answer["token"])
    assert live_hub.store.check_token(game["id"], game["token"])  # the old one stays
    assert client.get("/api/claim/unknown").status_code == 404


def test_a_claim_with_no_game_gives_a_table_token(client, live_hub):
    claim = client.post("/api/claim", json={}).get_json()
    chord = {"hold_ms": 1500, "centre": True}
    client.post(f"/api/sim/slots/{claim['slot']}/press", json=chord)
    r = client.get(f"/api/claim/{claim['claim']}")
    assert r.get_json()["game"] is None and "mtrain_table=" in r.headers["Set-Cookie"]
    assert "SameSite=Strict" in r.headers["Set-Cookie"]
    assert client.post("/api/settings", json={"volume": 0.4}).status_code == 200
    first = _start(client).get_json()
    client.delete_cookie(f"mtrain_token_{first['id']}")
    assert _start(client).status_code == 201  # the table may start one over it


def test_a_stale_score_edit_is_refused_409_with_the_round_as_it_is(client, live_hub):
    game = _start(client).get_json()
    path = f"/api/games/{game['id']}/rounds/1/scores"
    version = client.get(f"/api/games/{game['id']}").get_json()["version"]
    first = {"points": {"Ann": 0, "Bob": 5, "Cid": 7}, "version": version, "mid_round": True}
    assert client.post(path, json=first).status_code == 200
    r = client.post(path, json={"points": {"Ann": 0, "Bob": 9, "Cid": 9}, "version": version})
    body = r.get_json()
    assert r.status_code == 409 and body["field"] == "version"
    assert body["round"]["points"] == {"Ann": 0, "Bob": 5, "Cid": 7}
    assert body["version"] > version
    r = client.post(
        path, json={"points": {"Ann": 0, "Bob": 9, "Cid": 9}, "version": body["version"]}
    )
    assert r.status_code == 200
    bad = client.post(path, json={"points": {"Ann": 0, "Bob": 9, "Cid": 9}, "version": "x"})
    assert bad.status_code == 400 and bad.get_json()["field"] == "version"


def _chord(table, slot, at, hold=1.5):
    """The lit slot and the centre pressed together at ``at``, let go ``hold`` later."""
    table, _ = apply(table, ButtonChanged(CENTRE, True, at))
    table, effects = apply(table, ButtonChanged(slot, True, at))
    table, more = apply(table, ButtonChanged(slot, False, at + hold))
    effects += more
    table, more = apply(table, ButtonChanged(CENTRE, False, at + hold))
    return table, effects + more


def test_the_claim_window_closes_in_the_core():
    table, effects = apply(new_table(), ClaimRequested(7, 3, at=10.0))
    assert table.claims and PlaySound("turn") in effects
    assert table.due == 40.0
    table, effects = apply(table, ClockTicked(40.5))
    assert table.claims == () and ClaimAnswered(7, granted=False) in effects
    # A chord after the window is no claim's.
    table, effects = _chord(table, 3, 41.0)
    assert not any(isinstance(e, ClaimAnswered) for e in effects)


def test_the_chord_on_another_slot_leaves_the_claim_waiting():
    table, _ = apply(new_table(), ClaimRequested(1, 3, at=0.0))
    table, effects = _chord(table, 4, 1.0)
    assert table.claims and not any(isinstance(e, ClaimAnswered) for e in effects)
    table, effects = _chord(table, 3, 4.0)  # the chord on the lit slot
    assert table.claims == () and ClaimAnswered(1, granted=True) in effects
    # Both presses were the claim's: no tap, hold or undo reached the table.
    assert not any(isinstance(e, LogEntry) and e.kind in GESTURES for e in effects)


def test_the_chord_grants_while_held_and_its_presses_do_nothing_else():
    table, _ = apply(new_table(), ClaimRequested(1, 3, at=0.0))
    table, _ = apply(table, ButtonChanged(CENTRE, True, 2.0))
    table, _ = apply(table, ButtonChanged(3, True, 2.2))
    assert table.due == 3.2  # held together longer than a tap
    table, effects = apply(table, ClockTicked(3.2))
    assert ClaimAnswered(1, granted=True) in effects and table.claims == ()
    table, effects = apply(table, ClockTicked(9.0))  # held on past both long holds
    table, more = apply(table, ButtonChanged(3, False, 9.1))
    table, again = apply(table, ButtonChanged(CENTRE, False, 9.2))
    assert not [e for e in effects + more + again if isinstance(e, LogEntry)]


def test_a_chord_begun_before_the_slot_lit_grants_nothing():
    table, _ = apply(new_table(), ButtonChanged(CENTRE, True, 0.0))
    table, _ = apply(table, ButtonChanged(3, True, 0.1))
    table, _ = apply(table, ClaimRequested(1, 3, at=0.5))  # lit under the hands
    table, effects = apply(table, ClockTicked(3.0))
    assert table.claims and not any(isinstance(e, ClaimAnswered) for e in effects)


def test_claims_wait_side_by_side_and_each_chord_answers_its_own():
    table, _ = apply(new_table(), ClaimRequested(1, 3, at=0.0))
    table, effects = apply(table, ClaimRequested(2, 3, at=1.0))  # its slot is taken
    assert effects == [ClaimAnswered(2, granted=False)]  # refused at once, no chime
    table, effects = apply(table, ClaimRequested(3, 5, at=1.0))  # another slot: lit too
    assert PlaySound("turn") in effects and [c.slot for c in table.claims] == [3, 5]
    table, effects = _chord(table, 5, 2.0)
    assert ClaimAnswered(3, granted=True) in effects
    assert ClaimAnswered(1, granted=True) not in effects and table.claims[0].number == 1


def test_the_state_folder_is_made_private(tmp_path):
    folder = tmp_path / "state"
    (folder / "backups").mkdir(parents=True)
    for name in ("games.db", "settings.json", "backups/games-1.db"):
        (folder / name).write_text("x")
        (folder / name).chmod(0o644)
    folder.chmod(0o755)
    make_private(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in ("games.db", "settings.json", "backups/games-1.db"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600


def _phone(live_hub, address):
    from web import create_app

    app = create_app(live_hub.web_service(), {"TESTING": True})
    return app, _client(app, address)


def _client(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_a_second_phone_can_neither_race_nor_camp_a_claim(live_hub):
    app, asker = _phone(live_hub, "10.0.0.2")
    rival = _client(app, "10.0.0.66")
    game = _start(asker).get_json()
    asker.delete_cookie(f"mtrain_token_{game['id']}")
    claim = asker.post("/api/claim", json={}).get_json()
    # Racing: the rival's claim gets a slot of its own, never the asker's; its next
    # asks are refused while its own waits.
    theirs = rival.post("/api/claim", json={})
    assert theirs.status_code == 202 and theirs.get_json()["slot"] != claim["slot"]
    r = rival.post("/api/claim", json={})
    assert r.status_code == 409 and r.get_json()["error"] == "claim_waiting"
    lit = rival.get("/api/state").get_json()["claims"]
    assert lit == [{"slot": claim["slot"]}, {"slot": theirs.get_json()["slot"]}]
    # Camping: ordinary taps on the lit slot play the game and never grant the claim.
    for _ in range(3):
        tapped = rival.post(f"/api/sim/slots/{claim['slot']}/press", json={"hold_ms": 0})
        assert tapped.status_code == 200 and {"slot": claim["slot"]} in tapped.get_json()["claims"]
    assert asker.get(f"/api/claim/{claim['claim']}").get_json()["state"] == "waiting"
    taps = [
        e
        for e in live_hub.eventlog.recent(50)
        if e.get("kind") == "tap" and e.get("slot") == claim["slot"]
    ]
    assert taps  # the taps went to the game, as ordinary taps (no claim took them)
    # The chord the asker was told of grants the asker, and only the asker knows it.
    chord = {"hold_ms": 1500, "centre": True}
    held = rival.post(f"/api/sim/slots/{claim['slot']}/press", json=chord)
    assert {"slot": claim["slot"]} not in held.get_json()["claims"]
    answer = asker.get(f"/api/claim/{claim['claim']}").get_json()
    assert answer["state"] == "granted" and live_hub.store.check_token(game["id"], answer["token"])
    assert rival.get(f"/api/claim/{theirs.get_json()['claim']}").get_json()["state"] == "waiting"


def test_claims_are_rate_limited_per_address(live_hub, monkeypatch):
    from web import trust_api

    app, phone = _phone(live_hub, "10.0.0.9")
    statuses = [phone.post("/api/claim", json={}).status_code for _ in range(4)]
    assert statuses == [202, 409, 409, 429]  # every ask counts, refused or not
    r = phone.post("/api/claim", json={})
    assert r.status_code == 429 and 1 <= int(r.headers["Retry-After"]) <= 60
    assert r.get_json()["error"] == "wait"
    assert r.get_json()["params"] == {"count": int(r.headers["Retry-After"])}
    now = [0.0]
    limits = trust_api.ClaimLimits(lambda: now[0])
    assert [limits.wait("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limits.wait("a") == trust_api.CLAIM_SPAN_S
    others = [limits.wait(f"b{i}") for i in range(20)]
    assert others.count(0.0) == 20  # no count shared: one asker never uses up another's
    now[0] += trust_api.CLAIM_SPAN_S
    assert limits.wait("a") == 0.0  # the span passed
    # Past the addresses remembered, the rest share one count.
    monkeypatch.setattr(trust_api, "MOST_CLIENTS", 2)
    crowd = trust_api.ClaimLimits(lambda: now[0])
    waits = [crowd.wait(f"c{i}") for i in range(2 + trust_api.CLAIMS_IN_ALL + 1)]
    assert waits.count(0.0) == 2 + trust_api.CLAIMS_IN_ALL


def test_a_stranger_cannot_lock_the_family_out_of_the_evenings_first_game(live_hub):
    """A stranger starts a throwaway game and mutes the hub with its token, then races
    and camps every claim; the family's hold at the hub still wins the role, replaces
    the throwaway game and unmutes."""
    app, stranger = _phone(live_hub, "10.0.0.66")
    family = _client(app, "10.0.0.2")
    throwaway = _start(stranger).get_json()
    muted = stranger.post(
        "/api/settings",
        json={"quiet": "mute"},
        headers={"Authorization": f"Bearer {throwaway['token']}"},
    )
    assert muted.status_code == 200
    assert _start(family).status_code == 403  # not without the table's proof
    claim = family.post("/api/claim", json={}).get_json()
    racing = stranger.post("/api/claim", json={}).get_json()  # a slot of its own
    slot = claim["slot"]
    assert racing["slot"] != slot
    assert stranger.post(f"/api/sim/slots/{slot}/press", json={"hold_ms": 0}).status_code == 200
    chord = {"hold_ms": 1500, "centre": True}
    family.post(f"/api/sim/slots/{slot}/press", json=chord)  # hands on the hub
    granted = family.get(f"/api/claim/{claim['claim']}").get_json()
    assert granted["state"] == "granted" and granted["game"] == throwaway["id"]
    ours = _start(family, token=granted["token"])
    assert ours.status_code == 201
    new = ours.get_json()
    r = family.post(
        "/api/settings",
        json={"quiet": "off"},
        headers={"Authorization": f"Bearer {new['token']}"},
    )
    assert r.status_code == 200 and r.get_json()["quiet"] == "off"
    listed = {g["id"]: g.get("abandoned") for g in family.get("/api/games").get_json()}
    assert listed[throwaway["id"]] is True and live_hub.loop.snapshot["game"]["id"] == new["id"]

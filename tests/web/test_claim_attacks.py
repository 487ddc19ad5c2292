"""The claim under attack, on a sim hub on virtual time (docs/security.md, "Threat model:
the claim"): a stranger re-asking the moment its claim lapses never keeps the family
from being granted within a minute, and no game gesture on the lit slot (a double, a
went-out) ever grants a claim."""

from __future__ import annotations

from typing import Any

import pytest

from hub.http.adapter import HubWebService
from tablesim.virtual import FakeClock
from tests.doubles import InlineTimers
from web import create_app
from web.trust_api import ClaimLimits

EIGHT = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
CHORD = {"hold_ms": 1500, "centre": True}  # the lit slot and the centre, together


class Table:
    """A sim hub on a virtual clock, served to phones at addresses of their own."""

    def __init__(self, make_hub: Any) -> None:
        self.clock = FakeClock()
        self.hub = make_hub(threaded=True, clock=self.clock)
        service = HubWebService(
            self.hub.web_parts(), sleep=self.sleep, timers=InlineTimers(self.sleep)
        )
        self.app = create_app(service, {"TESTING": True})
        self.app.extensions["claim_limits"] = ClaimLimits(self.clock.now)

    def sleep(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.hub.loop.drain()

    def phone(self, address: str) -> Any:
        client = self.app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        return client

    def log(self, kind: str, slot: int) -> int:
        return sum(
            e.get("kind") == kind and e.get("slot") == slot for e in self.hub.eventlog.recent(500)
        )


@pytest.fixture
def table(make_hub: Any) -> Table:
    return Table(make_hub)


def test_a_stranger_re_asking_at_every_lapse_never_locks_the_family_out(table):
    """The lock-out of issue 33: a stranger's throwaway game, muted; the stranger asks
    again the moment its claim lapses; the family's phone (another address) asks every
    5 s. The family is lit, makes the chord and has the role within 60 s; with it, it
    replaces the throwaway game and unmutes (the table's proof always wins)."""
    stranger, family = table.phone("10.0.0.66"), table.phone("10.0.0.2")
    throwaway = stranger.post("/api/games", json={"players": EIGHT[:3]}).get_json()
    bearer = {"Authorization": f"Bearer {throwaway['token']}"}
    assert stranger.post("/api/settings", json={"quiet": "mute"}, headers=bearer).status_code == 200
    assert family.post("/api/games", json={"players": EIGHT[:4]}).status_code == 403
    theirs = stranger.post("/api/claim", json={}).get_json()
    started, granted, statuses = table.clock.now(), None, []
    while granted is None and table.clock.now() - started < 60:
        if stranger.get(f"/api/claim/{theirs['claim']}").get_json()["state"] != "waiting":
            asked = stranger.post("/api/claim", json={})  # the moment it lapsed
            theirs = asked.get_json() if asked.status_code == 202 else theirs
        r = family.post("/api/claim", json={})
        statuses.append(r.status_code)
        if r.status_code == 202:
            ours = r.get_json()
            assert ours["slot"] != theirs["slot"]  # a slot of its own
            family.post(f"/api/sim/slots/{ours['slot']}/press", json=CHORD)  # at the hub
            answer = family.get(f"/api/claim/{ours['claim']}").get_json()
            granted = answer if answer["state"] == "granted" else None
        table.sleep(5.0)
    assert granted is not None, f"the family was never granted: {statuses}"
    assert granted["game"] == throwaway["id"]
    # The stranger's claim is still waiting: the family's chord was not its.
    assert stranger.get(f"/api/claim/{theirs['claim']}").get_json()["state"] != "granted"
    family_bearer = {"Authorization": f"Bearer {granted['token']}"}
    ours = family.post("/api/games", json={"players": EIGHT[:4]}, headers=family_bearer)
    assert ours.status_code == 201 and ours.get_json()["replaced"] == throwaway["id"]
    bearer = {"Authorization": f"Bearer {ours.get_json()['token']}"}
    unmuted = family.post("/api/settings", json={"quiet": "off"}, headers=bearer)
    assert unmuted.status_code == 200 and unmuted.get_json()["quiet"] == "off"


def test_one_phone_has_one_claim_waiting_and_each_asker_is_counted_alone(table):
    one, other = table.phone("10.0.0.5"), table.phone("10.0.0.6")
    assert one.post("/api/claim", json={}).status_code == 202
    for _ in range(2):
        again = one.post("/api/claim", json={})
        assert again.status_code == 409 and again.get_json()["error"] == "claim_waiting"
    assert one.post("/api/claim", json={}).status_code == 429  # 3 asks a minute
    lit = {s["slot"] for s in one.get("/api/state").get_json()["claims"]}
    assert other.post("/api/claim", json={}).status_code == 202  # not one's count
    assert len({s["slot"] for s in one.get("/api/state").get_json()["claims"]} - lit) == 1


def test_no_double_and_no_went_out_on_the_lit_slot_grants_a_claim(table):
    """Camping: a stranger's claim waits through play; the lit slot's player lays a
    double there (a hold) and goes out (a long hold). Both act on the game, as ever,
    and neither grants the claim; the chord the stranger's phone asks for does."""
    stranger = table.phone("10.0.0.66")
    claim = stranger.post("/api/claim", json={}).get_json()
    lit = claim["slot"]
    game = {"players": EIGHT, "rules": "consensus", "first": lit}
    assert stranger.post("/api/games", json=game).status_code == 201

    def waiting() -> bool:
        return stranger.get(f"/api/claim/{claim['claim']}").get_json()["state"] == "waiting"

    state = stranger.post(f"/api/sim/slots/{lit}/press", json={"hold_ms": 1500}).get_json()
    assert state["double"] is not None and state["double"]["slot"] == lit  # the chicken
    assert table.log("hold", lit) == 1 and waiting()
    state = stranger.post(f"/api/sim/slots/{lit}/press", json={"hold_ms": 4500}).get_json()
    assert table.log("long-hold", lit) == 1 and waiting()
    assert state["claims"] == [{"slot": lit}]
    stranger.post(f"/api/sim/slots/{lit}/press", json=CHORD)
    assert stranger.get(f"/api/claim/{claim['claim']}").get_json()["state"] == "granted"
    assert table.log("hold", lit) == 1 and table.log("long-hold", lit) == 1  # no more

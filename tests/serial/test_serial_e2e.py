"""The encyclopedia seed's worked example through the fake microcontroller:
``mtrain-hub fake-mcu`` and ``mtrain-hub run --backend serial`` as subprocesses, the
presses typed into the fake's standard input, the results read over HTTP. The same
results as on ``sim`` (tests/sim/test_e2e.py)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from tests.helpers import until
from tests.http_client import HubProcess

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
EIGHT = [*PLAYERS, "Gus", "Hal"]


class FakeMcuProcess:
    """``mtrain-hub fake-mcu`` with its output read on a thread."""

    def __init__(self, link: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hub.cli", "fake-mcu", "--link", link],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        assert self.proc.stdout is not None
        self.path = self.proc.stdout.readline().strip()
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def stop(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=10)
        self.reader.join(5)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        return code


@pytest.fixture
def rig(tmp_path):
    mcu = FakeMcuProcess(str(tmp_path / "hub-box"))
    hub = HubProcess(tmp_path / "state", "--backend", "serial", "--serial-port", mcu.path)
    yield hub, mcu
    assert hub.stop() == 0
    assert mcu.stop() == 0


def test_worked_example_through_the_fake_microcontroller(rig):
    hub, mcu = rig
    until(
        lambda: hub.get("/api/state")[1].get("serial", {}).get("connected"),
        what="the hub box",
        timeout=15,
    )
    status, _ = hub.post(
        "/api/games",
        {"players": PLAYERS, "rules": "consensus", "set": 9, "first": 1, "mexican_slot": 8},
    )
    assert status == 201

    def gestures() -> int:
        _, log = hub.get("/api/log?limit=500")
        return sum(e["kind"] in ("tap", "hold", "marker") for e in log)

    def act(command: str) -> dict:
        before = gestures()
        mcu.send(command)
        until(lambda: gestures() > before, what=command, timeout=15)
        return hub.get("/api/state")[1]

    for _ in range(2):
        for slot in range(1, 7):
            act(f"press {slot} 100")
    assert act("press 1 1500")["double"]["slot"] == 1
    assert act("press 1 100")["double"] is None
    assert act("press 2 1500")["double"] == {
        "slot": 2,
        "covers_left": 1,
        "responsible": 2,
        "waiting": False,
        "queued": False,
    }
    assert act("marker 2 1")["double"]["responsible"] == 3
    assert act("marker 3 1")["double"]["responsible"] == 4
    state = act("press 2 100")
    public = {s["slot"] for s in state["slots"] if s["public"] and s["owner"] != "mexican"}
    assert public == {2, 3} and state["turn"] == 5 and state["double"] is None
    _, log = hub.get("/api/log?limit=500")
    sounds = [e["name"] for e in log if e["kind"] == "sound"]
    assert sounds.count("chicken") == 2 and sounds.count("choo") == 2
    assert "reminder" not in sounds and "nope" not in sounds
    # The ring the fake box printed last is the one the page shows.
    ring = state["ring"]["pixels"]
    until(
        lambda: mcu.lines and mcu.lines[-1] == "leds " + " ".join(ring), what="the ring", timeout=15
    )
    assert len(mcu.lines[-1].split()) == 25


def test_a_claim_through_the_fake_microcontroller_is_neither_raced_nor_camped(rig):
    """The claim on the serial backend: a second phone's claim gets a slot of its own,
    taps, a double and a went-out on the lit slot from the box play the game and never
    grant it, and the chord the first phone asked for grants that phone alone."""
    hub, mcu = rig
    until(lambda: hub.get("/api/state")[1].get("serial", {}).get("connected"), what="the hub box")
    status, claim = hub.post("/api/claim", {})
    assert status == 202
    slot = claim["slot"]
    status, game = hub.post("/api/games", {"players": EIGHT, "first": slot})
    assert status == 201

    def logged(kind: str) -> int:
        _, log = hub.get("/api/log?limit=500")
        return sum(e["kind"] == kind and e.get("slot") == slot for e in log)

    # The rival camps: the lit slot's own player's double and going out, from the box.
    for command, kind in ((f"press {slot} 1500", "hold"), (f"press {slot} 4500", "long-hold")):
        mcu.send(command)
        until(
            lambda kind=kind: logged(kind) == 1,
            what=lambda kind=kind: f"{kind}: {hub.get('/api/log?limit=30')[1]}",
            timeout=15,
        )
    assert hub.get(f"/api/claim/{claim['claim']}")[1]["state"] == "waiting"
    assert hub.get("/api/state")[1]["claims"] == [{"slot": slot}]
    mcu.send(f"chord {slot} 1500")  # the chord the asking phone told its person to make
    answer = until(
        lambda: (a := hub.get(f"/api/claim/{claim['claim']}")[1])["state"] == "granted" and a,
        what=lambda: f"the claim granted: {hub.get('/api/log?limit=30')[1]}",
    )
    assert answer["game"] == game["id"] and answer["token"] != game["token"]
    assert hub.get("/api/state")[1]["claims"] == []
    assert (logged("hold"), logged("long-hold")) == (1, 1)  # the chord did nothing else

"""MQTT: what publishing costs a press, how soon a subscriber hears it, and how the
tournament board keeps up with 100 hubs.

1. Press to sound port, MQTT on beside MQTT off: a gpiozero mock pin edge (a release
   that completes a tap) to the ``turn`` sound at the sound port, through the real hub,
   with its publisher connected to a real mosquitto and a subscriber listening, beside
   the same hub without MQTT, both in this process. Presses alternate off/on one by
   one so machine noise falls on both; presses 20 ms apart in both.
   Goal: p99 on at most 1.1x off.
2. Press to message: the same release edge to the ``tap`` entry arriving at a
   subscriber of ``mtrain/<hub>/event`` (through the loop, the outbox, the publisher
   thread, paho, mosquitto and the subscriber's paho), beside a bare MQTT round trip
   (publish to receive) between the same two clients' kind.
3. Board update: 100 simulated hubs (each the pure core playing taps every 0.5 s and
   a real ``MqttPublisher`` with its own connection) publish to one mosquitto;
   ``mtrain-hub board`` runs as its own process; a client of its SSE stream times each
   table's update from the hub's publish (its publisher handing the ``state`` to paho)
   to the client. The simulated hubs' processes run at nice 10: real hubs have their
   own Pis, these share the board's cores. Windows alternate: 1 hub
   playing (the others connected and idle; 5x as long, for samples: 300 updates at the
   defaults, so its p99 is not one stray stall), then all 100 playing, six times, so
   machine noise falls on both. A real table taps every 10-30
   s; 0.5 s per table is 20-60x that. Beside it, the board's own part: from a bare
   subscriber's receipt of each state (in this process) to the board client's update.
   Goal: p99 with 100 at most 2x with 1.

Usage: python bench/mqtt.py [--presses 1000] [--hubs 100] [--seconds 30]
       [--only presses|board]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from bench.benchstats import percentile  # noqa: E402
from hub import core  # noqa: E402
from hub.app import Hub  # noqa: E402
from hub.broker.build import paho_links  # noqa: E402
from hub.broker.publisher import LinkFactory, MqttPublisher  # noqa: E402
from hub.broker.settings import MqttSettings  # noqa: E402
from hub.config import load  # noqa: E402
from hub.core.events import ButtonChanged, ClockTicked, GameStarted  # noqa: E402
from hub.io.mqtt import LinkHandlers, Will  # noqa: E402
from hub.io.sound import RecordingPlayer  # noqa: E402
from scorer.setup import check_setup  # noqa: E402
from tests.mqtt_helpers import Listener, Mosquitto, free_port  # noqa: E402

# Presses 20 ms apart in both runs: long enough for the publisher to finish one press's
# messages before the next (a person's fastest double tap is ~100 ms apart), short
# enough for thousands of presses in a minute.
GAP_S = 0.02
# The 1-hub windows run this many times as long as the 100-hub ones: 1 hub makes a
# hundredth of the updates, and a p99 of under 200 samples is one stray stall.
ONE_HUB_SHARE = 5
# The simulated hubs' processes yield the CPU to the board and the broker (see worker).
WORKER_NICE = 10


class PressRig:
    """One hub (MQTT on or off) and a way to time a press to its sound and message."""

    def __init__(self, state_dir: str, url: str | None, listener: Listener | None) -> None:
        self.sound = RecordingPlayer()
        self.heard = threading.Event()
        self.stamp = 0
        self.sound.listeners.append(self._heard)
        overrides: dict[str, Any] = {"hub": {"backend": "sim", "state_dir": state_dir,
                                             "hub_id": "bench"},
                                     "gestures": {"bounce_ms": 1}}
        if url:
            overrides["mqtt"] = {"url": url}
        self.hub = Hub(load(None, overrides), pin_factory=MockFactory(), sound=self.sound)
        self.hub.start()
        self.listener = listener
        if listener is not None:
            listener.wait_for(lambda: listener.latest.get("mtrain/bench/status") == b"online")
        self.hub.new_game(check_setup({"players": ["Ann", "Bob"], "first": 1}))
        self.presses = 0

    def _heard(self, name: str) -> None:
        self.stamp = time.perf_counter_ns()
        self.heard.set()

    def press(self) -> tuple[float, float | None]:
        """One tap: microseconds to the sound port, and to the subscriber (if any)."""
        slot = 1 + self.presses % 2
        self.presses += 1
        self.hub.sim.button(slot, True)
        time.sleep(0.0015)
        self.heard.clear()
        seen = len(self.listener.on("mtrain/bench/event")) if self.listener else 0
        t0 = time.perf_counter_ns()
        self.hub.sim.button(slot, False)
        if not self.heard.wait(5):
            raise RuntimeError("no sound reached the port")
        sound_us = (self.stamp - t0) / 1000
        message_us = None
        if self.listener is not None:
            listener = self.listener
            listener.wait_for(lambda: _taps_after(listener, seen))
            arrived = _taps_after(listener, seen)[0]
            message_us = (arrived * 1e9 - t0) / 1000
        time.sleep(GAP_S)
        return sound_us, message_us

    def stop(self) -> None:
        """Stop the hub."""
        self.hub.stop()


def _taps_after(listener: Listener, seen: int) -> list[float]:
    events = [(payload, at) for topic, payload, at in listener.messages
              if topic == "mtrain/bench/event"][seen:]
    return [at for payload, at in events if json.loads(payload)["kind"] == "tap"]


def press_figures(presses: int, tmp: str, url: str, port: int) -> dict[str, list[float]]:
    """Sound latencies off and on (alternating presses) and message latencies."""
    listener = Listener(port, ("mtrain/bench/#",))
    listener.wait_connected()
    off = PressRig(os.path.join(tmp, "off"), None, None)
    on = PressRig(os.path.join(tmp, "on"), url, listener)
    figures: dict[str, list[float]] = {"off": [], "on": [], "message": []}
    try:
        for _ in range(presses):  # alternate press by press: noise falls on both
            figures["off"].append(off.press()[0])
            sound_us, message_us = on.press()
            figures["on"].append(sound_us)
            figures["message"].append(message_us or 0.0)
    finally:
        off.stop()
        on.stop()
    figures["round_trip"] = mqtt_round_trips(listener, presses)
    listener.close()
    return figures


def mqtt_round_trips(listener: Listener, count: int) -> list[float]:
    """Microseconds from a publish to its arrival at the same subscriber: the floor."""
    out = []
    for i in range(count):
        seen = len(listener.messages)
        t0 = time.perf_counter()
        listener.link.publish("mtrain/bench/floor", str(i), qos=1)
        listener.wait_for(lambda seen=seen: len(listener.messages) > seen)
        out.append((listener.messages[seen][2] - t0) * 1e6)
        time.sleep(0.0015)
    return out


class SimHub:
    """A hub for the board bench: the pure core playing taps, a real publisher."""

    def __init__(self, hub_id: str, url: str) -> None:
        self.hub_id = hub_id
        self.now = 1000.0
        players = ("Ann", "Bob", "Cy")
        self.table, _ = core.apply(core.new_table(), GameStarted(
            game_id=1, rules="consensus", players=players, seats=(1, 2, 3),
            mexican_slot=4, set_max=12, rounds=13, at=self.now, first=1))
        host, port = url.removeprefix("mqtt://").split(":")
        settings = MqttSettings(host=host, port=int(port), hub_id=hub_id)
        game = {"id": 1, "players": list(players), "round": 1, "round_count": 13,
                "rounds": [], "totals": {p: 0 for p in players}, "standings": list(players)}
        self.publisher = MqttPublisher(
            settings, self._stamping(paho_links(settings)), snapshot=self.snapshot,
            load_game=lambda _id: game, settings_now=lambda: {},
            on_status=lambda status: None, version="bench")
        self.sent: list[tuple[float, int | None]] = []

    def _stamping(self, make: LinkFactory) -> LinkFactory:
        """Links that note when each ``state`` is handed to paho, and its turn: the
        hub's publish, where the board's part begins. (From the tap to here is the hub's
        own publisher, timed by the press figures; here it would time this load
        generator's 25 hubs to a process, which real hubs, each on its own Pi, are not.)"""
        def links(handlers: LinkHandlers, will: Will, subscriptions: tuple[str, ...]) -> Any:
            link = make(handlers, will, subscriptions)
            publish = link.publish

            def stamped(topic: str, payload: str | bytes, **kw: Any) -> bool:
                at = time.perf_counter()
                sent = publish(topic, payload, **kw)
                if sent and topic.endswith("/state"):
                    self.sent.append((at, json.loads(payload).get("turn")))
                return sent
            link.publish = stamped  # type: ignore[method-assign]
            return link
        return links

    def snapshot(self) -> dict[str, Any]:
        """The table's snapshot, as the hub would publish it."""
        return core.snapshot(self.table, "sim")

    def tap(self) -> None:
        """The current player taps their own slot: the turn passes; publish it."""
        slot = self.table.turn or 1
        for event in (ButtonChanged(slot, True, self.now), ButtonChanged(slot, False,
                                                                         self.now + 0.1),
                      ClockTicked(self.now + 0.2)):
            self.table, _ = core.apply(self.table, event)
        self.now += 0.3
        self.publisher.offer("event", {"kind": "tap", "slot": slot})
        self.publisher.offer("state", self.snapshot())


class BoardClient:
    """Reads the board's SSE stream and notes when each table's turn arrived."""

    def __init__(self, port: int) -> None:
        self.received: list[tuple[str, int | None, float]] = []
        self.tables: set[str] = set()
        self.recording = False
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.conn.request("GET", "/api/board/events")
        self.response = self.conn.getresponse()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode()
                if line.startswith("data: "):
                    now = time.perf_counter()
                    for table in json.loads(line[6:]).get("tables", []):
                        self.tables.add(table["hub_id"])
                        if self.recording:
                            self.received.append((table["hub_id"], table["turn_slot"], now))
        except (OSError, ValueError, http.client.HTTPException):
            return

    def close(self) -> None:
        """Close the stream."""
        self.conn.close()


def match(sent: list[tuple[str, int | None, float]],
          received: list[tuple[str, int | None, float]]) -> list[float]:
    """Microseconds from each publish to the first update showing it. perf_counter is
    CLOCK_MONOTONIC on Linux: one clock for every process."""
    by_hub: dict[str, list[tuple[float, int | None]]] = {}
    for hub_id, turn, at in sent:
        by_hub.setdefault(hub_id, []).append((at, turn))
    counted: set[tuple[str, float]] = set()
    out = []
    for hub_id, turn, now in received:
        earlier = [at for at, t in by_hub.get(hub_id, []) if t == turn and at <= now]
        if earlier and (hub_id, earlier[-1]) not in counted:
            counted.add((hub_id, earlier[-1]))
            out.append((now - earlier[-1]) * 1e6)
    return out


def worker(url: str, first: int, count: int, pace_s: float) -> None:
    """A process of simulated hubs, driven by lines on stdin: ``play K SECONDS`` (its
    first K hubs play), ``quit``. It answers each with the publishes it made.

    Real hubs run on their own Pis; these share the board's two cores, so they run at
    a lower priority (``WORKER_NICE``) and their half a core with 100 playing does not
    queue the board and the broker behind them. Their own publishing is still timed."""
    os.nice(WORKER_NICE)
    sys.setswitchinterval(0.0005)
    hubs = [SimHub(f"b{i:03d}", url) for i in range(first, first + count)]
    for hub in hubs:
        hub.publisher.start()
    while not all(hub.publisher.link.connected for hub in hubs):
        time.sleep(0.05)
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[0] == "quit":
            break
        playing = hubs[:int(words[1])]
        for hub in playing:
            hub.sent = []
        _play({hub.hub_id: hub for hub in playing}, float(words[2]), pace_s)
        time.sleep(0.2)  # the last taps' states reach paho
        sent = [(hub.hub_id, turn, at) for hub in playing for at, turn in hub.sent]
        print(json.dumps(sent), flush=True)
    for hub in hubs:
        hub.publisher.stop(1.0)


def heard(listener: Listener, since: int) -> list[tuple[str, int | None, float]]:
    """The states a bare subscriber received after message ``since``: (hub, turn, when)."""
    out = []
    for topic, payload, at in listener.messages[since:]:
        if topic.endswith("/state"):
            out.append((topic.split("/")[1], json.loads(payload).get("turn"), at))
    return out


def board_latencies(count: int, seconds: float, url: str, tmp: str, windows: int = 6,
                    pace_s: float = 0.5, workers: int = 4
                    ) -> tuple[list[float], list[float], list[float], list[float]]:
    """Microseconds from a hub's publish to the board client: 1 hub playing, and
    ``count`` hubs playing, in alternating windows (``seconds`` of ``count`` hubs in
    all, ``ONE_HUB_SHARE`` times as long for 1 hub, which has a hundredth of the
    samples). The
    hubs live in ``workers`` processes, as real hubs are apart from each other."""
    port = free_port()
    log = open(os.path.join(tmp, "board.log"), "ab")
    board = subprocess.Popen([sys.executable, "-m", "hub.cli", "board", "--mqtt", url,
                              "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                             stdout=log, stderr=subprocess.STDOUT)
    size = -(-count // workers)
    procs = [subprocess.Popen(
        [sys.executable, __file__, "--worker", url, str(first), str(min(size, count - first)),
         str(pace_s)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        stderr=log) for first in range(0, count, size)]
    try:
        _wait_http(port, board, os.path.join(tmp, "board.log"))
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        client = BoardClient(port)
        listener = Listener(int(url.rsplit(":", 1)[1]), ("mtrain/+/state",))
        listener.wait_connected()
        one: list[float] = []
        many: list[float] = []
        one_board: list[float] = []
        many_board: list[float] = []
        for _ in range(windows):
            for how_many, into, into_board, share in ((1, one, one_board, ONE_HUB_SHARE),
                                                      (count, many, many_board, 1)):
                client.received = []
                since = len(listener.messages)
                client.recording = True
                left, sent = how_many, []
                for proc in procs:
                    assert proc.stdin is not None
                    proc.stdin.write(f"play {min(left, size)} {share * seconds / windows}\n")
                    proc.stdin.flush()
                    left = max(0, left - size)
                for proc in procs:
                    assert proc.stdout is not None
                    sent += [tuple(r) for r in json.loads(proc.stdout.readline())]
                time.sleep(0.5)  # the window's last updates arrive
                client.recording = False
                into.extend(match(sent, client.received))  # type: ignore[arg-type]
                into_board.extend(match(heard(listener, since), client.received))
        client.close()
        listener.close()
        return one, many, one_board, many_board
    finally:
        for proc in procs:
            if proc.stdin is not None:
                proc.stdin.write("quit\n")
                proc.stdin.close()
            proc.wait(20)
        board.terminate()
        board.wait(20)
        log.close()


def _play(hubs: dict[str, SimHub], seconds: float, pace_s: float) -> None:
    """Each hub taps every ``pace_s`` (±20 %) for ``seconds``."""
    due = {hub_id: time.perf_counter() + random.uniform(0, pace_s) for hub_id in hubs}
    end = time.perf_counter() + seconds
    while hubs and time.perf_counter() < end:
        hub_id = min(due, key=due.__getitem__)
        wait = due[hub_id] - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        hubs[hub_id].tap()
        due[hub_id] += pace_s * random.uniform(0.8, 1.2)
    if not hubs:
        time.sleep(seconds)


def _wait_http(port: int, board: subprocess.Popen[bytes], log_path: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if board.poll() is not None:
            with open(log_path, errors="replace") as f:
                raise RuntimeError(f"the board exited ({board.returncode}): {f.read()[-2000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/api/board")
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError("the board did not start")


def _row(name: str, a: list[float], b: list[float], p: float) -> str:
    x, y = percentile(a, p), percentile(b, p)
    return f"{name:<30}{x:>12.1f}{y:>12.1f}{x / y:>8.2f}"


def _print_presses(presses: dict[str, list[float]]) -> str:
    print(f"press to sound port, {len(presses['on'])} presses each (microseconds)")
    print(f"{'figure':<30}{'MQTT on':>12}{'MQTT off':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(_row(name, presses["on"], presses["off"], p))
    print()
    print("press to message at a subscriber (microseconds)")
    print(f"{'figure':<30}{'press→msg':>12}{'MQTT rtt':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(_row(name, presses["message"], presses["round_trip"], p))
    print()
    sound = percentile(presses["on"], 99) / percentile(presses["off"], 99)
    return f"press p99 on within 1.1x off: {'met' if sound <= 1.1 else 'NOT met'} " \
           f"({sound:.2f}x)"


def _print_board(hubs: int, one: list[float], many: list[float], one_board: list[float],
                 many_board: list[float]) -> str:
    print(f"board update, hub publish to board SSE client (microseconds; "
          f"{len(many)} and {len(one)} updates)")
    print(f"{'figure':<30}{f'{hubs} hubs':>12}{'1 hub':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(_row(name, many, one, p))
    print()
    print("the board's own part: a bare subscriber's receipt to the board client")
    print(f"{'figure':<30}{f'{hubs} hubs':>12}{'1 hub':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(_row(name, many_board, one_board, p))
    print()
    board = percentile(many, 99) / percentile(one, 99)
    return f"board p99 {hubs} hubs within 2x 1 hub: {'met' if board <= 2 else 'NOT met'} " \
           f"({board:.2f}x)"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=1000)
    parser.add_argument("--hubs", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="playing time of the 100-hub case, in 6 alternating windows")
    parser.add_argument("--only", choices=("presses", "board"), default=None,
                        help="run only the press figures (1, 2) or only the board (3)")
    args = parser.parse_args()
    sys.setswitchinterval(0.0005)  # as the hub sets it (hub.app.Hub.start)
    print(f"load average at the start: {_load()}")
    goals = []
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(Path(tmp) / "mosquitto")
        try:
            if args.only != "board":
                presses = press_figures(args.presses, tmp, broker.url, broker.port)
                goals.append(_print_presses(presses))
            if args.only != "presses":
                goals.append(_print_board(args.hubs, *board_latencies(
                    args.hubs, args.seconds, broker.url, tmp)))
        finally:
            broker.stop()
    print(f"load average at the end: {_load()}")
    print("goal " + "; ".join(goals))


if __name__ == "__main__":
    main()

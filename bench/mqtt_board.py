"""The board part of ``bench/mqtt.py`` (figure 3, see its docstring): 100 simulated
hubs, each a real MQTT connection, in worker processes (``python bench/mqtt_board.py
--worker URL FIRST COUNT PACE``), ``mtrain-hub board`` as its own process and a client
of its SSE stream."""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.benchstats import percentile  # noqa: E402
from hub import core  # noqa: E402
from hub.core.events import ButtonChanged, ClockTicked, GameStarted  # noqa: E402
from hub.io.mqtt import LinkHandlers, Will  # noqa: E402
from hub.mqtt.build import paho_links  # noqa: E402
from hub.mqtt.publisher import LinkFactory, MqttPublisher  # noqa: E402
from hub.mqtt.settings import MqttSettings  # noqa: E402
from tests.mqtt_helpers import Listener  # noqa: E402
from tests.ports import os_port  # noqa: E402

# The 1-hub windows run this many times as long as the 100-hub ones: 1 hub makes a
# hundredth of the updates, and a p99 of under 200 samples is one stray stall.
ONE_HUB_SHARE = 5
# The simulated hubs' processes yield the CPU to the board and the broker (see worker).
WORKER_NICE = 10


class SimHub:
    """A hub for the board bench: the pure core playing taps, a real publisher."""

    def __init__(self, hub_id: str, url: str) -> None:
        self.hub_id = hub_id
        self.now = 1000.0
        players = ("Ann", "Bob", "Cy")
        self.table, _ = core.apply(
            core.new_table(),
            GameStarted(
                game_id=1,
                rules="consensus",
                players=players,
                seats=(1, 2, 3),
                mexican_slot=4,
                set_max=12,
                rounds=13,
                at=self.now,
                first=1,
            ),
        )
        host, port = url.removeprefix("mqtt://").split(":")
        settings = MqttSettings(host=host, port=int(port), hub_id=hub_id)
        game = {
            "id": 1,
            "players": list(players),
            "round": 1,
            "round_count": 13,
            "rounds": [],
            "totals": {p: 0 for p in players},
            "standings": list(players),
        }
        self.publisher = MqttPublisher(
            settings,
            self._stamping(paho_links(settings)),
            snapshot=self.snapshot,
            load_game=lambda _id: game,
            settings_now=lambda: {},
            on_status=lambda status: None,
            version="bench",
        )
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
        for event in (
            ButtonChanged(slot, True, self.now),
            ButtonChanged(slot, False, self.now + 0.1),
            ClockTicked(self.now + 0.2),
        ):
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
        except AttributeError:  # closed from another thread mid-chunk (http.client's fp gone)
            return

    def close(self) -> None:
        """Close the stream."""
        self.conn.close()


def match(
    sent: list[tuple[str, int | None, float]], received: list[tuple[str, int | None, float]]
) -> list[float]:
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
        playing = hubs[: int(words[1])]
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


def board_latencies(
    count: int,
    seconds: float,
    url: str,
    tmp: str,
    windows: int = 6,
    pace_s: float = 0.5,
    workers: int = 4,
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Microseconds from a hub's publish to the board client: 1 hub playing, and
    ``count`` hubs playing, in alternating windows (``seconds`` of ``count`` hubs in
    all, ``ONE_HUB_SHARE`` times as long for 1 hub, which has a hundredth of the
    samples). The
    hubs live in ``workers`` processes, as real hubs are apart from each other."""
    port = os_port()
    log = open(os.path.join(tmp, "board.log"), "ab")
    board = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "board",
            "--mqtt",
            url,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    size = -(-count // workers)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                url,
                str(first),
                str(min(size, count - first)),
                str(pace_s),
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            stderr=log,
        )
        for first in range(0, count, size)
    ]
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
            for how_many, into, into_board, share in (
                (1, one, one_board, ONE_HUB_SHARE),
                (count, many, many_board, 1),
            ):
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


def row(name: str, a: list[float], b: list[float], p: float) -> str:
    x, y = percentile(a, p), percentile(b, p)
    return f"{name:<30}{x:>12.1f}{y:>12.1f}{x / y:>8.2f}"


def print_board(
    hubs: int, one: list[float], many: list[float], one_board: list[float], many_board: list[float]
) -> str:
    print(
        f"board update, hub publish to board SSE client (microseconds; "
        f"{len(many)} and {len(one)} updates)"
    )
    print(f"{'figure':<30}{f'{hubs} hubs':>12}{'1 hub':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(row(name, many, one, p))
    print()
    print("the board's own part: a bare subscriber's receipt to the board client")
    print(f"{'figure':<30}{f'{hubs} hubs':>12}{'1 hub':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(row(name, many_board, one_board, p))
    print()
    board = percentile(many, 99) / percentile(one, 99)
    return (
        f"board p99 {hubs} hubs within 2x 1 hub: {'met' if board <= 2 else 'NOT met'} "
        f"({board:.2f}x)"
    )


if __name__ == "__main__":
    worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))

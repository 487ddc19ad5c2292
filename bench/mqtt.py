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
import json
import os
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
from bench.mqtt_board import board_latencies, print_board, row  # noqa: E402
from hub.app import Hub  # noqa: E402
from hub.runtime.config import load  # noqa: E402
from scorer.setup import check_setup  # noqa: E402
from tablesim.virtual import RecordingPlayer  # noqa: E402
from tests.mqtt_helpers import Listener, Mosquitto  # noqa: E402

# Presses 20 ms apart in both runs: long enough for the publisher to finish one press's
# messages before the next (a person's fastest double tap is ~100 ms apart), short
# enough for thousands of presses in a minute.
GAP_S = 0.02


class PressRig:
    """One hub (MQTT on or off) and a way to time a press to its sound and message."""

    def __init__(self, state_dir: str, url: str | None, listener: Listener | None) -> None:
        self.sound = RecordingPlayer()
        self.heard = threading.Event()
        self.stamp = 0
        self.sound.listeners.append(self._heard)
        overrides: dict[str, Any] = {
            "hub": {"backend": "sim", "state_dir": state_dir, "hub_id": "bench"},
            "gestures": {"bounce_ms": 1},
        }
        if url:
            overrides["mqtt"] = {"url": url}
        self.hub = Hub(load(None, overrides), pin_factory=MockFactory(), sound=self.sound)
        self.hub.start()
        self.listener = listener
        if listener is not None:
            listener.wait_for(lambda: listener.latest.get("mtrain/bench/status") == b"online")
        self.hub.games.new_game(check_setup({"players": ["Ann", "Bob"], "first": 1}))
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
    events = [
        (payload, at) for topic, payload, at in listener.messages if topic == "mtrain/bench/event"
    ][seen:]
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


def _print_presses(presses: dict[str, list[float]]) -> str:
    print(f"press to sound port, {len(presses['on'])} presses each (microseconds)")
    print(f"{'figure':<30}{'MQTT on':>12}{'MQTT off':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(row(name, presses["on"], presses["off"], p))
    print()
    print("press to message at a subscriber (microseconds)")
    print(f"{'figure':<30}{'press→msg':>12}{'MQTT rtt':>12}{'ratio':>8}")
    for name, p in (("median", 50), ("p99", 99)):
        print(row(name, presses["message"], presses["round_trip"], p))
    print()
    sound = percentile(presses["on"], 99) / percentile(presses["off"], 99)
    return f"press p99 on within 1.1x off: {'met' if sound <= 1.1 else 'NOT met'} ({sound:.2f}x)"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=1000)
    parser.add_argument("--hubs", type=int, default=100)
    parser.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="playing time of the 100-hub case, in 6 alternating windows",
    )
    parser.add_argument(
        "--only",
        choices=("presses", "board"),
        default=None,
        help="run only the press figures (1, 2) or only the board (3)",
    )
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
                goals.append(
                    print_board(
                        args.hubs, *board_latencies(args.hubs, args.seconds, broker.url, tmp)
                    )
                )
        finally:
            broker.stop()
    print(f"load average at the end: {_load()}")
    print("goal " + "; ".join(goals))


if __name__ == "__main__":
    main()

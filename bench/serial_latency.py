"""Serial bridge latency: a button edge on the hub box to the sound port, over a pty.

Three paths timed in the same run, N presses each:
1. serial: the fake microcontroller (the real firmware under CPython) sees a release
   edge, timestamps it, frames it and writes it to a pty; the hub's serial link reads
   it, the session posts it, the loop applies it, the ``turn`` sound reaches the port.
2. sim: the same press through gpiozero's mock pins (the path ``bench/press_to_effect``
   measures), as the baseline.
3. bare: a one-byte round trip over a pty between two threads, as the floor USB adds.
Goal: serial p99 at most sim p99 plus two bare round trips (p99).

And the other way: an LED change (a new brightness redraws the ring) to the LED
frame arriving in the fake microcontroller's firmware, p99.

Usage: python bench/serial_latency.py [--presses 2000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from bench.benchstats import percentile  # noqa: E402
from firmware_bridge.fake_mcu import FakeMcu  # noqa: E402
from hub.app import Hub  # noqa: E402
from hub.clock import SystemClock  # noqa: E402
from hub.config import load  # noqa: E402
from hub.io.sound import RecordingPlayer  # noqa: E402
from scorer.setup import check_setup  # noqa: E402

GAP_S = 0.003  # between edges: past the 1 ms debounce


def build(backend: str, state_dir: str, port: str = "") -> tuple[Hub, threading.Event, list[int]]:
    """A started hub whose sound port stamps each ``turn``; a game of two under way."""
    sound = RecordingPlayer()
    arrived = threading.Event()
    stamp = [0]

    def heard(name: str) -> None:
        stamp[0] = time.perf_counter_ns()
        arrived.set()

    sound.listeners.append(heard)
    config = load(None, {"hub": {"backend": backend, "state_dir": state_dir},
                         "gestures": {"bounce_ms": 1}, "serial": {"port": port}})
    hub = Hub(config, clock=SystemClock(), pin_factory=MockFactory(), sound=sound)
    hub.start()
    return hub, arrived, stamp


def presses(hub: Hub, press: Callable[[int, bool], None], arrived: threading.Event,
            stamp: list[int], count: int,
            seen: Callable[[int], bool] = lambda slot: True) -> list[float]:
    """Microseconds from each release edge to the ``turn`` sound at the port
    (``seen(slot)``: the press has been scanned, so the release is an edge)."""
    hub.new_game(check_setup({"players": ["Ann", "Bob"], "first": 1, "seats": [1, 2]},
                             "consensus"))
    out = []
    for i in range(count):
        slot = 1 + i % 2
        press(slot, True)
        time.sleep(GAP_S)
        while not seen(slot):
            time.sleep(0.0005)
        arrived.clear()
        t0 = time.perf_counter_ns()
        press(slot, False)
        if not arrived.wait(5):
            raise RuntimeError(f"press {i}: no sound reached the port")
        out.append((stamp[0] - t0) / 1000)
        time.sleep(GAP_S)
    return out


def serial_path(count: int, state_dir: str) -> tuple[list[float], list[float]]:
    """Press latencies over the pty, and LED change to frame received."""
    got = threading.Event()
    stamp = [0]

    def frame(pixels: object) -> None:
        stamp[0] = time.perf_counter_ns()
        got.set()

    mcu = FakeMcu(on_leds=frame)
    hub, arrived, heard = build("serial", state_dir, mcu.path)
    try:
        deadline = time.monotonic() + 10
        while not hub.link.connected and time.monotonic() < deadline:  # type: ignore[union-attr]
            time.sleep(0.01)
        press = presses(hub, mcu.button, arrived, heard, count,
                        lambda slot: bool(mcu.firmware.buttons & (1 << slot)))
        leds = []
        for i in range(count // 4):
            time.sleep(GAP_S)
            got.clear()
            t0 = time.perf_counter_ns()
            hub.lights.set_brightness(0.5 + (i % 2) * 0.25)
            if not got.wait(5):
                raise RuntimeError(f"LED change {i}: no frame reached the box")
            leds.append((stamp[0] - t0) / 1000)
    finally:
        hub.stop()
        mcu.close()
    return press, leds


def sim_path(count: int, state_dir: str) -> list[float]:
    """Press latencies through gpiozero's mock pins."""
    hub, arrived, stamp = build("sim", state_dir)
    try:
        assert hub.sim is not None
        return presses(hub, hub.sim.button, arrived, stamp, count)
    finally:
        hub.stop()


def bare_round_trips(count: int) -> list[float]:
    """Microseconds for one byte there and back over a pty, between two threads."""
    master, slave = os.openpty()
    tty.setraw(slave)

    def echo() -> None:
        for _ in range(count):
            os.write(slave, os.read(slave, 1))

    thread = threading.Thread(target=echo, daemon=True)
    thread.start()
    out = []
    for _ in range(count):
        t0 = time.perf_counter_ns()
        os.write(master, b"x")
        os.read(master, 1)
        out.append((time.perf_counter_ns() - t0) / 1000)
    thread.join()
    os.close(master)
    os.close(slave)
    return out


def row(name: str, values: list[float]) -> str:
    p50, p99 = percentile(values, 50), percentile(values, 99)
    return f"{name:<34}{p50:>10.1f}{p99:>10.1f}{max(values):>10.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        serial, leds = serial_path(args.presses, os.path.join(tmp, "serial"))
        sim = sim_path(args.presses, os.path.join(tmp, "sim"))
    bare = bare_round_trips(args.presses)
    print(f"serial bridge latency, {args.presses} presses (microseconds)")
    print(f"{'path':<34}{'p50':>10}{'p99':>10}{'max':>10}")
    for name, values in (("edge -> sound, serial (pty)", serial), ("edge -> sound, sim", sim),
                         ("bare pty round trip", bare), ("LED change -> frame at the box", leds)):
        print(row(name, values))
    goal = percentile(sim, 99) + 2 * percentile(bare, 99)
    p99 = percentile(serial, 99)
    print()
    print(f"goal: serial p99 <= sim p99 + 2 bare round trips = {goal:.1f} us: "
          f"{'met' if p99 <= goal else 'NOT met'} ({p99:.1f} us, "
          f"{p99 - percentile(sim, 99):+.1f} us over sim)")


if __name__ == "__main__":
    main()

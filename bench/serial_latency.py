"""Serial bridge latency: a button edge on the hub box to the sound port, over a pty.

Three paths timed in the same run, N presses each:
1. serial: the fake microcontroller (the real firmware under CPython, in a process of
   its own as a real box is its own hardware) sees a release edge, timestamps it,
   frames it and writes it to a pty (scanned at once on the thread that makes the edge,
   as a board whose loop never pauses would: no hand-off between two host threads
   inside the box); the hub's serial link reads it, the session
   posts it, the loop applies it, the ``turn`` sound reaches the port.
2. sim: the same press through gpiozero's mock pins (the path ``bench/press_to_effect``
   measures), as the baseline.
3. bare: a one-byte round trip over a pty between two threads, as the floor USB adds.
Goal: serial p99 at most sim p99 plus two bare round trips (p99). The serial figure is
split, too: the box (the release to its EDGE frame written to the pty, the fake
microcontroller's own share, which real hardware replaces) and the hub's side (that
frame to the sound).

And the other way: an LED change (a new brightness redraws the ring) to the LED
frame arriving in the fake microcontroller's firmware, p99.

Usage: python bench/serial_latency.py [--presses 2000]
"""

from __future__ import annotations

import argparse
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from bench.benchstats import percentile, stamping_hub  # noqa: E402
from firmware_bridge.fake_mcu import FakeMcu, PtyPort  # noqa: E402
from firmware_bridge.firmware import proto  # noqa: E402
from hub.app import Hub  # noqa: E402
from hub.io.lights import hex_colours  # noqa: E402
from scorer.setup import check_setup  # noqa: E402

GAP_S = 0.003  # between edges: past the 1 ms debounce


def presses(
    hub: Hub,
    press: Callable[[int, bool], None],
    arrived: threading.Event,
    stamp: list[int],
    count: int,
    seen: Callable[[int], bool] = lambda slot: True,
) -> list[float]:
    """Microseconds from each release edge to the ``turn`` sound at the port
    (``seen(slot)``: the press has been scanned, so the release is an edge)."""
    hub.games.new_game(
        check_setup({"players": ["Ann", "Bob"], "first": 1, "seats": [1, 2]}, "consensus")
    )
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


class BoxProcess:
    """The fake microcontroller in a process of its own (as a real box is its own
    hardware), driven over a pipe: ``p SLOT`` presses (answered once the firmware
    scanned it), ``r SLOT`` releases and scans at once (not answered: nothing in either
    process wakes for the harness while the release travels), ``t 0`` answers the last
    release's time; every LED frame is reported as ``L time``. Times are ``perf_counter_ns``:
    CLOCK_MONOTONIC, the same clock in both processes."""

    def __init__(self, link: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--child", link],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.answers: queue.Queue[str] = queue.Queue()
        self.frames: queue.Queue[tuple[int, str]] = queue.Queue()
        assert self.proc.stdout is not None
        self.path = self.proc.stdout.readline().strip()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("L "):
                _, stamp, first = line.split()
                self.frames.put((int(stamp), first))
            else:
                self.answers.put(line.strip())

    def tell(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def ask(self, command: str) -> str:
        self.tell(command)
        return self.answers.get(timeout=5)

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(10)
        self.proc.stdout.close()


def child(link: str) -> None:
    """The box's process: a FakeMcu on a pty at ``link``, driven from stdin."""
    lock = threading.Lock()

    def frame(pixels: list[tuple[int, ...]]) -> None:
        stamp = time.perf_counter_ns()
        with lock:
            print(f"L {stamp} {hex_colours(pixels)[0]}", flush=True)

    sent = [0]  # when the firmware last wrote an EDGE frame to the pty
    write = PtyPort.write

    def stamped(port: PtyPort, data: bytes) -> None:
        write(port, data)
        if len(data) > 3 and data[3] == proto.EDGE:
            sent[0] = time.perf_counter_ns()

    PtyPort.write = stamped  # type: ignore[method-assign]
    mcu = FakeMcu(link, on_leds=frame)
    print(mcu.path, flush=True)
    released = 0
    for line in sys.stdin:
        what, slot = line.split()
        if what == "r":  # no answer now: the hub's side is being timed
            released = time.perf_counter_ns()
            mcu.edge_now(int(slot), False)
            continue
        if what == "p":
            mcu.button(int(slot), True)
            while not mcu.firmware.buttons & (1 << int(slot)):
                time.sleep(0.0002)
            answer = "ok"
        else:
            answer = f"{released} {sent[0]}"
        with lock:
            print(answer, flush=True)
    mcu.close()


def serial_path(count: int, state_dir: str) -> tuple[list[float], list[float], list[float]]:
    """Press latencies over the pty, the hub's side of them (from the EDGE frame written
    to the pty), and LED change to frame received."""
    box = BoxProcess(os.path.join(state_dir + "-box"))
    hub, arrived, heard = stamping_hub("serial", state_dir, serial={"port": box.path})
    try:
        deadline = time.monotonic() + 10
        while not hub.link.connected and time.monotonic() < deadline:  # type: ignore[union-attr]
            time.sleep(0.01)
        hub.games.new_game(
            check_setup({"players": ["Ann", "Bob"], "first": 1, "seats": [1, 2]}, "consensus")
        )
        press, hub_side = [], []
        for i in range(count):
            slot = 1 + i % 2
            box.ask(f"p {slot}")
            time.sleep(GAP_S)
            arrived.clear()
            box.tell(f"r {slot}")
            if not arrived.wait(5):
                raise RuntimeError(f"press {i}: no sound reached the port")
            released, sent = (int(t) for t in box.ask("t 0").split())
            press.append((heard[0] - released) / 1000)
            hub_side.append((heard[0] - sent) / 1000)
            time.sleep(GAP_S)
        leds = []
        for i in range(count // 4):
            time.sleep(GAP_S)
            t0 = time.perf_counter_ns()
            hub.lights.set_brightness(0.5 + (i % 2) * 0.25)
            want = hex_colours(hub.lights.pixels())[0]
            while True:  # skip the ring's periodic refreshes and older frames
                stamp, first = box.frames.get(timeout=5)
                if stamp >= t0 and first == want:
                    break
            leds.append((stamp - t0) / 1000)
    finally:
        hub.stop()
        box.close()
    return press, hub_side, leds


def sim_path(count: int, state_dir: str) -> list[float]:
    """Press latencies through gpiozero's mock pins."""
    hub, arrived, stamp = stamping_hub("sim", state_dir)
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
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        serial, hub_side, leds = serial_path(args.presses, os.path.join(tmp, "serial"))
        sim = sim_path(args.presses, os.path.join(tmp, "sim"))
    bare = bare_round_trips(args.presses)
    print(f"serial bridge latency, {args.presses} presses (microseconds)")
    print(f"{'path':<34}{'p50':>10}{'p99':>10}{'max':>10}")
    for name, values in (
        ("edge -> sound, serial (pty)", serial),
        ("  of it: EDGE written -> sound", hub_side),
        ("  of it: the box, edge -> EDGE", [a - b for a, b in zip(serial, hub_side, strict=True)]),
        ("edge -> sound, sim", sim),
        ("bare pty round trip", bare),
        ("LED change -> frame at the box", leds),
    ):
        print(row(name, values))
    goal = percentile(sim, 99) + 2 * percentile(bare, 99)
    p99 = percentile(serial, 99)
    print()
    print(
        f"goal: serial p99 <= sim p99 + 2 bare round trips = {goal:.1f} us: "
        f"{'met' if p99 <= goal else 'NOT met'} ({p99:.1f} us, "
        f"{p99 - percentile(sim, 99):+.1f} us over sim)"
    )


if __name__ == "__main__":
    main()

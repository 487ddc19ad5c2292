"""The evening's picture asked for by a crowd (issue 33): what it costs the hub.

A phone with no token can make an evening of 100 games of 8 new names in seconds
(start, score, finish, repeat); the store is filled with one such evening
(``tests.history.long_evening``) and served by ``mtrain-hub run`` (sim backend,
``MALLOC_ARENA_MAX=2`` as the unit runs it) on a free 127.0.0.1 port. Then, while one
client times ``GET /api/state`` round trips back to back (keep-alive) and the hub's
resident memory, its children included, is sampled every 10 ms:

- baseline: nothing else, for ``--baseline`` seconds;
- cold: ``--pictures`` phones ask for ``GET /api/evening.png`` at once (each on a
  connection of its own), the picture not drawn yet;
- kept: as many ask again, once it is drawn.

Printed: each phase's ``/api/state`` p50/p99 beside the baseline's, the memory of the
hub and its children above the idle hub (the largest sample), the most drawing
processes seen at once, the answers and how long the last took, and the goals
(issue 33: memory at most 40 MB more, ``/api/state`` p99 under 100 ms).

``--tree`` runs the hub of another checkout (the same schema), to measure old code.

Usage: python bench/evening_png.py [--games 100] [--names 8] [--pictures 16]
[--baseline 5] [--tree DIR]
"""

from __future__ import annotations

import argparse
import http.client
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.benchstats import percentile  # noqa: E402
from scorer.store import GameStore  # noqa: E402
from tests import history  # noqa: E402
from tests.ports import os_port  # noqa: E402

HOST = "127.0.0.1"
DRAWER = b"web.evening_png"
GOAL_MB, GOAL_P99_MS = 40.0, 100.0


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    found, todo = [], [pid]
    while todo:
        one = todo.pop()
        found.append(one)
        try:
            for task in Path(f"/proc/{one}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:  # gone meanwhile
            pass
    return found


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` in MB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def drawing(pid: int) -> bool:
    try:
        return DRAWER in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


class Sampler(threading.Thread):
    """The hub's tree sampled every 10 ms: its memory and its drawing children."""

    def __init__(self, hub: int) -> None:
        super().__init__(daemon=True)
        self.hub, self.stopping = hub, threading.Event()
        self.memory: list[float] = []
        self.drawers: list[int] = []

    def run(self) -> None:
        while not self.stopping.wait(0.01):
            pids = tree(self.hub)
            self.memory.append(sum(rss_mb(p) for p in pids))
            self.drawers.append(sum(drawing(p) for p in pids))

    def take(self) -> tuple[float, int]:
        """The largest memory and most drawers since the last take."""
        memory, drawers = max(self.memory, default=0.0), max(self.drawers, default=0)
        self.memory, self.drawers = [], []
        return memory, drawers


def start_hub(state: Path, tree_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = os_port()
    args = [sys.executable, "-m", "hub.cli", "run", "--backend", "sim"]
    args += ["--host", HOST, "--port", str(port), "--state-dir", str(state)]
    env = os.environ | {"PYTHONPATH": str(tree_dir), "MALLOC_ARENA_MAX": "2"}
    hub = subprocess.Popen(
        args, cwd=tree_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            get(http.client.HTTPConnection(HOST, port, timeout=5), "/api/state")
            return hub, port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the hub did not start")


def get(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path)
    answer = conn.getresponse()
    return answer.status, answer.read()


def time_state(port: int, until: threading.Event, least_s: float) -> list[float]:
    """``GET /api/state`` round trips, back to back, until ``until`` and ``least_s``."""
    conn = http.client.HTTPConnection(HOST, port, timeout=120)
    times: list[float] = []
    end = time.monotonic() + least_s
    while not until.is_set() or time.monotonic() < end:
        start = time.perf_counter()
        status, _ = get(conn, "/api/state")
        times.append(time.perf_counter() - start)
        assert status == 200, status
    conn.close()
    return times


def ask_pictures(port: int, count: int) -> tuple[list[int], float, bytes]:
    """``count`` phones ask for the picture at once: their statuses, the seconds until
    the last answer, one picture."""
    statuses: list[int] = []
    pictures: list[bytes] = []
    ready = threading.Barrier(count)

    def phone() -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=300)
        ready.wait()
        status, body = get(conn, "/api/evening.png")
        statuses.append(status)
        if status == 200:
            pictures.append(body)
        conn.close()

    phones = [threading.Thread(target=phone) for _ in range(count)]
    start = time.perf_counter()
    for one in phones:
        one.start()
    for one in phones:
        one.join()
    return statuses, time.perf_counter() - start, pictures[0] if pictures else b""


def phase(
    port: int, sampler: Sampler, pictures: int, seconds: float
) -> tuple[dict[str, Any], float, bytes]:
    """One phase: the state timed while ``pictures`` phones ask (none: ``seconds``)."""
    done = threading.Event()
    times: list[float] = []
    least = seconds if not pictures else 1.0  # a phase of pictures: at least a second
    timer = threading.Thread(target=lambda: times.extend(time_state(port, done, least)))
    sampler.take()
    timer.start()
    statuses, took, png = ask_pictures(port, pictures) if pictures else ([], 0.0, b"")
    done.set()
    timer.join()
    memory, drawers = sampler.take()
    return {"times": times, "memory": memory, "drawers": drawers, "statuses": statuses}, took, png


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--names", type=int, default=8)
    parser.add_argument("--pictures", type=int, default=16)
    parser.add_argument("--baseline", type=float, default=5.0, help="seconds")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout the hub runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch) / "state"
        state.mkdir()
        store = GameStore(state / "games.db")
        history.long_evening(store, games=args.games, names=args.names)
        store.close()
        hub, port = start_hub(state, args.tree.resolve())
        try:
            report(hub.pid, port, args)
        finally:
            hub.terminate()
            hub.wait(30)


def report(pid: int, port: int, args: argparse.Namespace) -> None:
    sampler = Sampler(pid)
    sampler.start()
    time.sleep(1.0)  # settled after its first answer
    idle, _ = sampler.take()
    phases = [("baseline", 0), ("cold", args.pictures), ("kept", args.pictures)]
    rows, png = [], b""
    for name, pictures in phases:
        figures, took, drawn = phase(port, sampler, pictures, args.baseline if not pictures else 0)
        png = png or drawn
        rows.append((name, pictures, figures, took))
    sampler.stopping.set()
    width, tall = struct.unpack(">II", png[16:24]) if png[12:16] == b"IHDR" else (0, 0)
    print(f"evening pictures: {args.games} games x {args.names} new names, tree {args.tree}")
    print(f"picture {width} x {tall} px, {len(png) / 1024:.0f} KB; idle hub {idle:.1f} MB")
    print(
        f"{'phase':<9}{'asks':>5}{'state p50':>11}{'p99':>9}{'max':>9}{'p99/base':>9}"
        f"{'memory':>10}{'drawers':>8}  answers"
    )
    base_p99 = percentile(rows[0][2]["times"], 99)
    worst_mb, worst_p99 = 0.0, 0.0
    for name, pictures, figures, took in rows:
        times = figures["times"]
        p50, p99, most = (percentile(times, 50), percentile(times, 99), max(times))
        grown = figures["memory"] - idle
        worst_mb, worst_p99 = max(worst_mb, grown), max(worst_p99, p99)
        statuses = figures["statuses"]
        said = ", ".join(f"{statuses.count(s)} x {s}" for s in sorted(set(statuses)))
        answers = f"{said} in {took:.1f} s" if statuses else "-"
        print(
            f"{name:<9}{pictures:>5}{p50 * 1000:>9.1f}ms{p99 * 1000:>7.1f}ms"
            f"{most * 1000:>7.1f}ms{p99 / base_p99:>8.2f}x{grown:>+8.1f}MB"
            f"{figures['drawers']:>8}  {answers}"
        )
    met = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    print(
        f"goal memory of the hub and its children <= +{GOAL_MB:.0f} MB: "
        f"{met(worst_mb <= GOAL_MB)} (+{worst_mb:.1f} MB); "
        f"/api/state p99 < {GOAL_P99_MS:.0f} ms: {met(worst_p99 * 1000 < GOAL_P99_MS)} "
        f"({worst_p99 * 1000:.1f} ms)"
    )


if __name__ == "__main__":
    main()

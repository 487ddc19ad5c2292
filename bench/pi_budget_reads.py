"""Reads on the Pi budget: 16 phones asking the same thing at once, with years of games.

The sibling of ``bench/pi_budget.py`` (issue 33, item 10). A hub that has kept
``--games`` finished games (10,000: ten years of three-game evenings, 8 players;
tests/history.py, written and migrated as bench/players.py does) runs as
``mtrain-hub run --backend sim`` in a cgroup v1 of a Pi Zero 2 W's share (1/8 of one
core, ``cpu.cfs_quota_us`` 1250 per ``cpu.cfs_period_us`` 10000, and 128 MB), as
``bench/pi_budget.py`` places its budget hub (a shell joins the groups, then execs
Python; ``MALLOC_ARENA_MAX=2`` as the unit runs it). Beside it, in the same run and
the same budget, the baseline: the same hub with ``--baseline`` games (100).

For each read kind a phone may send (every ``GET`` the API answers from the store or
the hub, and ``POST /api/selftest`` from a phone without proof, which looks up the
newest game), 16 requests are sent at once, each on its own connection; the bench
prints each kind's slowest answer (and how many were not a success), then whether
the hub survived (alive, and its group's ``oom_kill`` count) and the group's peak
memory. Goal (issue 33): with 10,000 games, every kind answered within 1 s, the hub
never killed. Kinds run one after another, the hub idle between them; the evening's
picture last (``GET /api/evening.png``, drawn in a process of its own per request:
issue 33's item 1), its survival on a row of its own.

Where cgroups are not writable (not root, no cgroup v1) it says so and exits 0.

Usage: python bench/pi_budget_reads.py [--games 10000] [--baseline 100] [--at-once 16]
                                       [--kinds games,players,...]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import cgroups  # noqa: E402
from bench.budget_hub import JOIN  # noqa: E402
from bench.players import add_plays, schema_2_history  # noqa: E402
from scorer.store import GameStore  # noqa: E402
from tests import history  # noqa: E402
from tests.ports import os_port  # noqa: E402

SHARE, PERIOD_US, MEMORY_MB = 8, 10_000, 128  # as bench/pi_budget.py
CPU_SHARES = 10 * 1024
GOAL_S = 1.0
CONFIG = '[sound]\ndevice = "null"\nvoice = "off"\n'
TIMEOUT_S = 120.0
PICTURE = "evening-png"  # issue 33, item 1's: measured last, its survival on a row of its own


def make_store(folder: Path, games: int) -> Path:
    """A state folder whose store holds ``games`` generated games (the last unfinished,
    as tests/history.py makes them), migrated to the current schema, with their plays."""
    folder.mkdir(mode=0o700)
    played = history.generate(26, games, per_day=3)
    schema_2_history(folder / "games.db", played)
    GameStore(folder / "games.db").close()  # migrates, as a hub's first start would
    add_plays(folder / "games.db", played)
    return folder


@dataclass
class Hub:
    """One ``mtrain-hub run`` in its own budget groups."""

    label: str
    state: Path
    work: Path
    group: cgroups.Cgroup
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    figures: dict[str, tuple[float, int]] = field(default_factory=dict)
    killed_before_picture: bool = False
    peak_before_picture_mb: float = 0.0

    def start(self) -> None:
        self.port = os_port()
        (self.work / "hub.toml").write_text(CONFIG)
        join = self.group.procs_files()
        command = [
            *("/bin/sh", "-c", JOIN, "sh", str(len(join)), *join),
            *(sys.executable, "-m", "hub.cli", "run", "--config", str(self.work / "hub.toml")),
            *("--backend", "sim", "--host", "127.0.0.1", "--port", str(self.port)),
            *("--state-dir", str(self.state)),
        ]
        env = dict(os.environ, MALLOC_ARENA_MAX="2")
        with open(self.work / f"{self.label}.log", "wb") as log:
            self.proc = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.label}: the hub exited:\n{self.log()}")
            with contextlib.suppress(OSError):
                if ask(self.port, "GET", "/api/state")[0] == 200:
                    return
            time.sleep(0.05)
        raise RuntimeError(f"{self.label}: no answer in {TIMEOUT_S:g} s:\n{self.log()}")

    def log(self) -> str:
        return (self.work / f"{self.label}.log").read_text(errors="replace")[-3000:]

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def ask(port: int, method: str, path: str) -> tuple[int, bytes]:
    """One request on its own connection: the status and the body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
    try:
        headers = {"Accept-Language": "en"}
        body = None
        if method == "POST":
            body = json.dumps({"action": "start"})
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body, headers)
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def kinds(port: int) -> dict[str, tuple[str, str]]:
    """Every read kind, on this hub's own ids: the busiest players, the newest and the
    oldest game, a season from a year back."""
    players = json.loads(ask(port, "GET", "/api/players")[1])
    busiest = sorted(players, key=lambda p: -(p.get("games") or 0))
    a, b = busiest[0]["id"], busiest[1]["id"]
    newest = json.loads(ask(port, "GET", "/api/games?limit=1")[1])[0]["id"]
    last = max(p["last_seen"] for p in players)
    since = f"{int(last[:4]) - 1}{last[4:10]}"
    get = {
        "state": "/api/state",
        "games": "/api/games",
        "games-oldest-page": "/api/games?before=21",
        "game": f"/api/games/{newest - 1}",
        "game-history": f"/api/games/{newest - 1}/rounds/1/history",
        "game-csv": f"/api/games/{newest - 1}/export.csv",
        "log": "/api/log?limit=2000",
        "settings": "/api/settings",
        "rules": "/api/rules",
        "players": "/api/players",
        "player": f"/api/players/{a}",
        "versus": f"/api/players/{a}/vs/{b}",
        "season": "/api/season",
        "season-since": f"/api/season?since={since}",
        "evening": "/api/evening",
        "evening-csv": "/api/evening/export.csv",
    }
    listed = {kind: ("GET", path) for kind, path in get.items()}
    listed["selftest-start"] = ("POST", "/api/selftest")  # no proof: 403 after the look-up
    listed[PICTURE] = ("GET", "/api/evening.png")  # last: it draws in processes of its own
    return listed


def at_once(port: int, method: str, path: str, count: int) -> tuple[float, int]:
    """``count`` requests sent together: the slowest answer (s) and how many failed
    (no answer, or a 5xx; the self-test's 403 is its answer to a phone without proof)."""
    times: list[float] = []
    failed = [0]
    go = threading.Barrier(count)

    def one() -> None:
        go.wait()
        started = time.perf_counter()
        try:
            status, _ = ask(port, method, path)
            if status >= 500:
                failed[0] += 1
        except OSError:
            failed[0] += 1
        times.append(time.perf_counter() - started)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return max(times), failed[0]


def measure(hub: Hub, chosen: list[str] | None, count: int) -> None:
    """Each kind ``count`` at once, the hub idle between kinds."""
    for kind, (method, path) in kinds(hub.port).items():
        if chosen and kind not in chosen:
            continue
        if kind == PICTURE:
            hub.killed_before_picture = not hub.alive() or hub.group.oom_kills() > 0
            hub.peak_before_picture_mb = hub.group.memory_peak_mb()
        if not hub.alive():
            hub.figures[kind] = (float("nan"), count)
            continue
        hub.figures[kind] = at_once(hub.port, method, path, count)
        time.sleep(0.5)  # the budget's CPU back to idle


def shown(slowest: float, failed: int) -> str:
    if slowest != slowest:  # NaN: the hub was gone
        return "hub gone"
    mark = "" if slowest <= GOAL_S and not failed else " !"
    return f"{slowest * 1000:,.0f} ms" + (f", {failed} failed" if failed else "") + mark


def report(hubs: list[Hub], count: int) -> None:
    print(
        f"Pi budget reads: each hub in a cgroup v1 of 1/{SHARE} core (cpu.cfs_quota_us "
        f"{PERIOD_US // SHARE} per cpu.cfs_period_us {PERIOD_US}) and {MEMORY_MB} MB; "
        f"{count} requests of each kind at once; load average {os.getloadavg()[0]:.2f}"
    )
    print(f"goal: every kind within {GOAL_S:g} s with the years of games, never killed")
    print()
    print(
        f"| {'read kind (slowest of ' + str(count) + ')':32} | "
        + " | ".join(f"{h.label:>18}" for h in hubs)
        + " |"
    )
    print(f"|{'-' * 34}|" + "|".join("-" * 19 + ":" for _ in hubs) + "|")
    for kind in hubs[0].figures:
        cells = [shown(*h.figures.get(kind, (float("nan"), 0))) for h in hubs]
        print(f"| {kind:32} | " + " | ".join(f"{c:>18}" for c in cells) + " |")
    for row, value in (
        ("killed for memory, the reads", lambda h: "YES" if h.killed_before_picture else "no"),
        ("killed, with the picture too", lambda h: "YES" if h.group.oom_kills() else "no"),
        ("peak memory, the reads (MB)", lambda h: f"{h.peak_before_picture_mb:.1f}"),
        ("peak memory, with the picture", lambda h: f"{h.group.memory_peak_mb():.1f}"),
    ):
        print(f"| {row:32} | " + " | ".join(f"{value(h):>18}" for h in hubs) + " |")
    big = hubs[0]
    reads = {k: v for k, v in big.figures.items() if k != PICTURE}
    met = [k for k, (s, f) in reads.items() if s == s and s <= GOAL_S and not f]
    print()
    print(
        f"{big.label}: {len(met)} of {len(reads)} read kinds within {GOAL_S:g} s "
        f"(the picture apart); the hub {'KILLED' if big.killed_before_picture else 'survived'}"
        " them"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--baseline", type=int, default=100)
    parser.add_argument("--at-once", type=int, default=16)
    parser.add_argument("--kinds", help="comma-separated kinds (default: every one)")
    args = parser.parse_args()
    problem = cgroups.problem()
    if problem is not None:
        print(f"pi_budget_reads: skipped: {problem}")
        return 0
    chosen = args.kinds.split(",") if args.kinds else None
    for path in cgroups.remove_stale():
        print(f"removed a group an earlier run left: {path}")
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pi-reads-")))
        hubs: list[Hub] = []
        for games in (args.games, args.baseline):
            label = f"{games:,} games"
            started = time.perf_counter()
            state = make_store(work / f"state-{games}", games)
            print(f"{label}: written and migrated in {time.perf_counter() - started:.1f} s")
            quota = PERIOD_US // SHARE
            group = cgroups.Cgroup(f"reads-{games}", CPU_SHARES, PERIOD_US, quota, MEMORY_MB)
            stack.callback(group.remove)
            hub = Hub(label, state, work, group)
            stack.callback(hub.stop)
            hubs.append(hub)
        for hub in hubs:  # one at a time: the other's requests do not share the machine
            hub.start()
            measure(hub, chosen, args.at_once)
            hub.stop()
        report(hubs, args.at_once)
        if os.environ.get("PI_READS_KEEP"):
            kept = Path(os.environ["PI_READS_KEEP"])
            shutil.copytree(work, kept, dirs_exist_ok=True)
            print(f"kept the run's folder in {kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The players' statistics on a long history, beside today's games list, in one run.

A store of ``--games`` generated games (tests/history.py, seeded; written straight
into a schema 2 database as an older hub left it, then migrated to schema 3 by the
store on open, timed) is served by ``mtrain-hub run`` (sim backend, sound on
``null``) in a subprocess. Each call is timed ``--calls`` times, in turns, from
this process over loopback:

- the baseline, today's list of games: ``GET /api/games``;
- each statistics answer: ``GET /api/players``, ``GET /api/players/<id>`` (the
  player with the most games), ``GET /api/players/<a>/vs/<b>``, ``GET /api/season``,
  ``GET /api/season?since=<a year before the last game>`` and ``GET /api/evening``;
  then ``GET /api/evening.png`` three times (drawn by Pillow in a process of its
  own: the hub's memory after it is printed on its own line).

First ``--calls`` rounds of the statistics alone (the memory they add is read before
the list of games has grown the heap), then ``--calls`` rounds of every call in turns,
the baseline among them. Printed: each call's median and p90 over its calls and its
median's ratio to the baseline's (goal, issue 26: at most 2x), and the hub's resident
memory (VmRSS) once warmed up (``4 * --calls`` rounds of :data:`WARM_UP`: the state,
the settings, one game and a round's history, so every worker thread has served and
read the store), after the statistics and after the games list too (goal: the
statistics add at most 5 MB). The hub runs with ``MALLOC_ARENA_MAX=2``, as the
systemd unit runs it.

    python bench/players.py [--games 10000] [--calls 15]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.benchstats import percentile  # noqa: E402
from bench.footprint import CONFIG, first_answer, status_kb  # noqa: E402
from scorer.names import skeleton  # noqa: E402
from scorer.schema import MIGRATIONS  # noqa: E402
from scorer.store import GameStore, hash_token  # noqa: E402
from tests import history  # noqa: E402
from tests.ports import os_port  # noqa: E402


def schema_2_history(path: Path, games: list[history.PlayedGame]) -> None:
    """``games`` written into a new schema 2 database at ``path`` (one transaction)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.create_function("token_hash", 1, hash_token)
    conn.create_function("name_skeleton", 1, skeleton)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN")
    for statement in (*MIGRATIONS[0], *MIGRATIONS[1]):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    for number, game in enumerate(games, start=1):
        rounds = len(game.rounds)
        conn.execute(
            "INSERT INTO games (id, created_at, rules, set_max, rounds, token, finished_at)"
            " VALUES (?, ?, 'consensus', 9, ?, ?, ?)",
            (number, game.at, rounds, hash_token(f"t{number}"), game.at if game.finished else None),
        )
        conn.executemany(
            "INSERT INTO players (game_id, name, slot, position) VALUES (?, ?, ?, ?)",
            [(number, name, i + 1, i) for i, (_, name) in enumerate(game.seats)],
        )
        for r, (points, out) in enumerate(game.rounds, start=1):
            conn.execute(
                "INSERT INTO rounds (game_id, round, engine, went_out, blocked, finished)"
                " VALUES (?, ?, ?, ?, ?, 1)",
                (number, r, 9 - r, None if out is None else game.spelling(out), int(out is None)),
            )
            conn.executemany(
                "INSERT INTO scores (game_id, round, player, points) VALUES (?, ?, ?, ?)",
                [(number, r, game.spelling(p), n) for p, n in points.items()],
            )
    conn.execute("COMMIT")
    conn.close()


def add_plays(path: Path, games: list[history.PlayedGame]) -> None:
    """The table's plays of ``games`` (schema 3's ``plays``), as the hub noted them."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO plays (game_id, round, player, kind) VALUES (?, ?, ?, ?)",
        [
            (number, r, game.spelling(person), kind)
            for number, game in enumerate(games, start=1)
            for r, person, kind in game.plays
        ],
    )
    conn.execute("COMMIT")
    conn.close()


WARM_UP = ("/api/state", "/api/settings", "/api/games/1", "/api/games/2/rounds/1/history")


def timed_get(url: str) -> float:
    """Milliseconds to fetch ``url`` whole."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as answer:
        answer.read()
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=15)
    args = parser.parse_args()
    games = history.generate(26, args.games, per_day=3)  # 10,000: ten years of evenings
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "hub"
        state.mkdir(mode=0o700)
        started = time.perf_counter()
        schema_2_history(state / "games.db", games)
        written = time.perf_counter() - started
        started = time.perf_counter()
        store = GameStore(state / "games.db")  # migrates to schema 3
        migrated = time.perf_counter() - started
        store.close()
        add_plays(state / "games.db", games)
        print(f"{args.games} games written in {written:.1f} s, migrated in {migrated:.1f} s")
        (Path(tmp) / "hub.toml").write_text(CONFIG)
        return serve_and_time(Path(tmp), args.calls)


def serve_and_time(tmp: Path, calls: int) -> int:
    """Run the hub on ``tmp``'s state and print the table."""
    port = os_port()
    command = [sys.executable, "-m", "hub.cli", "run", "--config", str(tmp / "hub.toml")]
    command += ["--backend", "sim", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--state-dir", str(tmp / "hub")]
    env = dict(os.environ, MALLOC_ARENA_MAX="2")  # as systemd/mtrain-hub.service runs it
    quiet = subprocess.DEVNULL
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=quiet, stderr=quiet)
    base = f"http://127.0.0.1:{port}"
    try:
        first_answer(base + "/api/state", time.perf_counter(), proc)
        for _ in range(4 * calls):  # every worker has served a request, read the store
            for path in WARM_UP:
                timed_get(base + path)
        rss = {"warmed up": status_kb(proc.pid, "VmRSS") / 1024}
        urls = stats_urls(base)
        times: dict[str, list[float]] = {path: [] for path in ["/api/games", *urls]}
        for _ in range(calls):  # the statistics first: their memory is not the list's
            for path in urls:
                times[path].append(timed_get(base + path))
        rss["after the statistics"] = status_kb(proc.pid, "VmRSS") / 1024
        times["/api/evening.png"] = [timed_get(base + "/api/evening.png") for _ in range(3)]
        rss["after the evening's picture"] = status_kb(proc.pid, "VmRSS") / 1024
        for _ in range(calls):
            for path in ["/api/games", *urls]:  # in turns: a noisy moment falls on all alike
                times[path].append(timed_get(base + path))
        rss["after the games list too"] = status_kb(proc.pid, "VmRSS") / 1024
    finally:
        proc.terminate()
        proc.wait(10)
    report(times.pop("/api/games"), times, rss)
    return 0


def stats_urls(base: str) -> list[str]:
    """The statistics calls, on the busiest players and a season from a year back."""
    import json

    with urllib.request.urlopen(base + "/api/players", timeout=120) as answer:
        listed = json.loads(answer.read())
    busiest = sorted(listed, key=lambda p: -p["games"])
    a, b = busiest[0]["id"], busiest[1]["id"]
    last = max(p["last_seen"] for p in listed)
    since = f"{int(last[:4]) - 1}{last[4:10]}"
    return [
        "/api/players",
        f"/api/players/{a}",
        f"/api/players/{a}/vs/{b}",
        "/api/season",
        f"/api/season?since={since}",
        "/api/evening",
    ]


def report(baseline: list[float], times: dict[str, list[float]], rss: dict[str, float]) -> None:
    """The table: each call beside the games list, then the memory."""
    base_median = statistics.median(baseline)
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'call':<34} {'median ms':>10} {'p90 ms':>9} {'ratio':>7}")
    print(
        f"{'GET /api/games (baseline)':<34} {base_median:>10.1f} {percentile(baseline, 90):>9.1f}"
    )
    for path, values in times.items():
        median = statistics.median(values)
        ratio = median / base_median
        print(
            f"{'GET ' + path:<34} {median:>10.1f} {percentile(values, 90):>9.1f} "
            f"{ratio:>6.2f}x {'met' if ratio <= 2 else 'NOT met'}"
        )
    for when, mb in rss.items():
        print(f"hub resident memory {when}: {mb:.1f} MB")
    grown = rss["after the statistics"] - rss["warmed up"]
    print(
        f"the statistics added {grown:+.1f} MB (goal <= 5 MB: {'met' if grown <= 5 else 'NOT met'})"
    )


if __name__ == "__main__":
    sys.exit(main())

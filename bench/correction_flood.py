"""What a stranger's correction flood costs the SD card, beside a family's pace, in one run.

Issue 33, item 4: a correction of a finished game needs only that game's token (a
stranger's own game will do), kept the old values in the round's history and asked
for a backup. Four threads for 30 s: 293 corrections/s, games.db 0.25 -> 9.3 MB,
3,005 backups (the family's 7 rotated out in a second), 5.5 GB written.

Each phase runs a fresh hub (``mtrain-hub run``, sim backend, sound on ``null``) in a
subprocess, its state folder seeded with an empty games.db and the family's 7
backups, one on each of the 7 days before today. A game of three is started and
scored (one round: it is finished), then, for ``--seconds``:

- the baseline: one thread corrects it once a second (``--baseline-rate``);
- the flood: ``--threads`` threads correct it as fast as the hub answers, each on a
  kept-alive connection.

Printed for each phase: corrections accepted and refused (429) per second, the
growth of games.db and of its -wal (SQLite checkpoints the WAL at 4 MB and reuses
it), the backups written (the hub's log lines), the
family's backups still there, the bytes the hub process wrote (``/proc/<pid>/io``:
``write_bytes``, what reached the block layer, and ``wchar``, every write call), and
the round's history (entries, and the bytes of its GET). Then the goals (issue 33):
games.db grows by at most 1 MB, at most 5 backups, the family's 7 kept.

    python bench/correction_flood.py [--threads 4] [--seconds 30]
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorer.store import GameStore  # noqa: E402
from tests.helpers import until  # noqa: E402
from tests.http_client import HubProcess, call  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cy"]
FAMILY_DAYS = 7
GOAL_GROWTH = 1_000_000
GOAL_BACKUPS = 5


@dataclass
class Phase:
    """What one phase measured."""

    seconds: float
    statuses: dict[int, int] = field(default_factory=dict)
    growth: int = 0
    wal_growth: int = 0
    backups: int = 0
    family_kept: int = 0
    write_bytes: int = 0
    wchar: int = 0
    history: int = 0
    history_bytes: int = 0

    def rate(self, status: int) -> float:
        return self.statuses.get(status, 0) / self.seconds


def seed(state: Path) -> list[Path]:
    """An empty games.db and the family's backups, one on each of the days before today."""
    folder = state / "backups"
    folder.mkdir(parents=True)
    GameStore(state / "games.db").close()
    evening = datetime.now(UTC).replace(hour=21, minute=30, second=0)
    made = []
    for back in range(FAMILY_DAYS, 0, -1):
        stamp = (evening - timedelta(days=back)).strftime("%Y%m%d-%H%M%S")
        made.append(folder / f"games-{stamp}-game{back}.db")
        shutil.copy(state / "games.db", made[-1])
    return made


def size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def io_of(pid: int) -> dict[str, int]:
    with open(f"/proc/{pid}/io") as f:
        return {k: int(v) for k, v in (line.split(": ") for line in f)}


def finished_game(hub: HubProcess) -> tuple[int, str]:
    status, made = hub.post("/api/games", {"players": PLAYERS, "rounds": 1})
    assert status == 201, made
    body = {"points": {"Ann": 0, "Bob": 5, "Cy": 7}, "mid_round": True}
    path = f"/api/games/{made['id']}/rounds/1/scores"
    status, game = hub.post(path, body, token=made["token"])
    assert status == 200 and game["finished"], game
    return made["id"], made["token"]


def corrector(port: int, game_id: int, token: str, until: float, pace_s: float, seen: list[int]):
    """Correct round 1 until ``until``: every ``pace_s`` seconds, or (0) at once."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    value, path = 0, f"/api/games/{game_id}/rounds/1/scores"
    while (now := time.monotonic()) < until:
        value = (value + 1) % 40
        body = json.dumps({"points": {"Ann": 0, "Bob": value, "Cy": 40 - value}})
        try:
            conn.request("POST", path, body, headers)
            response = conn.getresponse()
            response.read()
            seen.append(response.status)
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            seen.append(0)
        if pace_s:
            time.sleep(max(0.0, now + pace_s - time.monotonic()))
    conn.close()


def run_phase(threads: int, seconds: float, pace_s: float) -> Phase:
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder) / "state"
        family = seed(state)
        config = Path(folder) / "hub.toml"
        config.write_text('[sound]\ndevice = "null"\n')
        hub = HubProcess(state, "--config", str(config))
        try:
            game_id, token = finished_game(hub)
            until(lambda: "backup: " in hub.said(), "the finished game's backup", 30)
            log_start = len(hub.said())
            db, wal = state / "games.db", state / "games.db-wal"
            sizes, io = (size(db), size(wal)), io_of(hub.proc.pid)
            seen: list[int] = []
            end = time.monotonic() + seconds
            workers = [
                threading.Thread(
                    target=corrector, args=(hub.port, game_id, token, end, pace_s, seen)
                )
                for _ in range(threads)
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            phase = Phase(seconds)
            after = io_of(hub.proc.pid)
            phase.write_bytes = after["write_bytes"] - io["write_bytes"]
            phase.wchar = after["wchar"] - io["wchar"]
            phase.growth, phase.wal_growth = size(db) - sizes[0], size(wal) - sizes[1]
            phase.backups = hub.said()[log_start:].count("backup: ")
            phase.family_kept = sum(path.exists() for path in family)
            for status in seen:
                phase.statuses[status] = phase.statuses.get(status, 0) + 1
            _, history = call(hub.base, "GET", f"/api/games/{game_id}/rounds/1/history")
            phase.history = len(history)
            phase.history_bytes = len(json.dumps(history))
        finally:
            hub.stop()
    return phase


def table(base: Phase, flood: Phase) -> list[str]:
    rows = [
        ("corrections accepted / s", f"{base.rate(200):.1f}", f"{flood.rate(200):.1f}"),
        ("corrections refused 429 / s", f"{base.rate(429):.1f}", f"{flood.rate(429):.1f}"),
        (
            "other answers",
            str(
                sum(base.statuses.values()) - base.statuses.get(200, 0) - base.statuses.get(429, 0)
            ),
            str(
                sum(flood.statuses.values())
                - flood.statuses.get(200, 0)
                - flood.statuses.get(429, 0)
            ),
        ),
        ("games.db growth, KB", f"{base.growth / 1024:.0f}", f"{flood.growth / 1024:.0f}"),
        (
            "games.db-wal growth, KB",
            f"{base.wal_growth / 1024:.0f}",
            f"{flood.wal_growth / 1024:.0f}",
        ),
        ("backups written", str(base.backups), str(flood.backups)),
        (
            "family's backups kept",
            f"{base.family_kept} of {FAMILY_DAYS}",
            f"{flood.family_kept} of {FAMILY_DAYS}",
        ),
        (
            "hub wrote to disk (write_bytes), MB",
            f"{base.write_bytes / 1e6:.1f}",
            f"{flood.write_bytes / 1e6:.1f}",
        ),
        (
            "hub write calls, sockets too (wchar), MB",
            f"{base.wchar / 1e6:.1f}",
            f"{flood.wchar / 1e6:.1f}",
        ),
        ("round history entries", str(base.history), str(flood.history)),
        ("round history GET, bytes", str(base.history_bytes), str(flood.history_bytes)),
    ]
    return [f"{name:<38} {a:>12} {b:>12}" for name, a, b in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--baseline-rate", type=float, default=1.0, help="corrections a second")
    args = parser.parse_args()
    base = run_phase(1, args.seconds, 1.0 / args.baseline_rate)
    flood = run_phase(args.threads, args.seconds, 0.0)
    print(
        f"correction flood, {args.threads} threads x {args.seconds:g} s; baseline: "
        f"{args.baseline_rate:g} correction a second, 1 thread, {args.seconds:g} s"
    )
    print(f"{'':<38} {'baseline':>12} {'flood':>12}")
    for line in table(base, flood):
        print(line)
    met = {
        True: "met",
        False: "NOT met",
    }
    print(
        f"goal games.db growth <= 1 MB: {met[flood.growth <= GOAL_GROWTH]}; "
        f"backups <= {GOAL_BACKUPS}: {met[flood.backups <= GOAL_BACKUPS]}; "
        f"the family's {FAMILY_DAYS} kept: {met[flood.family_kept == FAMILY_DAYS]}"
    )


if __name__ == "__main__":
    main()

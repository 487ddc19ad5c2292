"""Every bench runs to its end with the smallest counts and prints its figures: a bench
that only imports can still be broken by a helper whose arguments changed
(``bench/page.py`` was, unseen, until a full run of the benches). The figures of these
short runs mean nothing; the full runs are the benches' own (docs/performance.md).
``bench/pi_budget.py`` runs in ``tests/bench/test_pi_budget.py`` (root, cgroups)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

NUMBER = r"[0-9]+(?:\.[0-9]+)?"
# Benches run elsewhere: pi_budget by tests/bench/test_pi_budget.py; mqtt_board is the board
# part of mqtt.py (its workers are the script run again).
ELSEWHERE = {"pi_budget", "mqtt_board"}

# script and its smallest arguments: the lines its output must hold (regular expressions)
RUNS: dict[str, tuple[list[str], list[str]]] = {
    "core_apply": (
        ["--events", "300", "--rounds", "1"],
        [rf"{re.escape(str(ROOT))} +{NUMBER} µs per apply +\(1\.00× this tree\)"],
    ),
    "evening_png": (
        ["--games", "3", "--names", "2", "--pictures", "2", "--baseline", "0.3"],
        [
            r"^picture 720 x [0-9]+ px",
            rf"^cold +2 +{NUMBER}ms +{NUMBER}ms .* 2 x 200 in {NUMBER} s$",
            r"^goal memory of the hub and its children <= \+40 MB: (NOT )?met",
        ],
    ),
    "press_to_effect": (
        ["--presses", "50", "--idle", "0.5"],
        [
            r"^press to effect, 50 presses",
            rf"^p99 +{NUMBER} +{NUMBER} +{NUMBER}$",
            rf"^cpu +{NUMBER} +{NUMBER}$",
            r"^goal p99 within 2x floor: (NOT )?met .*; idle under 1%: (NOT )?met",
        ],
    ),
    "serial_latency": (
        ["--presses", "30"],
        [
            r"^serial bridge latency, 30 presses",
            rf"^edge -> sound, serial \(pty\) +{NUMBER} +{NUMBER} +{NUMBER}$",
            rf"^LED change -> frame at the box +{NUMBER} +{NUMBER} +{NUMBER}$",
            r"^goal: serial p99 <= sim p99 \+ 2 bare round trips",
        ],
    ),
    "mqtt-presses": (
        ["--presses", "30", "--only", "presses"],
        [r"^goal press p99 on within 1\.1x off: (NOT )?met \(" + NUMBER + "x\\)$"],
    ),
    "mqtt-board": (
        ["--hubs", "2", "--seconds", "0.3", "--only", "board"],
        [r"^goal board p99 2 hubs within 2x 1 hub: (NOT )?met \(" + NUMBER + "x\\)$"],
    ),
    "footprint": (
        ["--runs", "1", "--settle", "0.2"],
        [
            rf"^\| resident memory \(MB\) +\| +{NUMBER} \| +{NUMBER} \| +-?{NUMBER} \|$",
            r"^memory above bare: .*goal at most 20 threads idle: (NOT )?met",
        ],
    ),
    "players": (
        ["--games", "20", "--calls", "1"],
        [
            r"^20 games written",
            rf"^GET /api/players/3/vs/1 +{NUMBER} +{NUMBER} +{NUMBER}x (NOT )?met$",
            r"^the statistics added .* \(goal <= 5 MB: (NOT )?met\)$",
        ],
    ),
    "pi_budget_reads": (  # as root with cgroup v1 (CI); elsewhere it says it skipped
        ["--games", "30", "--baseline", "10", "--at-once", "2", "--kinds", "games,player,log"],
        [
            r"^(pi_budget_reads: skipped: .*"
            r"|\| games +\| +[0-9,]+ ms( !)? \| +[0-9,]+ ms( !)? \|)$",
            r"^(pi_budget_reads: skipped: .*|30 games: [0-3] of 3 read kinds within 1 s .*)$",
        ],
    ),
    "capacity": (
        ["--streams", "5", "--idle", "5", "--slow", "2", "--claims", "0", "--samples", "5"],
        [
            r"^crowd: 5 streams, 5 idle connections, 2 slow clients",
            rf"^press-to-screen +p99 ratio loaded/no load: {NUMBER}x",
            r"^slowest request: .* [0-9]+ failed",
        ],
    ),
    "sound_latency": (
        ["--presses", "30", "--speech-presses", "30", "--baseline-runs", "3"],
        [
            r"^goal speech p99 within 1\.2x of the chime's: (NOT )?met",
            rf"^\| edge -> hub -> first PCM frame, p99 +\| +{NUMBER} [uµm]s \|",
            r"^goal edge -> hub -> first PCM frame p99 at least 40x lower than aplay",
        ],
    ),
    "soak": (
        ["--games", "1"],
        [rf"^{name} +[1-9][0-9]* " for name in ("aces", "mexicantrainfun", "consensus", "triples")]
        + [rf"^all +[1-9][0-9]* +{NUMBER} +{NUMBER} +{NUMBER}"],
    ),
    "refusal_cost": (
        ["--rounds", "2"],
        [
            rf"^GET /api/state alone \(baseline\) +{NUMBER} +{NUMBER} +1\.00x$",
            rf"^POST, 200 KB Origin -> 403 +{NUMBER} +{NUMBER} +{NUMBER}x$",
            rf"^  GET /api/state beside it +{NUMBER} +{NUMBER} +{NUMBER}x$",
            r"^goal every answer's median within 50 ms: (NOT )?met",
        ],
    ),
    "voice_churn": (
        ["--changes", "3", "--timeout", "120"],
        [
            r"^1 change \(baseline\) +1 +0 +[0-9]+ ",
            r"^goal 3 changes render at most 2x one change's: (NOT )?met",
            r"^goal the game's sentences all cached after each: (NOT )?met",
        ],
    ),
    "path_gate": (
        ["--seconds", "0.3", "--threads", "2"],
        [
            rf"^POST /api/claim  \(baseline\) +{NUMBER} +[0-9]+ +{NUMBER}  ",
            rf"^POST //api/claim +{NUMBER} +[0-9]+ +{NUMBER}  ",
            r"^goal no other spelling reaches the handler once the limit is used up: (NOT )?met$",
        ],
    ),
    "correction_flood": (
        ["--threads", "2", "--seconds", "1"],
        [
            rf"^corrections accepted / s +{NUMBER} +{NUMBER}$",
            r"^family's backups kept +7 of 7 +[0-9] of 7$",
            r"^goal games\.db growth <= 1 MB: (NOT )?met; backups <= 5: (NOT )?met; "
            r"the family's 7 kept: (NOT )?met$",
        ],
    ),
    "page": (
        ["--presses", "3", "--clients", "2", "--loads", "1"],
        [
            r"^/static/app\.js +script +[0-9]+",
            r"^goal p99 with 2 more clients within 2x the single-client p99: (NOT )?met",
        ],
    ),
}


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.browser) if n == "page" else n for n in RUNS],
)
def test_each_bench_runs_to_its_end(name: str) -> None:
    args, expected = RUNS[name]
    script = ROOT / "bench" / f"{name.split('-')[0]}.py"
    run = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "Traceback" not in output, output
    for pattern in expected:
        assert re.search(pattern, run.stdout, re.MULTILINE), f"{pattern!r} not in:\n{output}"


def test_every_bench_script_is_run_here_or_elsewhere() -> None:
    scripts = {
        path.stem
        for path in (ROOT / "bench").glob("*.py")
        if '__name__ == "__main__"' in path.read_text(encoding="utf-8")
    }
    assert scripts == {name.split("-")[0] for name in RUNS} | ELSEWHERE

"""Voice churn: what a burst of ``spoken_names`` changes costs the hub (issue 33, item 6).

A hub on the sim backend (the voice on ``turns``, the real espeak-ng, a recording sound
player) starts a game of 8 players and renders its 74 sentences ahead. Then a token
holder's changes arrive back to back through the hub's own settings path
(``Hub.apply_settings``, what ``POST /api/settings`` calls after its checks): each change
gives all 8 players a new spelling ("Ann 17"). The baseline, in the same run, is one such
change. A third scenario sends the issue's long spellings (24 x "㍻", ~20 s a sentence),
which the hub now refuses.

Each scenario runs in a fresh process (so its memory is its own) and reports: changes
accepted and refused; renders done by the render thread (the engine's render function,
counted); names measured for their speaking time; the render thread's busy seconds (wall
time in the render function) and the CPU seconds of every espeak-ng run (renders and
measures: the process's children); the
seconds from the first change until everything is rendered; the most renders pending at
once; how many of the game's sentences (as now spelled) are in the cache; and the
process's resident memory growth (VmRSS) from before the first change to the end, with
its peak (VmHWM).

    python bench/voice_churn.py [--changes 100] [--timeout 300]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PLAYERS = ["Ann", "Bea", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
SCENARIOS = ("one", "many", "long")


def memory_kb() -> dict[str, int]:
    """VmRSS and VmHWM of this process, in kB."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields


def children_cpu_s() -> float:
    """CPU seconds this process's finished children used (every espeak-ng run)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def spellings(scenario: str, change: int) -> dict[str, str]:
    """Change number ``change``'s spellings: every player gets a new one."""
    if scenario == "long":
        return {p: "㍻" * 23 + str(change % 10) + p[0] for p in PLAYERS}
    return {p: f"{p} {change}" for p in PLAYERS}


def run_scenario(scenario: str, changes: int, timeout: float) -> dict[str, Any]:
    """One scenario in this process: its figures."""
    from bench.benchstats import stamping_hub
    from hub.voice.phrases import every_phrase
    from scorer.errors import FieldError
    from scorer.setup import check_setup

    with tempfile.TemporaryDirectory() as state:
        hub, _, _ = stamping_hub("sim", state, sound={"voice": "turns"})
        voice = hub.voice
        counted = {"renders": 0, "busy": 0.0}
        engine_render = voice.render

        def render(text: str, lang: str) -> Any:
            started = time.perf_counter()
            try:
                return engine_render(text, lang)
            finally:
                counted["renders"] += 1
                counted["busy"] += time.perf_counter() - started

        voice.render = render
        try:
            hub.games.new_game(check_setup({"players": PLAYERS, "first": 1}, "consensus"))
            assert voice.wait_ready(timeout), "the game's sentences were not rendered"
            counted.update(renders=0, busy=0.0)
            measured = getattr(getattr(voice, "timing", None), "measured", 0)
            before, cpu = memory_kb(), children_cpu_s()
            count = 1 if scenario == "one" else changes
            refused, most_pending = 0, 0
            started = time.perf_counter()
            for change in range(count):
                try:
                    hub.apply_settings({"spoken_names": spellings(scenario, change)})
                except FieldError:
                    refused += 1
                most_pending = max(most_pending, int(voice.status()["pending"]))
            changed_s = time.perf_counter() - started
            ready = voice.wait_ready(timeout)
            ready_s = time.perf_counter() - started
            after, cpu = memory_kb(), children_cpu_s() - cpu
            lang = str(hub.settings.values["voice_language"])
            wanted = {(lang, voice.spoken_text(p, lang)) for p in every_phrase(PLAYERS)}
            return {
                "changes": count,
                "refused": refused,
                "renders": counted["renders"],
                "measured": getattr(getattr(voice, "timing", None), "measured", 0) - measured,
                "busy_s": counted["busy"],
                "engine_cpu_s": cpu,
                "changed_s": changed_s,
                "ready_s": ready_s if ready else None,
                "pending_peak": most_pending,
                "cached": sum(key in voice.cache for key in wanted),
                "wanted": len(wanted),
                "rss_mb": (after["VmRSS"] - before["VmRSS"]) / 1024,
                "hwm_mb": (after["VmHWM"] - before["VmRSS"]) / 1024,
            }
        finally:
            hub.stop()


def in_process(scenario: str, changes: int, timeout: float) -> dict[str, Any]:
    """Run ``scenario`` in a fresh interpreter; its figures."""
    command = [sys.executable, __file__, "--scenario", scenario]
    command += ["--changes", str(changes), "--timeout", str(timeout)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"scenario {scenario} failed:\n{done.stdout}{done.stderr}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def table(rows: dict[str, dict[str, Any]]) -> None:
    """Print the figures, each scenario beside the baseline."""
    print(
        f"{'scenario':<28} {'changes':>7} {'refused':>7} {'renders':>7} {'measured':>8} "
        f"{'busy s':>7} {'cpu s':>6} {'ready s':>7} {'pending':>7} {'cached':>7} {'RSS +MB':>7} "
        f"{'peak +MB':>8}"
    )
    for name, f in rows.items():
        ready = "never" if f["ready_s"] is None else f"{f['ready_s']:.2f}"
        print(
            f"{name:<28} {f['changes']:>7} {f['refused']:>7} {f['renders']:>7} "
            f"{f['measured']:>8} {f['busy_s']:>7.2f} {f['engine_cpu_s']:>6.2f} {ready:>7} "
            f"{f['pending_peak']:>7} "
            f"{f['cached']:>3}/{f['wanted']:<3} {f['rss_mb']:>7.1f} {f['hwm_mb']:>8.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--scenario", choices=SCENARIOS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scenario:  # a child: one scenario, its figures as JSON
        print(json.dumps(run_scenario(args.scenario, args.changes, args.timeout)))
        return
    n = args.changes
    print(f"voice churn: a game of {len(PLAYERS)}, espeak-ng, {n} changes back to back")
    rows = {
        "1 change (baseline)": in_process("one", n, args.timeout),
        f"{n} changes": in_process("many", n, args.timeout),
        f"{n} changes, long spellings": in_process("long", n, args.timeout),
    }
    table(rows)
    base, many = rows["1 change (baseline)"], rows[f"{n} changes"]
    ratio = many["renders"] / max(1, base["renders"])
    met = many["renders"] <= 2 * max(1, base["renders"])
    print(
        f"goal {n} changes render at most 2x one change's: {'met' if met else 'NOT met'} "
        f"({ratio:.2f}x)"
    )
    kept = all(f["cached"] == f["wanted"] for f in rows.values())
    print(f"goal the game's sentences all cached after each: {'met' if kept else 'NOT met'}")


if __name__ == "__main__":
    main()

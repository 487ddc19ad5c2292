"""The Pi budget bench: the hub on a Pi Zero 2 W's share of a PC, beside the same hub
unconstrained, in the same run.

Two hubs run at once, each ``mtrain-hub run --backend serial`` as a process of its own
placed in a cgroup (v1, under ``/sys/fs/cgroup``, as root) before the interpreter
starts: a shell joins the groups, then execs Python. The budget's groups give it 1/8
of one core (``cpu.cfs_quota_us`` 1250 per ``cpu.cfs_period_us`` 10000 by default: a
slow CPU runs all the time, it is not a fast one stopped for 87 ms of every 100, which
the kernel's 100 ms period would give) and 128 MB (``memory.limit_in_bytes``); the
other's have no limits, so both are measured the same way (``cpuacct.usage``,
``memory.max_usage_in_bytes``). Both groups have ten times the default CPU weight
(``cpu.shares``) and the bench and its helpers run at nice -10, so other work on a
shared machine delays them less and the quota alone limits the budget hub.

Each hub gets what a real evening switches on: its hub box (the real firmware under
CPython on a pty, in a process of its own: the inputs and the LED ring), MQTT to one
local mosquitto (and a subscriber), its sounds on ALSA's ``null`` device, and 8 phones
listening to ``GET /api/events``. A driver per hub plays a fast table on its box: a
gesture every 100 ms for ``--seconds``, mostly taps by the player whose turn it is,
doubles (a 1.1 s hold, then the cover) and markers (on and off) mixed in, each chosen
from what a phone shows, as a person looks before pressing.

Figures, per hub:
- press to sound port: the box's release edge (a marker: its edge plus the 80 ms
  flicker window the hub waits by design) to the ALSA player starting that sound (its
  ``on_sound_start`` hook writes a stamp to a pipe: for the table the hub runs under a
  small wrapper, ``--hub``, that sets the hook, then calls ``hub.cli.main`` as
  ``mtrain-hub run`` does); p50 and p99;
- press to phone: the same edge to the ``state`` that shows it, at each of the 8 phones;
- the longest stall of the loop thread: the hub believes systemd watches it
  (``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` twice ``--probe-ms``), so its loop thread
  sends a ping every 10 ms (its beat, hub/runtime/notify.py); the bench stamps each
  ping's arrival, and the longest gap between two, less the 10 ms, is the longest the
  loop (or the whole process) did not answer. A stall that began just after a ping
  shows up to 10 ms short. The probe is not free: its pings cost the hub about 1.5 %
  of one core here (the "CPU idle" row), an eighth of the budget;
- CPU per press: the group's CPU while the table played, less its idle rate, over the
  gestures; and the idle CPU (table set, phones listening, nobody pressing);
- start to first answer: ``mtrain-hub run`` itself (no wrapper, no probe) from spawning
  to its first answer of ``GET /api/state``, on a fresh state folder, after a first
  start (not timed, in neither group) has compiled every module it imports, as
  installing it does;
- peak memory: the table's hub's peak resident set (VmHWM), and the most its group was
  charged while it ran (page cache included; the group's cache is given back before it
  starts); and whether it was killed for memory.

Goals on the budget: press to sound p99 <= 10 ms, press to phone p99 <= 60 ms, no loop
stall over 50 ms, first answer <= 5 s, never killed for memory.

ALSA's ``null`` takes each sound at once, so the sound writer mixes a whole sound in one
burst of CPU that a card would spread over the sound's length; ``--paced`` makes each
write wait as a card's would (a sound pressed while another plays then starts a period
later, which the sound figure includes). ``--threads`` adds each thread's CPU, the
MQTT messages by topic, the p99s by gesture kind and the longest stalls with the
gesture before each.

A run that misses a goal or never shows a gesture keeps its evidence, read before the
hubs stop, in ``--keep-dir`` (``test-artifacts/pi-budget/<time>/``; ``--keep`` keeps it
always): for each hub its log, its own event log (``GET /api/log``) and snapshot, its
groups' ``memory.stat``, ``memory.failcnt``, ``memory.oom_control``, ``cpu.stat`` and
``cpuacct.usage``, the driver's gestures (each with whether the control phone saw it
and the table it still showed), the loop's watchdog gaps over 20 ms and the figures.

Where cgroups are not writable (not root, no cgroup v1) it says so and exits 0.
Everything it starts, it stops, and its groups are removed, on Ctrl-C and failure too.

Usage: python bench/pi_budget.py [--seconds 120] [--quick] [--period-ms 10] [--probe-ms 10]
                                 [--threads] [--paced] [--keep] [--keep-dir DIR]
"""

from __future__ import annotations

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK_S = 10.0


def hub_child(fd: int, argv: list[str]) -> int:
    """``--hub FD run ...``: ``mtrain-hub run`` with the ALSA player's ``on_sound_start``
    writing ``NAME STAMP`` to pipe ``fd``; nothing else is changed or imported early
    (the player's module is one the hub imports anyway)."""
    sys.path.insert(0, ROOT)
    from hub.io import alsa_player

    def started(name: str) -> None:
        os.write(fd, f"{name} {time.perf_counter_ns()}\n".encode())

    made = alsa_player.AlsaPlayer.__init__

    def hooked(self: alsa_player.AlsaPlayer, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("on_sound_start", started)
        made(self, *args, **kwargs)  # type: ignore[arg-type]

    alsa_player.AlsaPlayer.__init__ = hooked  # type: ignore[method-assign]
    if os.environ.get("PI_BUDGET_PACED"):
        _pace_like_a_card()
    if os.environ.get("PI_BUDGET_THREAD_NAMES"):
        _name_os_threads()
    from hub.cli.main import main as mtrain_hub

    return mtrain_hub(argv)


def _pace_like_a_card() -> None:
    """ALSA's ``null`` device takes every frame at once, so the sound writer mixes and
    writes a whole sound (a chicken and the sentence after it: ~2.5 s) in one burst
    of CPU. A sound card takes frames at its rate: a write blocks while a buffer's
    worth is queued, and the writer works a period at a time as the sound plays.
    ``--paced``: each write waits as a card's would (the hub's code is unchanged). A
    sound pressed while another plays then starts in the period after the one being
    written (docs/sound.md: heard after what is in the buffer), which the press to
    sound port figure includes."""
    from hub.io import alsa_output

    opened = alsa_output.AlsaOutput.__init__
    write = alsa_output.AlsaOutput.write

    def remember(self: Any, device: str, rate: int, period_frames: int, periods: int) -> None:
        opened(self, device, rate, period_frames, periods)
        self.pace = [rate, period_frames * periods / rate, 0.0]  # rate, buffer s, drained at

    def paced(self: Any, frames: bytes) -> None:
        rate, buffer_s, drained_at = self.pace
        now = time.monotonic()
        drained_at = max(now, drained_at) + len(frames) / 2 / rate
        self.pace[2] = drained_at
        if drained_at - now > buffer_s:  # the buffer is full: block until a period plays
            time.sleep(drained_at - now - buffer_s)
        write(self, frames)

    alsa_output.AlsaOutput.__init__ = remember  # type: ignore[method-assign]
    alsa_output.AlsaOutput.write = paced  # type: ignore[method-assign]


def _name_os_threads() -> None:
    """``--threads``: each Python thread gives its name to the OS thread (``comm``), so
    the bench can read each thread's CPU from ``/proc`` by name."""
    import ctypes
    import threading

    libc = ctypes.CDLL(None)
    bootstrap = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def named(self: threading.Thread) -> None:
        libc.prctl(15, self.name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
        bootstrap(self)

    threading.Thread._bootstrap_inner = named  # type: ignore[attr-defined]


if __name__ == "__main__" and sys.argv[1:2] == ["--hub"]:  # before any other import
    sys.exit(hub_child(int(sys.argv[2]), sys.argv[3:]))

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, ROOT)

from bench import budget_table as table  # noqa: E402
from bench import cgroups  # noqa: E402
from bench.budget_hub import PHONES, HubRun, request  # noqa: E402

SHARE = 8  # 1/8 of one core
MEMORY_MB = 128
# The bench and its helpers run at nice -10, both hubs' groups at the CPU weight of ten
# processes: other work on a shared machine then delays them less, and the quota alone
# limits the budget hub (as a Pi runs the hub by itself).
NICE = -10
CPU_SHARES = 10 * 1024
IDLE_S = 3.0  # the tables set, nobody pressing: each hub's idle CPU
# --- the run --------------------------------------------------------------------------------


def idle_cpu(runs: list[HubRun]) -> None:
    """Each hub's CPU, % of one core, over ``IDLE_S`` with the table set and nobody pressing."""
    before = [run.group.cpu_ns() for run in runs]
    started = time.monotonic()
    time.sleep(IDLE_S)
    wall = time.monotonic() - started
    for run, cpu in zip(runs, before, strict=True):
        run.figures["idle_pct"] = (run.group.cpu_ns() - cpu) / 1e9 / wall * 100


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of ``pid``'s threads so far, summed by thread name (``comm``)."""
    tick = os.sysconf("SC_CLK_TCK")
    seconds: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        used = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        seconds[name] = seconds.get(name, 0.0) + used
    return seconds


def play_both(runs: list[HubRun], seconds: float) -> None:
    """Both tables at once (the second 50 ms after the first); CPU read around them."""
    stop = threading.Event()
    threads_before = [thread_cpu(run.proc.pid) for run in runs if run.proc]
    before = [(run.group.cpu_ns(), run.group.throttling(), time.monotonic()) for run in runs]

    def drive(run: HubRun, delay: float) -> None:
        time.sleep(delay)
        assert run.box is not None
        run.played = table.play(run.box, run.phones[0], seconds, 1, stop)

    threads = [
        threading.Thread(target=drive, args=(run, 0.05 * i), name=f"drive-{run.label}")
        for i, run in enumerate(runs)
    ]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
    finally:
        stop.set()
        for thread in threads:
            thread.join(15)
    for run, (cpu, throttled, started) in zip(runs, before, strict=True):
        now = run.group.throttling()
        f = run.figures
        f["cpu_ns"], f["wall_s"] = run.group.cpu_ns() - cpu, time.monotonic() - started
        f["periods"] = now["nr_periods"] - throttled["nr_periods"]
        f["throttled"] = now["nr_throttled"] - throttled["nr_throttled"]
    for run, was in zip(runs, threads_before, strict=True):
        assert run.proc is not None
        now_by_name = thread_cpu(run.proc.pid)
        run.figures["threads"] = {
            name: used - was.get(name, 0.0) for name, used in now_by_name.items()
        }


def read_figures(run: HubRun, mqtt_messages: int, probe_ms: int) -> None:
    """Everything the table prints for ``run``, read before its hub stops."""
    assert run.played is not None and run.box is not None and run.pings is not None
    assert run.stamps is not None and run.proc is not None
    if run.listener.error is not None:
        raise RuntimeError(f"{run.label}: reading failed: {run.listener.error!r}")
    edges, frames = run.box.stamps()
    gestures = run.played.gestures
    heard = table.latencies(gestures, edges, run.stamps.sounds, run.phones)
    f = run.figures
    f["sound"], f["phone"] = heard.sound, heard.phone
    f["sound_kinds"], f["phone_kinds"] = heard.sound_kinds, heard.phone_kinds
    f["no_sound"], f["no_state"] = heard.no_sound, heard.no_state
    f["stall_ms"] = None
    if probe_ms and gestures:
        span = (edges[gestures[0].edge], edges[gestures[-1].edge])
        f["stall_ms"] = table.longest_stall(run.pings.watchdog, *span, probe_ms * 1_000_000)
        f["worst_stalls"] = table.worst_stalls(
            run.pings.watchdog, gestures, edges, probe_ms * 1_000_000
        )
    f["pings"] = len(run.pings.watchdog)
    above_idle = f["cpu_ns"] / 1e9 - f["idle_pct"] / 100 * f["wall_s"]
    f["cpu_per_press_ms"] = above_idle / len(gestures) * 1000 if gestures else None
    f["resident_mb"] = run.peak_resident_mb()
    f["group_mb"] = run.group.memory_peak_mb()
    f["killed"] = "no" if run.proc.poll() is None and not run.group.oom_kills() else "YES"
    f["frames"], f["mqtt"] = frames, mqtt_messages
    f["kinds"] = {k: sum(g.kind == k for g in gestures) for k in sorted({g.kind for g in gestures})}


ROWS = {  # key: (label, goal, met)
    "sound_p50": ("press to sound port, p50 (ms)", "", None),
    "sound_p99": ("press to sound port, p99 (ms)", "<= 10 ms", lambda v: v <= 10),
    "phone_p50": ("press to phone, p50 (ms)", "", None),
    "phone_p99": ("press to phone, p99 (ms)", "<= 60 ms", lambda v: v <= 60),
    "stall_ms": ("longest loop stall (ms)", "<= 50 ms", lambda v: v <= 50),
    "cpu_per_press_ms": ("CPU per press, above idle (ms)", "", None),
    "idle_pct": ("CPU idle (% of one core)", "", None),
    "first_answer_s": ("start to first answer (s)", "<= 5 s", lambda v: v <= 5),
    "resident_mb": ("peak memory, resident (MB)", "", None),
    "group_mb": ("peak memory, its cgroup (MB)", "", None),
    "killed": ("killed for memory", "never", lambda v: v == "no"),
}


def figure(f: dict[str, Any], key: str) -> Any:
    """Row ``key``'s value for one hub (None when nothing was measured)."""
    if key.endswith(("_p50", "_p99")):
        values = f[key[:-4]]
        return table.p(values, float(key[-2:]))
    return f[key]


def shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def report(runs: list[HubRun], args: argparse.Namespace, loads: list[str]) -> None:
    """Print the table: each figure on the budget beside the hub unconstrained."""
    budget, free = (run.figures for run in runs)
    period = args.period_ms * 1000
    print(
        f"Pi budget: the hub in a cgroup v1 (as root) of 1/{SHARE} of one core, "
        f"cpu.cfs_quota_us {period // SHARE} per cpu.cfs_period_us {period}, and "
        f"memory.limit_in_bytes {MEMORY_MB} MB; beside it at the same time the same hub "
        "in a cgroup with no limits"
    )
    print(
        f"each: --backend serial on the fake MCU's pty (inputs, LED ring), MQTT to mosquitto, "
        f"sound on ALSA null{' (paced like a card)' if args.paced else ''}, "
        f"{PHONES} phones on /api/events; {args.seconds:g} s of gestures, "
        f"one every 100 ms; watchdog probe every {args.probe_ms} ms"
    )
    print(f"load average: {loads[0]} at the start, {loads[1]} at the end")
    print()
    head = f"| {'figure':32} | {'on the budget':>13} | {'unconstrained':>13} | {'goal':>8} |"
    print(head + "         |")
    print(f"|{'-' * 34}|{'-' * 14}:|{'-' * 14}:|{'-' * 10}|---------|")
    met = 0
    for key, (label, goal, check) in ROWS.items():
        mine, theirs = figure(budget, key), figure(free, key)
        verdict = ""
        if check is not None:
            ok = mine is not None and bool(check(mine))
            met += ok
            verdict = "met" if ok else "NOT met"
        print(f"| {label:32} | {shown(mine):>13} | {shown(theirs):>13} | {goal:>8} | {verdict:7} |")
    print()
    for run in runs:
        f, played = run.figures, run.played
        assert played is not None
        rate = len(played.gestures) / max(played.ended - played.started, 1e-9)
        print(
            f"{run.label}: {len(played.gestures)} gestures ({rate:.1f}/s) {f['kinds']}; "
            f"{played.late} late (the last not yet shown), {played.unseen} never shown; "
            f"{len(run.listener.ended)} streams ended by the hub while it played; "
            f"{len(f['sound'])} sounds and {len(f['phone'])} phone states timed "
            f"({f['no_sound']} sounds and {f['no_state']} states not found); {f['pings']} "
            f"watchdog pings; throttled in {f['throttled']} of {f['periods']} periods; "
            f"{f['frames']} LED frames at the box; {f['mqtt']} MQTT messages; "
            f"{f['start_cpu_s']:.2f} s of CPU to its first answer (the start measured alone)"
        )
    goals = sum(check is not None for _, _, check in ROWS.values())
    print()
    print(f"goals on the budget: {met} of {goals} met")
    if args.threads:
        print_threads(runs)
        print_tails(runs)


def print_tails(runs: list[HubRun]) -> None:
    """``--threads``: p99 to the sound port and to the phones by gesture kind, and the
    longest stalls with the gesture before each (where the budget bites)."""
    print()
    print("p99 by gesture kind (ms): sound / phone")
    kinds = sorted(set(runs[0].figures.get("phone_kinds", [])))
    print(f"| {'kind':10} | " + " | ".join(f"{run.label:>15}" for run in runs) + " |")
    for kind in kinds:
        cells = []
        for run in runs:
            f = run.figures
            sound = [v for v, k in zip(f["sound"], f["sound_kinds"], strict=True) if k == kind]
            phone = [v for v, k in zip(f["phone"], f["phone_kinds"], strict=True) if k == kind]
            cells.append(f"{shown(table.p(sound, 99))} / {shown(table.p(phone, 99))}")
        print(f"| {kind:10} | " + " | ".join(f"{c:>15}" for c in cells) + " |")
    for run in runs:
        worst = run.figures.get("worst_stalls") or []
        said = "; ".join(
            f"{ms:.1f} ms, {after:.0f} ms after a {kind} ({at:.1f} s in)"
            for ms, kind, after, at in worst
        )
        print(f"{run.label}: longest stalls: {said or '-'}")


def print_topics(rig: Rig, runs: list[HubRun]) -> None:
    """``--threads``: the MQTT messages the subscriber heard per gesture, by topic."""
    for run in runs:
        assert run.played is not None
        prefix, counts = f"mtrain/{run.label}/", dict[str, int]()
        for topic, _, _ in rig.listener.messages:
            if topic.startswith(prefix):
                parts = topic[len(prefix) :].split("/")
                kind = f"{parts[0]}/{parts[-1]}" if len(parts) > 1 else parts[0]
                counts[kind] = counts.get(kind, 0) + 1
        gestures = max(len(run.played.gestures), 1)
        shown = ", ".join(f"{k} {n / gestures:.2f}" for k, n in sorted(counts.items()))
        print(f"{run.label}: MQTT messages per gesture: {shown}")


def print_threads(runs: list[HubRun]) -> None:
    """``--threads``: each thread's CPU per gesture while the table played."""
    print()
    print("CPU per gesture by thread (ms; /proc ticks of 10 ms, names set by --hub):")
    names = sorted(
        {name for run in runs for name in run.figures["threads"]},
        key=lambda name: -runs[-1].figures["threads"].get(name, 0.0),
    )
    print(f"| {'thread':16} | " + " | ".join(f"{run.label:>8}" for run in runs) + " |")
    print(f"|{'-' * 18}|" + "|".join("-" * 9 + ":" for _ in runs) + "|")
    for name in [*names, "all"]:
        cells = []
        for run in runs:
            assert run.played is not None
            threads = run.figures["threads"]
            used = sum(threads.values()) if name == "all" else threads.get(name, 0.0)
            cells.append(f"{used / max(len(run.played.gestures), 1) * 1000:8.2f}")
        print(f"| {name:16} | " + " | ".join(cells) + " |")


def failed_goals(figures: dict[str, Any]) -> list[str]:
    """The goals the budget hub did not meet (their rows' labels)."""
    failed = []
    for key, (label, _, check) in ROWS.items():
        value = figure(figures, key)
        if check is not None and (value is None or not check(value)):
            failed.append(label)
    return failed


CGROUP_FILES = (
    ("memory", "memory.stat"),
    ("memory", "memory.max_usage_in_bytes"),
    ("memory", "memory.failcnt"),
    ("memory", "memory.oom_control"),
    ("cpu", "cpu.stat"),
    ("cpuacct", "cpuacct.usage"),
)


def keep_evidence(runs: list[HubRun], folder: Path, why: str) -> None:
    """What a failed run leaves to explain it, for each hub: its log, its own event log
    (``GET /api/log``: the gestures, sounds and turns it saw) and snapshot, its
    groups' memory and CPU statistics, the driver's gestures (each with whether the
    control phone saw it) and the loop's watchdog gaps over 20 ms."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "why.txt").write_text(why + "\n")
    for run in runs:
        name = run.label
        with contextlib.suppress(OSError):
            (folder / f"{name}-hub.log").write_bytes((run.work / "table.log").read_bytes())
        for what, path in (("log", "/api/log?limit=2000"), ("state", "/api/state")):
            try:
                answer = request(run.port, "GET", path).decode()
            except OSError as exc:
                answer = json.dumps({"unanswered": str(exc)})
            (folder / f"{name}-{what}.json").write_text(answer)
        stats = []
        for controller, knob in CGROUP_FILES:
            with contextlib.suppress(OSError):
                text = (run.group.dirs[controller] / knob).read_text()
                stats.append(f"== {controller}/{knob}\n{text}")
        (folder / f"{name}-cgroup.txt").write_text("\n".join(stats))
        (folder / f"{name}-gestures.json").write_text(json.dumps(_gestures(run), indent=1))
        figures = {k: v for k, v in run.figures.items() if not isinstance(v, list)}
        (folder / f"{name}-figures.json").write_text(json.dumps(figures, indent=1, default=str))
    print(f"kept the evidence of this run in {folder}")


def _gestures(run: HubRun) -> dict[str, Any]:
    """The driver's gestures (kind, slot, sound, edge stamp in ns, shown or not) and the
    watchdog's gaps over 20 ms (ns stamps, ms long)."""
    played = run.played
    if played is None or run.box is None:
        return {}
    edges, _ = run.box.stamps()
    unseen = dict(played.unseen_at)
    listed = [
        {
            "kind": g.kind,
            "slot": g.slot,
            "sound": g.sound,
            "edge_ns": edges[g.edge] if g.edge < len(edges) else None,
            "shown": i not in unseen,
            "phone_showed": unseen.get(i),
        }
        for i, g in enumerate(played.gestures)
    ]
    pings = run.pings.watchdog if run.pings else []
    gaps = [
        {"after_ns": a, "ms": (b - a) / 1e6}
        for a, b in zip(pings, pings[1:], strict=False)
        if b - a > 20_000_000
    ]
    which = {id(phone.sock): f"phone {i}" for i, phone in enumerate(run.phones)}
    ended = [
        {"at_ns": stamp, "what": which.get(id(source), repr(source))}
        for stamp, source in run.listener.ended
    ]
    return {
        "gestures": listed,
        "late": played.late,
        "unseen": played.unseen,
        "gaps": gaps,
        "streams_ended": ended,  # phone 0 is the one the driver looks at
    }


@dataclass
class Rig:
    """What both hubs share: the work folder, the broker and its subscriber."""

    work: Path
    env: dict[str, str]
    broker: Any = None
    listener: Any = None

    def messages(self, hub_id: str) -> int:
        """MQTT messages the subscriber heard from ``hub_id``."""
        prefix = f"mtrain/{hub_id}/"
        return sum(1 for topic, _, _ in self.listener.messages if topic.startswith(prefix))


def set_up(stack: contextlib.ExitStack, args: argparse.Namespace) -> tuple[Rig, list[HubRun]]:
    """The broker and its subscriber, the groups, both hubs started and their tables set."""
    from tests.mqtt_helpers import Listener, Mosquitto

    work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="pi-budget-")))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if args.threads:
        env["PI_BUDGET_THREAD_NAMES"] = "1"
    if args.paced:
        env["PI_BUDGET_PACED"] = "1"
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    rig = Rig(work, env)
    rig.broker = Mosquitto(work / "mosquitto")
    stack.callback(rig.broker.stop)
    rig.listener = Listener(rig.broker.port, ("mtrain/#",))
    stack.callback(rig.listener.close)
    rig.listener.wait_connected()
    period = args.period_ms * 1000
    runs = []
    for label, quota, memory in (("budget", period // SHARE, MEMORY_MB), ("free", None, None)):
        group = cgroups.Cgroup(label, CPU_SHARES, period, quota, memory)
        stack.callback(group.remove)
        runs.append(HubRun(label, group, work / label, rig.broker.url, env))
        stack.callback(runs[-1].listener.stop)
    for run in runs:
        run.prepare(stack)
    runs[1].warm_up(stack)
    for run in runs:
        run.measure_start(stack)
    for run in runs:
        run.start(stack, 2000 * args.probe_ms)
    for run in runs:
        run.set_table()
    return rig, runs


def run_all(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """Set up, measure, report and clean up; the groups made and the processes started."""
    with contextlib.ExitStack() as stack:
        rig, runs = set_up(stack, args)
        groups = [str(path) for run in runs for path in run.group.dirs.values()]
        started = [str(run.proc.pid) for run in runs if run.proc] + [
            str(run.box.proc.pid) for run in runs if run.box
        ]
        started.append(str(rig.broker.proc.pid))
        idle_cpu(runs)
        loads = [_load()]
        play_both(runs, args.seconds)
        loads.append(_load())
        time.sleep(0.5)  # the last states reach every phone
        for run in runs:
            read_figures(run, rig.messages(run.label), args.probe_ms)
        report(runs, args, loads)
        failed = failed_goals(runs[0].figures)
        unseen = sum(run.played.unseen + len(run.listener.ended) for run in runs if run.played)
        if failed or unseen or args.keep:
            why = f"goals not met: {', '.join(failed) or 'none'}; gestures never shown: {unseen}"
            stamp = time.strftime("%Y%m%d-%H%M%S")
            keep_evidence(runs, Path(args.keep_dir) / stamp, why)
        if args.threads:
            print_topics(rig, runs)
    return groups, started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="of gestures (120)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_S:g} s of gestures")
    parser.add_argument(
        "--period-ms", type=int, default=10, help="cpu.cfs_period_us in ms (10; the kernel's: 100)"
    )
    parser.add_argument(
        "--probe-ms", type=int, default=10, help="watchdog pings every N ms (10; 0: none)"
    )
    parser.add_argument(
        "--threads", action="store_true", help="also print each thread's CPU per gesture"
    )
    parser.add_argument(
        "--paced",
        action="store_true",
        help="ALSA null paced like a sound card (default: it takes each sound at once)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the evidence even when every goal is met"
    )
    parser.add_argument(
        "--keep-dir",
        default=os.path.join(ROOT, "test-artifacts", "pi-budget"),
        help="where a run that misses a goal (or never shows a gesture) keeps its evidence",
    )
    parser.add_argument("--box", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.box:
        table.box_child(args.box)
        return 0
    if args.quick:
        args.seconds = QUICK_S
    problem = cgroups.problem()
    if problem is not None:
        print(f"pi_budget: skipped: {problem}")
        return 0
    # Ctrl-C (even when started in the background, which ignores it) and SIGTERM unwind
    # through the cleanup.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.setswitchinterval(0.0005)  # the bench's threads stamp what they read promptly
    os.nice(NICE)
    for path in cgroups.remove_stale():
        print(f"removed a group an earlier run left: {path}")
    groups, started = run_all(args)
    left = [group for group in groups if Path(group).exists()]
    running = [pid for pid in started if Path(f"/proc/{pid}").exists()]
    print(f"cleanup: cgroups removed: {' '.join(groups)}; left: {' '.join(left) or 'none'}")
    alive = " ".join(running) or "none"
    print(f"cleanup: processes stopped: {' '.join(started)}; running: {alive}")
    return 0


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())

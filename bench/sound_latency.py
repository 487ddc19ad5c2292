"""Press-to-sound latency: a button edge to the sound's first PCM frame handed to ALSA.

Ours: a gpiozero ``MockFactory`` pin is driven low under a ``Button(pin, pull_up=True)``;
its ``when_pressed`` callback calls :meth:`hub.io.alsa_player.AlsaPlayer.play` directly
(the hub loop is not in this path yet: the callback stands in for the loop's effect
dispatch). The clock stops in the player's ``on_sound_start`` hook, which the writer
thread calls right before it writes the sound's first frames to the ALSA device.

Ours through the whole hub, too: a release edge on the sim backend's mock pin completes
a tap, the hub loop applies it in the pure core, the ``turn`` effect is dispatched to
the real ALSA player, and the clock stops at its first frame (debounce set to 1 ms so
the presses can follow each other quickly; the path is the same).

Baseline, in the same run on the same device (its runs alternate in batches with the
presses through the hub, so both meet the same load): what a hobbyist writes, spawning aplay
in the gpiozero callback, ``subprocess.run(["aplay", "-q", "-D", "null", wav10ms])``,
timed from the edge until aplay exits having played a 10 ms WAV.

The floor, in the same batches: a bare hand-off from one thread to another
(``queue.Queue``, as in ``bench/press_to_effect.py``). The hub decides every sound on
its loop thread (callbacks only post: docs/architecture.md), so a press reaches the device after
at least one such hand-off: aplay's p99 over the floor's p99 is the most any design
with that hand-off can reach on this machine, and the script prints it beside the goal.

Speech beside a chime, in the same run, through the same hub: presses that pass the turn
with the voice off (the ``turn`` chime's first frame) alternate in batches of 20 with
presses with the voice on ``turns`` (the first frame of "Bob's turn", rendered ahead by
espeak-ng and said in the chime's place); p50 and p99 of each, and speech over chime
(goal: within 1.2x at p99).

Both play on ALSA's ``null`` device, which takes frames at once, so the figures are
the software's share of the latency, not the sound card's buffer. This machine is
noisy: read the ratios, not the absolute times.

    python bench/sound_latency.py [--presses 1000] [--baseline-runs 100] [--device null]
"""

from __future__ import annotations

import argparse
import array
import itertools
import math
import subprocess
import sys
import tempfile
import threading
import time
import wave
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero import Button, Device  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from bench.benchstats import floor_handoffs, percentile  # noqa: E402
from hub.io.alsa_player import AlsaPlayer  # noqa: E402

PIN = 17


def measure_ours(
    button: Button, device: str, presses: int
) -> tuple[list[float], list[float], float]:
    """Per press, seconds: edge → first frame to ALSA, and how long play() held the caller.

    Then the writer thread's idle CPU share.
    """
    first_frame = threading.Event()
    stamps: dict[str, float] = {}

    def sound_started(name: str) -> None:
        stamps["frame"] = time.perf_counter()
        first_frame.set()

    player = AlsaPlayer(device=device, on_sound_start=sound_started)
    if not player.wait_ready() or not player.status()["available"]:
        sys.exit(f"ALSA device {device!r} is not usable: {player.status()['reason']}")

    def pressed() -> None:
        entered = time.perf_counter()
        player.play("turn")
        stamps["returned"] = time.perf_counter() - entered

    button.when_pressed = pressed
    latencies, held = [], []
    try:
        for _ in range(presses):
            first_frame.clear()
            edge = time.perf_counter()
            button.pin.drive_low()
            if not first_frame.wait(5):
                sys.exit("the sound never reached the device")
            latencies.append(stamps["frame"] - edge)
            held.append(stamps["returned"])
            button.pin.drive_high()
            player.wait_idle()
        idle_cpu = idle_cpu_share(2.0)
    finally:
        button.when_pressed = None
        player.close()
    return latencies, held, idle_cpu


def hub_presses(device: str) -> Iterator[float]:
    """Seconds per press, for as long as asked: a release edge through the whole hub
    to the first PCM frame (closing the generator stops the hub)."""
    from hub.app import Hub
    from hub.runtime.config import load
    from scorer.setup import check_setup

    first_frame = threading.Event()
    stamps: dict[str, float] = {}

    def sound_started(name: str) -> None:
        stamps["frame"] = time.perf_counter()
        first_frame.set()

    with tempfile.TemporaryDirectory() as state:
        config = load(
            None,
            {
                "hub": {"backend": "sim", "state_dir": state},
                "gestures": {"bounce_ms": 1},
                "sound": {"device": device, "volume": 1.0, "voice": "off"},
            },
        )
        hub = Hub(
            config, pin_factory=MockFactory(), sound_options={"on_sound_start": sound_started}
        )
        hub.start()
        hub.games.new_game(check_setup({"players": ["Ann", "Bob"], "first": 1}))
        wait_idle = hub.sound.wait_idle  # type: ignore[attr-defined]
        wait_idle()
        try:
            for i in itertools.count():
                slot = 1 + i % 2
                hub.sim.button(slot, True)
                time.sleep(0.002)
                first_frame.clear()
                edge = time.perf_counter()
                hub.sim.button(slot, False)
                if not first_frame.wait(5):
                    sys.exit("the sound never reached the device through the hub")
                yield stamps["frame"] - edge
                wait_idle()
        finally:
            hub.stop()


BATCH = 20  # presses in a row with the voice off, then on: the two meet the same load


def speech_beside_chime(
    device: str, presses: int, batches: int | None = None
) -> tuple[list[float], list[float]]:
    """Through one hub, seconds per press from the release edge to the first frame:
    (chime presses with the voice off, speech presses with the voice on ``turns``),
    alternating in ``batches`` (of :data:`BATCH` presses by default) so both meet the
    same load: a noisy second of this shared machine falls on both, not on one."""
    batches = batches or max(1, presses // BATCH)
    from hub.app import Hub
    from hub.runtime.config import load
    from scorer.setup import check_setup

    first_frame = threading.Event()
    stamps: dict[str, object] = {}

    def sound_started(name: str) -> None:
        stamps["frame"], stamps["name"] = time.perf_counter(), name
        first_frame.set()

    chime: list[float] = []
    speech: list[float] = []
    with tempfile.TemporaryDirectory() as state:
        config = load(
            None,
            {
                "hub": {"backend": "sim", "state_dir": state},
                "gestures": {"bounce_ms": 1},
                "sound": {"device": device, "volume": 1.0, "voice": "turns"},
            },
        )
        hub = Hub(
            config, pin_factory=MockFactory(), sound_options={"on_sound_start": sound_started}
        )
        hub.start()
        try:
            hub.games.new_game(check_setup({"players": ["Ann", "Bob"], "first": 1}))
            if not hub.voice.wait_ready(120):
                sys.exit("the voice did not render the game's sentences")
            if hub.voice.problem is not None:
                sys.exit(f"the voice cannot speak: {hub.voice.problem}")
            wait_idle = hub.sound.wait_idle  # type: ignore[attr-defined]
            wait_idle()
            slot = 1
            for b in range(2 * batches):
                spoken = b % 2 == 1
                hub.apply_settings({"voice": "turns" if spoken else "off"})
                into, want = (speech, "say") if spoken else (chime, "turn")
                for _ in range(presses * (b // 2 + 1) // batches - len(into)):
                    hub.sim.button(slot, True)
                    time.sleep(0.002)
                    first_frame.clear()
                    edge = time.perf_counter()
                    hub.sim.button(slot, False)
                    if not first_frame.wait(5):
                        sys.exit("nothing reached the device through the hub")
                    if stamps["name"] != want:
                        sys.exit(f"expected {want!r} first, got {stamps['name']!r}")
                    into.append(float(stamps["frame"]) - edge)  # type: ignore[arg-type]
                    wait_idle()
                    slot = 3 - slot
        finally:
            hub.stop()
    return chime, speech


def idle_cpu_share(seconds: float) -> float:
    """Share of one core the sound writer thread used while the player sat idle."""
    (writer,) = [t for t in threading.enumerate() if t.name == "sound-writer"]
    clock = time.pthread_getcpuclockid(writer.ident)
    before, start = time.clock_gettime(clock), time.perf_counter()
    time.sleep(seconds)
    return (time.clock_gettime(clock) - before) / (time.perf_counter() - start)


def aplay_runs(button: Button, device: str, wav: Path) -> Iterator[float]:
    """Edge → aplay exited, seconds, with aplay spawned in the gpiozero callback."""
    command = ["aplay", "-q", "-D", device, str(wav)]
    button.when_pressed = lambda: subprocess.run(command, check=True)
    try:
        while True:
            edge = time.perf_counter()
            button.pin.drive_low()  # the callback runs (and blocks) inside this call
            yield time.perf_counter() - edge
            button.pin.drive_high()
    finally:
        button.when_pressed = None


def hub_beside_aplay(
    button: Button, device: str, wav: Path, presses: int, runs: int, batches: int = 10
) -> tuple[list[float], list[float], list[float]]:
    """Through-the-hub presses, aplay runs and floor hand-offs in alternating batches,
    so all three meet the same load on a shared machine; (hub, aplay, floor) seconds."""
    hub, aplay, floor = hub_presses(device), aplay_runs(button, device, wav), floor_handoffs()
    ours: list[float] = []
    theirs: list[float] = []
    bare: list[float] = []
    try:
        for b in range(batches):
            theirs += itertools.islice(aplay, runs * (b + 1) // batches - len(theirs))
            ours += itertools.islice(hub, presses * (b + 1) // batches - len(ours))
            bare += (
                us / 1e6 for us in itertools.islice(floor, presses * (b + 1) // batches - len(bare))
            )
    finally:
        hub.close()
        aplay.close()
        floor.close()
    return ours, theirs, bare


def write_10ms_wav(path: Path) -> None:
    """A 10 ms 880 Hz blip, 22050 Hz 16-bit mono, like the hub's own sounds."""
    n = round(0.01 * 22050)
    blip = array.array(
        "h",
        (
            round(8000 * math.sin(2 * math.pi * 880 * i / 22050) * math.sin(math.pi * i / n))
            for i in range(n)
        ),
    )
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(22050)
        out.writeframes(blip.tobytes())


def print_table(
    ours: list[float],
    held: list[float],
    baseline: list[float],
    through_hub: list[float],
    floor: list[float],
) -> None:
    rows = [
        (
            "floor: a bare hand-off between threads, median",
            percentile(floor, 50),
            percentile(baseline, 50),
        ),
        (
            "floor: a bare hand-off between threads, p99",
            percentile(floor, 99),
            percentile(baseline, 99),
        ),
        (
            "edge -> hub -> first PCM frame, median",
            percentile(through_hub, 50),
            percentile(baseline, 50),
        ),
        (
            "edge -> hub -> first PCM frame, p99",
            percentile(through_hub, 99),
            percentile(baseline, 99),
        ),
        (
            "edge -> first PCM frame to ALSA, median",
            percentile(ours, 50),
            percentile(baseline, 50),
        ),
        (
            "edge -> first PCM frame to ALSA, p99",
            percentile(ours, 99),
            percentile(baseline, 99),
        ),
        ("caller thread blocked, median", percentile(held, 50), percentile(baseline, 50)),
        ("caller thread blocked, p99", percentile(held, 99), percentile(baseline, 99)),
    ]
    print(f"| {'figure':48} | {'ours':>10} | {'baseline':>10} | {'ratio':>8} |")
    print(f"|{'-' * 50}|{'-' * 12}|{'-' * 12}|{'-' * 10}|")
    for label, mine, theirs in rows:
        print(f"| {label:48} | {fmt(mine):>10} | {fmt(theirs):>10} | {theirs / mine:7.0f}x |")


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def print_speech(chime: list[float], speech: list[float]) -> float:
    """The speech-beside-chime table; returns speech p99 over chime p99."""
    print(f"| {'press -> hub -> first frame':48} | {'chime':>10} | {'speech':>10} | {'ratio':>8} |")
    print(f"|{'-' * 50}|{'-' * 12}|{'-' * 12}|{'-' * 10}|")
    for q in (50, 99):
        mine, theirs = percentile(chime, q), percentile(speech, q)
        label = f"{'median' if q == 50 else 'p99'} ({len(chime)} + {len(speech)} presses)"
        print(f"| {label:48} | {fmt(mine):>10} | {fmt(theirs):>10} | {theirs / mine:7.2f}x |")
    return percentile(speech, 99) / percentile(chime, 99)


def main() -> int:
    """Run both measurements on the same device and print the table."""
    parser = argparse.ArgumentParser(description="press-to-sound latency: ours vs spawning aplay")
    parser.add_argument("--presses", type=int, default=1000)
    parser.add_argument(
        "--speech-presses", type=int, default=1000, help="chime and speech presses each"
    )
    parser.add_argument("--speech-only", action="store_true", help="only speech beside chime")
    parser.add_argument("--baseline-runs", type=int, default=100)
    parser.add_argument("--device", default="null")
    args = parser.parse_args()
    Device.pin_factory = MockFactory()
    chime, speech = speech_beside_chime(args.device, args.speech_presses)
    print(f"ALSA device {args.device!r}; speech beside a chime, through one hub\n")
    ratio = print_speech(chime, speech)
    print(
        f"\ngoal speech p99 within 1.2x of the chime's: {'met' if ratio <= 1.2 else 'NOT met'} "
        f"({ratio:.2f}x)\n"
    )
    if args.speech_only:
        return 0
    button = Button(PIN, pull_up=True)
    with tempfile.TemporaryDirectory() as scratch:
        wav = Path(scratch) / "blip10ms.wav"
        write_10ms_wav(wav)
        ours, held, idle_cpu = measure_ours(button, args.device, args.presses)
        through_hub, baseline, floor = hub_beside_aplay(
            button, args.device, wav, args.presses, args.baseline_runs
        )
    button.close()
    print(
        f"ALSA device {args.device!r}; ours: {args.presses} presses of 'turn' (AlsaPlayer.play "
        f"from the gpiozero callback); baseline: {args.baseline_runs} runs of aplay -D "
        f"{args.device} on a 10 ms WAV spawned in the callback\n"
    )
    print_table(ours, held, baseline, through_hub, floor)
    print(f"\nsound writer thread CPU while idle (2 s): {idle_cpu * 100:.3f} % of one core")
    ratio = percentile(baseline, 99) / percentile(through_hub, 99)
    print(
        f"goal edge -> hub -> first PCM frame p99 at least 40x lower than aplay: "
        f"{'met' if ratio >= 40 else 'NOT met'} ({ratio:.0f}x); the most a design with "
        f"one hand-off between threads can reach here: "
        f"{percentile(baseline, 99) / percentile(floor, 99):.0f}x (aplay p99 / floor p99)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

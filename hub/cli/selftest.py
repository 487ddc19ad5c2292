"""``mtrain-hub selftest``: bring-up in the terminal, and ``--check`` with nobody there.

Without ``--check`` it opens the hub's inputs, LEDs and speaker itself (stop the hub
service first: the pins can have one owner), walks the person through every part
(:mod:`hub.selftest.walkthrough`) and prints the pass/fail table; with ``--check`` it runs the
checks of :mod:`hub.selftest.check`. Exit status 0 only when everything passed; 2 for
a config that does not load.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from hub.core.events import CENTRE
from hub.runtime.config import ConfigError, load
from hub.selftest.check import (
    FAIL,
    Check,
    check_broker,
    check_config,
    check_pin_map,
    check_pins_free,
    check_sound,
    check_state_dir,
    check_voice,
    report,
)
from hub.selftest.parts import speaking
from hub.selftest.steps import Step, Wiring, plan
from hub.selftest.walkthrough import Walkthrough, table

CONFIG_ERROR = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``selftest`` subcommand's options."""
    parser.add_argument(
        "--check",
        action="store_true",
        help="check config, pins, sound, serial link, broker and state "
        "folder without a person; exit 0 only if all pass",
    )
    parser.add_argument("--config", help="TOML config file (the hub's)")
    parser.add_argument("--backend", choices=("sim", "gpio", "serial"))
    parser.add_argument("--state-dir")
    parser.add_argument("--sound-device", help="ALSA device (default: the config's)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=20.0,
        help="seconds to wait for each press or marker (default 20)",
    )


def overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The flags laid over the config file."""
    hub: dict[str, Any] = {}
    if args.backend:
        hub["backend"] = args.backend
    if args.state_dir:
        hub["state_dir"] = args.state_dir
    sound = {"device": args.sound_device} if args.sound_device else {}
    return {"hub": hub, "sound": sound}


def run_checks(
    args: argparse.Namespace, factory: Any = None, open_player: Callable[[str], Any] | None = None
) -> list[Check]:
    """Every ``--check`` check, in order; a config that does not load stops the rest."""
    from hub.io.pinmap import resolve_backend

    config_check, config = check_config(args.config, overrides(args))
    if config is None:
        return [config_check]
    backend = resolve_backend(config["hub"]["backend"])
    checks = [config_check, check_pin_map(config, backend)]
    if backend != "serial" and factory is None:
        from hub.io.pins import NoPins, make_factory

        try:
            factory = make_factory(backend)
        except NoPins as exc:  # it names the cause: lgpio, the chip, the working directory
            checks.append(Check("pins free", FAIL, f"{backend}: {exc}"))
    if factory is not None or backend == "serial":
        checks.append(check_pins_free(config, backend, factory))
    checks.append(check_sound(config, open_player))
    checks.append(check_voice(config))
    checks.append(check_serial(config, backend))
    checks.append(check_broker(config))
    checks.append(check_state_dir(config))
    return checks


def check_serial(config: dict[str, Any], backend: str) -> Check:
    """The Pico answers hello with its firmware and protocol version."""
    from hub.selftest.serial_link import check_link

    return check_link(config, backend)


def say(step: Step, number: int, total: int) -> None:
    """Print a step's prompt, with the part and its pin."""
    print(f"[{number}/{total}] {step.part} ({step.pin}): {step.prompt}", flush=True)


def ask(step: Step) -> bool | None:
    """Ask the person about a light or a sound: True yes, False no, None skip."""
    while True:
        try:
            reply = input("    y = yes, n = no, s = skip: ").strip().lower()
        except EOFError:
            return None
        if reply in ("y", "yes", "n", "no", "s", "skip"):
            return None if reply.startswith("s") else reply.startswith("y")


def drive(
    walk: Walkthrough,
    timeout: float,
    say: Callable[[Step, int, int], None] = say,
    ask: Callable[[Step], bool | None] = ask,
) -> bool:
    """Take the person through every step; True when all passed."""
    total = len(walk.steps)
    while (step := walk.current()) is not None:
        index = len(walk.results)
        say(step, index + 1, total)
        if step.needs_answer:
            answer = ask(step)
            walk.skip() if answer is None else walk.answer(answer)
        elif not walk.wait_past(index, timeout):
            walk.timeout(timeout)
        result = walk.results[index]
        print(f"    {'PASS' if result.passed else 'FAIL'}: {result.detail}", flush=True)
    return walk.passed()


def levels(stuck: list[tuple[str, int]] | None, wiring: Wiring) -> str:
    """The up-front check of every input's level, before the first step: a button that
    reads pressed or a sensor that reads a marker now fails at once, not after a wait."""
    if stuck is None:
        return "Input levels: not read up front (the Pico reads the inputs)."
    if not stuck:
        return "Input levels: every button released, no marker on."
    lines = ["Input levels: these read active before anything was pressed or put on:"]
    for kind, slot in stuck:
        name = "centre button" if slot == CENTRE else f"slot {slot} {kind}"
        key = "centre" if slot == CENTRE else f"{kind}s"
        what = (
            "pressed (stuck, or shorted to ground)"
            if kind == "button"
            else ("a marker (one left on: take it off; or a stuck sensor)")
        )
        lines.append(f"  {name} ({wiring.input_pin(key, slot)}): reads {what}; its steps fail")
    return "\n".join(lines)


def walk_through(
    config: dict[str, Any],
    timeout: float,
    open_parts: Any = None,
    say: Callable[[Step, int, int], None] = say,
    ask: Callable[[Step], bool | None] = ask,
) -> int:
    """Open the hub's parts (``open_parts``: tests hand in fakes), walk the person
    through them with ``say`` and ``ask``, print the table; 0 when all passed."""
    from hub.wire.i18n import text  # the voice's test sentence: one home for it

    if open_parts is None:
        from hub.selftest.parts import open_parts
    with open_parts(config) as parts:
        wiring = Wiring(parts.backend, config["pins"], config["sound"]["device"], parts.pixels)
        stuck = parts.active_inputs()  # read before anyone presses anything
        sound = config["sound"]
        voice = bool(sound["enabled"]) and sound["voice"] != "off" and parts.say is not None
        steps = plan(wiring, centre=parts.centre, lights=parts.ring, voice=voice)
        play = speaking(parts.play, parts.say, sound["voice_language"], text)
        walk = Walkthrough(steps, parts.light, play, stuck or ())
        parts.listen(walk.feed)
        print(
            f"Self-test on the {parts.backend} backend: {len(walk.steps)} steps. "
            f"Each press or marker waits {timeout:g} s.",
            flush=True,
        )
        print(levels(stuck, wiring), flush=True)
        if not parts.ring:
            print(
                "No Pico drives a ring here ([serial] port unset, backend not serial): "
                "the lights are not asked about.",
                flush=True,
            )
        ok = drive(walk, timeout, say, ask)
    print()
    print(table(walk.results))
    return 0 if ok else 1


def command(args: argparse.Namespace) -> int:
    """Run ``mtrain-hub selftest``."""
    if args.check:
        checks = run_checks(args)
        print(report(checks))
        if checks[0].status == FAIL:
            return CONFIG_ERROR
        return 1 if any(c.status == FAIL for c in checks) else 0
    try:
        config = load(args.config, overrides(args))
    except ConfigError as exc:
        print(f"mtrain-hub selftest: config error: {exc}", file=sys.stderr)
        return CONFIG_ERROR
    return walk_through(config, args.timeout)

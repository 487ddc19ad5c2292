"""``mtrain-hub fake-mcu``: the fake microcontroller (:mod:`firmware_bridge.fake_mcu`)
driven by commands on standard input, its LED frames printed."""

from __future__ import annotations

import argparse
import sys
import threading

from firmware_bridge.fake_mcu import FakeMcu, Pixels
from firmware_bridge.firmware import proto

HELP = f"""commands (one a line): press SLOT HOLD_MS | centre HOLD_MS | chord SLOT HOLD_MS |
marker SLOT 0|1 | unplug | replug | update | garbage N | reset | crash | stall SECONDS
(SLOT is 1-{proto.SLOTS}; chord: the slot and the centre held together, a claim's proof)"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``fake-mcu [--link PATH] [--pixels N]``."""
    parser.description = (
        "Run the hub box's firmware under CPython on a pty. Prints the "
        "pty's path first, then 'leds' and one colour per pixel for "
        "every LED frame. " + HELP
    )
    parser.add_argument(
        "--link", help="the stable path to the pty (a symlink; default: a new temporary directory)"
    )
    parser.add_argument("--pixels", type=int, default=24, help="LEDs on the ring")


def leds_line(pixels: Pixels) -> str:
    """``leds`` and each pixel's colour as 6 hex digits."""
    return "leds " + " ".join(f"{p[0]:02x}{p[1]:02x}{p[2]:02x}" for p in pixels)


def _number(word: str, low: float, high: float, what: str) -> float:
    try:
        value = float(word)
    except ValueError:
        raise ValueError(f"{what}: expected a number, got {word!r}") from None
    if not low <= value <= high:
        raise ValueError(f"{what}: {word} is out of range ({low:g} to {high:g})")
    return value


def execute(mcu: FakeMcu, line: str) -> None:
    """Carry out one command line; raise ValueError naming what is wrong."""
    words = line.split()
    if not words:
        return
    name, args = words[0], words[1:]
    arity = {"press": 2, "chord": 2, "centre": 1, "marker": 2, "garbage": 1, "stall": 1}
    arity.update(dict.fromkeys(("unplug", "replug", "update", "reset", "crash"), 0))
    if name not in arity:
        raise ValueError(f"unknown command {name!r}; {HELP}")
    if len(args) != arity[name]:
        raise ValueError(f"{name}: expected {arity[name]} argument(s); {HELP}")
    if name == "press":
        slot = int(_number(args[0], 1, proto.SLOTS, "SLOT"))
        mcu.press(slot, _number(args[1], 0, 60_000, "HOLD_MS"))
    elif name == "chord":
        slot = int(_number(args[0], 1, proto.SLOTS, "SLOT"))
        mcu.chord(slot, _number(args[1], 0, 60_000, "HOLD_MS"))
    elif name == "centre":
        mcu.press(0, _number(args[0], 0, 60_000, "HOLD_MS"))
    elif name == "marker":
        slot = int(_number(args[0], 1, proto.SLOTS, "SLOT"))
        if args[1] not in ("0", "1"):
            raise ValueError(f"marker: expected 0 or 1, got {args[1]!r}")
        mcu.marker(slot, args[1] == "1")
    elif name == "garbage":
        mcu.garbage(int(_number(args[0], 0, 100_000, "N")))
    elif name == "stall":
        mcu.stall(_number(args[0], 0, 3600, "SECONDS"))
    elif name == "update":
        mcu.update_mode()
    else:
        getattr(mcu, name)()


def command(args: argparse.Namespace) -> int:
    """Run the fake microcontroller until standard input ends."""
    lock = threading.Lock()

    def show(pixels: Pixels) -> None:
        with lock:
            print(leds_line(pixels), flush=True)

    if not 1 <= args.pixels <= (proto.MAX_PAYLOAD - 1) // 4:
        print(f"fake-mcu: --pixels: expected 1 to {(proto.MAX_PAYLOAD - 1) // 4}", file=sys.stderr)
        return 2
    mcu = FakeMcu(args.link, on_leds=show, pixels=args.pixels)
    try:
        with lock:
            print(mcu.path, flush=True)
        for line in sys.stdin:
            try:
                execute(mcu, line)
            except ValueError as exc:
                print(f"fake-mcu: {exc}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        mcu.close()
    return 0

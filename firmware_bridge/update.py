"""``mtrain-hub firmware update``: copy this release's firmware to the hub box over its
USB cable, in every build, without opening the box.

1. The hub box is asked for its update mode with an ``UPDATE`` frame
   (hardware/PROTOCOL.md): the firmware leaves a mark in its flash, answers ``ERROR``
   code 5 (``E_UPDATING``) and restarts; ``main.py`` finds the mark, removes it and
   returns to MicroPython's REPL instead of running the program.
2. ``mpremote`` (MicroPython's own tool) copies the files (``main.py`` last) and resets
   the box; without the mark the program runs again.
3. The box is greeted (``HELLO``) and must answer with its ``IDENTIFY``.

A box in its REPL already (the centre-button escape) is updated the same way: it does not
answer the ``UPDATE`` frame, and ``mpremote`` finds its REPL. The port is opened without
pyserial (a raw tty), so the updater runs beside nothing of the hub's: stop the service
first, or it holds the port.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import select
import shutil
import subprocess
import sys
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path

from firmware_bridge.firmware import proto

FIRMWARE = Path(__file__).resolve().parent / "firmware"
FILES = ("proto.py", "lights.py", "board.py", "mcu.py")  # then main.py, last
ANSWER_S = 3.0  # the box answers UPDATE (or HELLO) within this
BACK_S = 15.0  # the box restarts and its port comes back within this
TRIES_S = 30.0  # mpremote is tried again until this has passed


class UpdateFailed(RuntimeError):
    """The update could not be done; the message says why and what to do."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``firmware update [--port PATH] [--files DIR]``."""
    parser.description = (
        "Copy the firmware to the hub box over USB (no opening the box): the box is asked "
        "for its update mode, mpremote copies the files and resets it. Stop the hub "
        "service first (sudo systemctl stop mtrain-hub): it holds the port."
    )
    parser.add_argument("action", choices=("update",))
    parser.add_argument("--port", help="the box's serial port (default: found by its USB id)")
    parser.add_argument(
        "--files", default=str(FIRMWARE), help="the firmware's folder (default: this release's)"
    )


def command(args: argparse.Namespace) -> int:
    """Run the update; 0 when the box answers with its new firmware."""
    try:
        name = update(args.port or _find_port(), Path(args.files), say=_say)
    except UpdateFailed as exc:
        print(f"firmware update failed: {exc}", file=sys.stderr, flush=True)
        return 1
    _say(f"done: the hub box answers as {name}")
    return 0


def _say(text: str) -> None:
    print(text, flush=True)


def _find_port() -> str:
    from firmware_bridge.link import find_port  # pyserial's port list, only here

    port = find_port()
    if port is None:
        raise UpdateFailed("no hub box found by its USB id 2E8A:0005: give --port PATH")
    return port


def update(port: str, files: Path, say: Callable[[str], None] = _say) -> str:
    """Update the box on ``port`` with the firmware in ``files``; its name, as it answers."""
    mpremote = mpremote_command()
    missing = [n for n in (*FILES, "main.py") if not (files / n).is_file()]
    if missing:
        raise UpdateFailed(f"{files} lacks {', '.join(missing)}")
    if ask_update_mode(port):
        say(f"the hub box on {port} restarts into its update mode")
    else:
        say(f"the hub box on {port} did not answer UPDATE: trying its REPL (update mode?)")
    wait_for(port)
    copy = ["cp", *(str(files / n) for n in FILES), ":", "+", "cp", str(files / "main.py")]
    run_mpremote(mpremote, port, [*copy, ":main.py", "+", "reset"])
    say(f"copied {len(FILES) + 1} files; the box restarts")
    wait_for(port)
    return greet(port)


def mpremote_command() -> list[str]:
    """How to run mpremote: this interpreter's module, else the one on the PATH."""
    if importlib.util.find_spec("mpremote") is not None:
        return [sys.executable, "-m", "mpremote"]
    found = shutil.which("mpremote")
    if found is None:
        raise UpdateFailed("mpremote is not installed: pip install mpremote")
    return [found]


def _open(port: str) -> int:
    try:
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        raise UpdateFailed(f"cannot open {port}: {exc.strerror} (is the hub running?)") from None
    tty.setraw(fd)
    return fd


def _frames(fd: int, seconds: float, decoder: proto.Decoder) -> Iterator[tuple[int, int, bytes]]:
    """Each frame read from ``fd`` until ``seconds`` have passed or the port goes away."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            return
        try:
            data = os.read(fd, 4096)
        except OSError:  # the box restarted: its USB port went away
            return
        if not data:
            return
        yield from decoder.feed(data)


def ask_update_mode(port: str) -> bool:
    """Send ``UPDATE``; True when the box answers that it restarts into its update mode.
    A firmware without the command says so: :class:`UpdateFailed` names the way out."""
    fd = _open(port)
    try:
        # Without Ctrl-C, -D or -E among its bytes: a box at its REPL already takes the
        # frame as a typo, no soft reset (which would run the program) and no paste mode.
        os.write(fd, proto.encode(0, proto.UPDATE, proto.UPDATE_WORD))
        for _, kind, payload in _frames(fd, ANSWER_S, proto.Decoder()):
            if kind == proto.ERROR and payload[:1] == bytes((proto.E_UPDATING,)):
                return True
            if kind == proto.ERROR and payload[:1] == bytes((proto.E_UNKNOWN,)):
                raise UpdateFailed(
                    "the box's firmware has no UPDATE command (an older release): start "
                    "it in its update mode by hand once (hardware/flashing.md)"
                )
        return False
    finally:
        os.close(fd)


def wait_for(port: str) -> None:
    """Wait until the box's port is back after a restart (the path may stay put)."""
    deadline = time.monotonic() + BACK_S
    time.sleep(0.2)  # the box resets ``UPDATE_WAIT_MS`` after its answer
    while not os.path.exists(port):
        if time.monotonic() > deadline:
            raise UpdateFailed(f"{port} did not come back within {BACK_S:g} s")
        time.sleep(0.05)


def run_mpremote(mpremote: list[str], port: str, words: list[str]) -> None:
    """``mpremote connect PORT WORDS``, tried again while the box is still starting."""
    deadline = time.monotonic() + TRIES_S
    while True:
        done = subprocess.run(
            [*mpremote, "connect", port, *words], capture_output=True, text=True, timeout=120
        )
        if done.returncode == 0:
            return
        if time.monotonic() > deadline:
            said = (done.stdout + done.stderr).strip().splitlines()
            raise UpdateFailed(f"mpremote: {said[-1] if said else done.returncode}")
        time.sleep(0.5)


def greet(port: str) -> str:
    """Say ``HELLO``; the name and protocol in the box's ``IDENTIFY``."""
    deadline = time.monotonic() + BACK_S
    while time.monotonic() < deadline:
        fd = _open(port) if os.path.exists(port) else -1
        if fd < 0:
            time.sleep(0.05)
            continue
        try:
            os.write(fd, proto.encode(0, proto.HELLO, bytes((proto.VERSION,))))
            for _, kind, payload in _frames(fd, ANSWER_S, proto.Decoder()):
                if kind == proto.IDENTIFY:
                    name = payload[10:].decode(errors="replace")
                    return f"{name} (protocol {payload[0]})"
        finally:
            os.close(fd)
    raise UpdateFailed(f"the box on {port} does not answer HELLO after the update")

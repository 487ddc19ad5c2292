"""``mtrain-hub``: reads the command line with argparse and runs the subcommand's module."""

from __future__ import annotations

import argparse
import faulthandler
import importlib
import signal
import sys
from types import ModuleType

from hub.runtime import logs

# The subcommands: (module, help). Each module has ``add_arguments`` and
# ``command``; it is imported only when its subcommand runs (``run`` never loads
# ``tablesim``), and for ``--help``, where only its arguments are read.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": ("hub.cli.run", "run the hub and serve the scorepad"),
    "export": ("hub.cli.export", "write a game's scores as CSV or JSON"),
    "sounds": ("hub.cli.sounds", "list the sounds or play one"),
    "migrate": (
        "hub.cli.migrate",
        "bring the game store's schema up to date (the installer runs it)",
    ),
    "restore": ("hub.cli.restore", "list the game database's backups, or put one back"),
    "soak": ("tablesim.soak", "play simulated games through the hub on virtual time and check it"),
    "fake-mcu": (
        "firmware_bridge.fake_mcu_cli",
        "run the hub box's firmware on a pty, as a fake microcontroller",
    ),
    "firmware": (
        "firmware_bridge.update",
        "update the hub box's firmware over its USB cable (no opening the box)",
    ),
    "demo": ("tablesim.demo", "run the hub with bots playing at a human pace (no hardware needed)"),
    "board": ("hub.cli.board", "serve a tournament board of every hub on an MQTT broker"),
    "wifi": (
        "hub.cli.wifi",
        "the hub's own Wi-Fi: hotspot, home, status, passphrase (NetworkManager)",
    ),
    "selftest": (
        "hub.cli.selftest",
        "walk through every button, marker, light and sound; --check without a person",
    ),
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(SUBCOMMANDS[name][0])


def _parser(command: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mtrain-hub", description="The Mexican Train hub")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text)
        if name == command:
            _module(name).add_arguments(sub_parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    words = sys.argv[1:] if argv is None else argv
    args = _parser(words[0] if words else None).parse_args(words)
    logs.configure(verbose=getattr(args, "verbose", False))
    # `kill -USR1 <pid>` writes every thread's stack to stderr (the journal under
    # systemd): how a maker or a test finds out where a hub that hangs is stuck. A fatal
    # signal writes them too: SIGABRT is the watchdog's kill (faulthandler is already on
    # under pytest and with PYTHONFAULTHANDLER: then it stays as it is).
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        if not faulthandler.is_enabled():
            faulthandler.enable(all_threads=True)
    except (AttributeError, OSError, ValueError):  # no real stderr (a test capturing it)
        pass
    if args.command in SUBCOMMANDS:
        return int(_module(args.command).command(args))
    return 2


if __name__ == "__main__":
    sys.exit(main())

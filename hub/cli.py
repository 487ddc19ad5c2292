"""The ``mtrain-hub`` command: ``run`` the hub, and further subcommands."""

from __future__ import annotations

import argparse
import importlib
import logging
import signal
import sys
from types import ModuleType
from typing import Any

from hub.config import ConfigError, load

# Subcommands other than ``run``: (module, help). Each module has ``add_arguments`` and
# ``command``; it is imported only when its subcommand runs (``run`` never loads
# ``tablesim``), and for ``--help``, where only its arguments are read.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "export": ("hub.export", "write a game's scores as CSV or JSON"),
    "sounds": ("hub.sound_cli", "list the sounds or play one"),
    "soak": ("tablesim.soak",
             "play simulated games through the hub on virtual time and check it"),
    "demo": ("tablesim.demo",
             "run the hub with bots playing at a human pace (no hardware needed)"),
    "board": ("hub.broker.board_cli",
              "serve a tournament board of every hub on an MQTT broker"),
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(SUBCOMMANDS[name][0])


def _parser(command: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mtrain-hub", description="The Mexican Train hub")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the hub and serve the scorepad")
    run.add_argument("--config", help="TOML config file")
    run.add_argument("--backend", choices=("sim", "gpio", "serial"))
    run.add_argument("--host")
    run.add_argument("--port", type=int)
    run.add_argument("--state-dir")
    run.add_argument("--mqtt", metavar="URL",
                     help="publish to this MQTT broker, e.g. mqtt://localhost:1883")
    run.add_argument("--hub-id", metavar="NAME", help="this hub's name on MQTT (mtrain/NAME/)")
    run.add_argument("-v", "--verbose", action="store_true")
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text)
        if name == command:
            _module(name).add_arguments(sub_parser)
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    hub: dict[str, Any] = {}
    web: dict[str, Any] = {}
    if args.backend:
        hub["backend"] = args.backend
    if args.state_dir:
        hub["state_dir"] = args.state_dir
    if args.hub_id:
        hub["hub_id"] = args.hub_id
    if args.host:
        web["host"] = args.host
    if args.port is not None:
        web["port"] = args.port
    mqtt = {"url": args.mqtt} if args.mqtt else {}
    return {"hub": hub, "web": web, "mqtt": mqtt}


def run(args: argparse.Namespace) -> int:
    """Build the hub from the config and serve until SIGINT/SIGTERM."""
    from hub.app import Hub

    try:
        config = load(args.config, _overrides(args))
    except ConfigError as exc:
        print(f"mtrain-hub: config error: {exc}", file=sys.stderr)
        return 2
    try:
        hub = Hub(config)
    except ConfigError as exc:
        print(f"mtrain-hub: config error: {exc}", file=sys.stderr)
        return 2
    # SIGTERM (systemd stop) and Ctrl-C unwind through ``finally`` and ``hub.stop()``.
    # The live streams end first: waitress's own shutdown then waits for no phone.
    def stop(*_: object) -> None:
        hub.broadcaster.close()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        hub.start()
        hub.serve(config["web"]["host"], config["web"]["port"])
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        hub.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    words = sys.argv[1:] if argv is None else argv
    args = _parser(words[0] if words else None).parse_args(words)
    level = logging.DEBUG if getattr(args, "verbose", False) else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.command == "run":
        return run(args)
    if args.command in SUBCOMMANDS:
        return int(_module(args.command).command(args))
    return 2


if __name__ == "__main__":
    sys.exit(main())

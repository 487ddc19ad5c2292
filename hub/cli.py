"""The ``mtrain-hub`` command: ``run`` the hub, and further subcommands."""

from __future__ import annotations

import faulthandler
import importlib
import os
import signal
import sqlite3
import sys
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from hub import logs
from hub.config import ConfigError, load
from hub.notify import Notifier
from scorer.store import StoreError

if TYPE_CHECKING:
    import argparse

    from hub.supervision import Supervision

    Args = argparse.Namespace | SimpleNamespace

# Exit statuses of ``mtrain-hub run`` (the unit's ``RestartPreventExitStatus=2 3``:
# restarting cannot mend a bad config or a damaged store, so systemd does not try).
EXIT_OK = 0
EXIT_CONFIG = 2  # the config is not valid; the message names the key
EXIT_STORAGE = 3  # the game store is damaged or unusable; its files are kept

# Subcommands other than ``run``: (module, help). Each module has ``add_arguments`` and
# ``command``; it is imported only when its subcommand runs (``run`` never loads
# ``tablesim``), and for ``--help``, where only its arguments are read.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "export": ("hub.export", "write a game's scores as CSV or JSON"),
    "sounds": ("hub.sound_cli", "list the sounds or play one"),
    "migrate": ("hub.migrate",
                "bring the game store's schema up to date (the installer runs it)"),
    "restore": ("hub.storage_cli", "list the game database's backups, or put one back"),
    "soak": ("tablesim.soak",
             "play simulated games through the hub on virtual time and check it"),
    "fake-mcu": ("firmware_bridge.fake_mcu",
                 "run the hub box's firmware on a pty, as a fake microcontroller"),
    "demo": ("tablesim.demo",
             "run the hub with bots playing at a human pace (no hardware needed)"),
    "board": ("hub.broker.board_cli",
              "serve a tournament board of every hub on an MQTT broker"),
    "selftest": ("hub.selftest_cli",
                 "walk through every button, marker, light and sound; --check without a person"),
}


# ``run``'s options (and ``logs.VERBOSE``): argparse's, and what :func:`_plain_run`
# reads without it.
RUN_OPTIONS: dict[str, dict[str, Any]] = {
    "--config": {"help": "TOML config file"},
    "--backend": {"choices": ("sim", "gpio", "serial")},
    "--host": {},
    "--port": {"type": int},
    "--state-dir": {},
    "--mqtt": {"metavar": "URL", "help": "publish to this MQTT broker, e.g. mqtt://localhost:1883"},
    "--hub-id": {"metavar": "NAME", "help": "this hub's name on MQTT (mtrain/NAME/)"},
    "--serial-port": {"metavar": "PATH",
                      "help": "the hub box's serial device (default: found by its USB id)"},
}


def _plain_run(words: list[str]) -> SimpleNamespace | None:
    """``run``'s arguments read without argparse, when each word plainly is one of its
    options (``--name value``, ``--name=value``, ``-v``) with a value it takes; None for
    anything else (help, an abbreviation, a wrong value), which argparse then reads and
    answers. A running hub so never loads argparse (~0.3 MB; docs/performance.md)."""
    if not words or words[0] != "run":
        return None
    values: dict[str, Any] = {"command": "run", "verbose": False}
    values |= {flag[2:].replace("-", "_"): None for flag in RUN_OPTIONS}
    rest = iter(words[1:])
    for word in rest:
        flag, equals, value = word.partition("=")
        if word in logs.VERBOSE:
            values["verbose"] = True
            continue
        if flag not in RUN_OPTIONS:
            return None
        if not equals:
            value = next(rest, "-")
            if value.startswith("-"):
                return None
        settings = RUN_OPTIONS[flag]
        try:
            read = settings.get("type", str)(value)
        except ValueError:
            return None
        if read not in settings.get("choices", (read,)):
            return None
        values[flag[2:].replace("-", "_")] = read
    return SimpleNamespace(**values)


def _module(name: str) -> ModuleType:
    return importlib.import_module(SUBCOMMANDS[name][0])


def _parser(command: str | None) -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog="mtrain-hub", description="The Mexican Train hub")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the hub and serve the scorepad")
    for flag, settings in RUN_OPTIONS.items():
        run.add_argument(flag, **settings)
    run.add_argument(*logs.VERBOSE, action="store_true")
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text)
        if name == command:
            _module(name).add_arguments(sub_parser)
    return parser


def _overrides(args: Args) -> dict[str, Any]:
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
    serial = {"port": args.serial_port} if args.serial_port else {}
    return {"hub": hub, "web": web, "mqtt": mqtt, "serial": serial}


def _refuse(notifier: Notifier, message: str, status: int) -> int:
    """Start-up failed: say why on stderr (the journal), to systemd, and exit ``status``."""
    logs.print_error(f"mtrain-hub: {message}")
    notifier.failed(message, status)
    return status


def _build(args: Args, notifier: Notifier) -> tuple[Any, dict[str, Any]] | int:
    """The config and the hub, or the exit status that says why there is none."""
    from hub.app import Hub
    from hub.storage import StorageProblem, lock_state_dir

    try:
        config = load(args.config, _overrides(args))
    except ConfigError as exc:
        return _refuse(notifier, f"config error: {exc}", EXIT_CONFIG)
    try:
        hub = Hub(config)
    except ConfigError as exc:
        return _refuse(notifier, f"config error: {exc}", EXIT_CONFIG)
    except StorageProblem as exc:  # checked before anything is opened (docs/storage.md)
        from hub.storage_cli import serve_problem

        return serve_problem(exc, config, notifier)
    except (StoreError, sqlite3.DatabaseError, OSError) as exc:
        return _refuse(notifier, f"storage damaged or unusable: {exc}. The files are "
                       "kept as they are; see docs/storage.md", EXIT_STORAGE)
    if lock_state_dir(hub.state_dir) is None:  # held until this process ends
        hub.stop()
        return _refuse(notifier, f"config error: hub.state_dir: {hub.state_dir} is in use "
                       "by another running hub", EXIT_CONFIG)
    return hub, config


def run(args: Args) -> int:
    """Build the hub from the config and serve until SIGINT/SIGTERM."""
    from hub.supervision import Supervision

    os.umask(0o077)  # the games, settings and backups are nobody else's to read
    notifier = Notifier()
    built = _build(args, notifier)
    if isinstance(built, int):
        return built
    hub, config = built
    supervision = Supervision(hub, notifier)

    # SIGTERM (systemd stop) and Ctrl-C unwind through ``finally`` and ``hub.stop()``.
    # The live streams end first: waitress's own shutdown then waits for no phone.
    def stop(*_: object) -> None:
        supervision.stopping()
        hub.broadcaster.close()
        sys.exit(EXIT_OK)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = EXIT_OK
    try:
        hub.start()
        supervision.start()
        hub.serve(config["web"]["host"], config["web"]["port"],
                  on_listening=lambda host, port: _listening(supervision, host, port))
    except ConfigError as exc:  # the host or port would not do (hub.listen)
        status = _refuse(notifier, f"config error: {exc}", EXIT_CONFIG)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        supervision.stop()
        hub.stop()
    return status


def _listening(supervision: Supervision, host: str, port: int) -> None:
    """The hub is built and its socket listens: settle the heap, then say READY."""
    from hub.app import settle_heap

    settle_heap()
    supervision.listening(host, port)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    words = sys.argv[1:] if argv is None else argv
    args = _plain_run(words) or _parser(words[0] if words else None).parse_args(words)
    logs.configure(verbose=getattr(args, "verbose", False))
    # `kill -USR1 <pid>` writes every thread's stack to stderr (the journal under
    # systemd): how a maker or a test finds out where a hub that hangs is stuck.
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (AttributeError, OSError):  # no real stderr (a test capturing it): no dumps
        pass
    if args.command == "run":
        return run(args)
    if args.command in SUBCOMMANDS:
        return int(_module(args.command).command(args))
    return 2


if __name__ == "__main__":
    sys.exit(main())

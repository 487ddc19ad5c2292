"""``mtrain-hub run``: build the hub from the config and serve until SIGINT or SIGTERM."""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sqlite3
import sys
from typing import TYPE_CHECKING, Any

from hub import version
from hub.cli import EXIT_CONFIG, EXIT_OK, EXIT_STORAGE
from hub.runtime import logs
from hub.runtime.config import ConfigError, load
from hub.runtime.notify import Notifier
from scorer.store import StoreError

if TYPE_CHECKING:
    from hub.runtime.supervision import Supervision

# ``run``'s options (and ``logs.VERBOSE``).
RUN_OPTIONS: dict[str, dict[str, Any]] = {
    "--config": {"help": "TOML config file"},
    "--backend": {"choices": ("sim", "gpio", "serial")},
    "--host": {},
    "--port": {"type": int},
    "--state-dir": {},
    "--mqtt": {"metavar": "URL", "help": "publish to this MQTT broker, e.g. mqtt://localhost:1883"},
    "--hub-id": {"metavar": "NAME", "help": "this hub's name on MQTT (mtrain/NAME/)"},
    "--serial-port": {
        "metavar": "PATH",
        "help": "the hub box's serial device (default: found by its USB id)",
    },
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``run``'s options: each overrides its key in the config file."""
    for flag, settings in RUN_OPTIONS.items():
        parser.add_argument(flag, **settings)
    parser.add_argument(*logs.VERBOSE, action="store_true")


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
    serial = {"port": args.serial_port} if args.serial_port else {}
    return {"hub": hub, "web": web, "mqtt": mqtt, "serial": serial}


def _refuse(notifier: Notifier, message: str, status: int) -> int:
    """Start-up failed: say why on stderr (the journal), to systemd, and exit ``status``."""
    logs.print_error(f"mtrain-hub: {message}")
    notifier.failed(message, status)
    return status


def _build(args: argparse.Namespace, notifier: Notifier) -> tuple[Any, dict[str, Any]] | int:
    """The config and the hub, or the exit status that says why there is none."""
    from hub.app import Hub
    from hub.persist.storage import StorageProblem, lock_state_dir

    try:
        config = load(args.config, _overrides(args))
    except ConfigError as exc:
        return _refuse(notifier, f"config error: {exc}", EXIT_CONFIG)
    try:
        hub = Hub(config)
    except ConfigError as exc:
        return _refuse(notifier, f"config error: {exc}", EXIT_CONFIG)
    except StorageProblem as exc:  # checked before anything is opened (docs/storage.md)
        from hub.cli.restore import serve_problem

        return serve_problem(exc, config, notifier)
    except (StoreError, sqlite3.DatabaseError, OSError) as exc:
        return _refuse(
            notifier,
            f"storage damaged or unusable: {exc}. The files are "
            "kept as they are; see docs/storage.md",
            EXIT_STORAGE,
        )
    if lock_state_dir(hub.state_dir) is None:  # held until this process ends
        hub.stop()
        return _refuse(
            notifier,
            f"config error: hub.state_dir: {hub.state_dir} is in use by another running hub",
            EXIT_CONFIG,
        )
    return hub, config


def command(args: argparse.Namespace) -> int:
    """Build the hub from the config and serve until SIGINT/SIGTERM."""
    from hub.runtime.supervision import Supervision, start_line

    os.umask(0o077)  # the games, settings and backups are nobody else's to read
    notifier = Notifier()
    built = _build(args, notifier)
    if isinstance(built, int):
        return built
    hub, config = built

    def describe(host: str, port: int) -> str:
        leds = type(hub.leds).__name__
        return start_line(config, hub.backend, hub.sound.status(), leds, host, port, version())

    supervision = Supervision(hub.loop.call, hub.loop.beat, describe, notifier)

    # SIGTERM (systemd stop) and Ctrl-C unwind through ``finally`` and ``hub.stop()``.
    # The news ends first: the web server's shutdown then waits for no phone. Serving,
    # the server's loop is asked to end: SystemExit raised in a request's callback on it
    # would be logged as that request's error and the hub would go on serving.
    def stop(*_: object) -> None:
        supervision.stopping()
        hub.broadcaster.close()
        if not hub.stop_serving_soon():
            sys.exit(EXIT_OK)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = EXIT_OK
    try:
        hub.start()
        supervision.start()
        hub.serve(
            config["web"]["host"],
            config["web"]["port"],
            on_listening=lambda host, port: _listening(supervision, host, port),
        )
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
    settle_heap()
    supervision.listening(host, port)


def settle_heap() -> None:
    """Once the hub is up (``mtrain-hub run``, before the first request): collect what
    starting it left behind, then exempt every object still alive from the cyclic
    collector (``gc.freeze``). Those ~40,000 start-up objects (modules, classes, the
    web app) live as long as the process; without this, each full collection walks them
    all on whichever thread allocates, the loop's included: 12 ms on a PC at start,
    several times that on a Pi Zero, in the middle of a press. Collections then see only
    what the hub made since."""
    gc.collect()
    gc.freeze()

"""``mtrain-hub restore``, and what ``run`` does when the storage cannot be used."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from hub.cli import EXIT_STORAGE
from hub.persist.storage import (
    BACKUP_DIR,
    DB_NAME,
    Backups,
    StorageProblem,
    check_state_dir,
    lock_state_dir,
)
from hub.runtime import logs
from hub.runtime.config import ConfigError, load
from hub.runtime.notify import Notifier

log = logging.getLogger("hub.persist.storage")


def serve_problem(problem: StorageProblem, config: dict[str, Any], notifier: Notifier) -> int:
    """Say what is wrong on the console, in the log, to systemd and on the page (served
    until SIGTERM or Ctrl-C); then :data:`EXIT_STORAGE`, which the unit does not restart.
    While it serves, it feeds the watchdog itself: no loop runs to do it."""
    message = f"storage problem: {problem}"
    logs.print_error(f"mtrain-hub: {message}")
    log.error("%s", message)
    from hub.http.server import make_server
    from web.maintenance import create_maintenance_app

    host, port = config["web"]["host"], config["web"]["port"]
    server = make_server(create_maintenance_app(problem.as_json()), host, port, 2, streams=0)

    def stop(*_: object) -> None:
        raise SystemExit(EXIT_STORAGE)  # closed below, outside the signal handler

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.error("showing the problem at http://%s:%s/ until stopped", host, port)
    notifier.ready(message)
    alive = threading.Event()
    if notifier.watchdog_s:
        threading.Thread(target=_feed, args=(notifier, alive), daemon=True, name="watchdog").start()
    try:
        server.run()
    except SystemExit:
        pass
    finally:
        alive.set()
        server.close()
    notifier.failed(message, EXIT_STORAGE)
    return EXIT_STORAGE


def _feed(notifier: Notifier, stop: threading.Event) -> None:
    """Ping the watchdog every half period until ``stop``."""
    period = (notifier.watchdog_s or 0) / 2
    while not stop.wait(period):
        notifier.watchdog()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``restore [--config FILE] [--state-dir DIR] [BACKUP]``."""
    parser.add_argument(
        "backup",
        nargs="?",
        help="the backup to put back (a name from the list, or a path); "
        "without it, list the backups",
    )
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument("--state-dir")


def command(args: argparse.Namespace) -> int:
    """List the backups, or put one back (the hub must be stopped)."""
    try:
        config = load(
            args.config, {"hub": {"state_dir": args.state_dir}} if args.state_dir else None
        )
    except ConfigError as exc:
        print(f"mtrain-hub: config error: {exc}", file=sys.stderr)
        return 2
    state_dir = Path(config["hub"]["state_dir"])
    backups = Backups(state_dir / BACKUP_DIR)
    if args.backup is None:
        return _list(backups)
    try:
        check_state_dir(state_dir)
        return _restore(backups, args.backup, state_dir)
    except StorageProblem as exc:
        print(f"mtrain-hub: restore: {exc}", file=sys.stderr)
        return EXIT_STORAGE


def _list(backups: Backups) -> int:
    found = backups.list()
    if not found:
        print(f"no backups in {backups.folder}")
        return 1
    print(f"backups in {backups.folder}, newest first:")
    for path in found:
        print(f"  {path.name}  {path.stat().st_size:>9} bytes")
    return 0


def _restore(backups: Backups, name: str, state_dir: Path) -> int:
    backup = Path(name) if os.sep in name else backups.folder / name
    if not backup.is_file():
        print(
            f"mtrain-hub: restore: {backup}: no such backup "
            "(run 'mtrain-hub restore' to list them)",
            file=sys.stderr,
        )
        return 1
    lock = lock_state_dir(state_dir)
    if lock is None:
        print(
            f"mtrain-hub: restore: a hub is running on {state_dir}; stop it first "
            "(sudo systemctl stop mtrain-hub)",
            file=sys.stderr,
        )
        return 1
    try:
        kept = backups.restore(backup, state_dir / DB_NAME)
    finally:
        os.close(lock)
    print(f"restored {backup.name} as {state_dir / DB_NAME}")
    if kept is not None:
        print(f"the file it replaced is kept as {kept}")
    return 0

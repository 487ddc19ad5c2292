"""``mtrain-hub migrate``: bring the game store's schema up to date, once, on upgrade.

The store migrates itself whenever it opens; the installer runs this right after an
upgrade (with the service stopped) so a migration happens in the open, with a copy of
the database taken first (``games.db.before-schema-N``, made with SQLite's backup API,
so the WAL's contents are in it) and its outcome printed, not at the next boot.
Exit status 3 (:data:`hub.cli.EXIT_STORAGE`) when the store is damaged; the file is kept.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from hub.cli import EXIT_CONFIG, EXIT_STORAGE
from hub.runtime.config import ConfigError, load
from scorer.schema import MIGRATIONS
from scorer.store import GameStore, StoreError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config`` and ``--state-dir``, read as ``run`` reads them."""
    parser.add_argument("--config", help="TOML config file (for hub.state_dir)")
    parser.add_argument("--state-dir", help="the state directory (overrides the config)")


def schema_version(path: Path) -> int:
    """The schema version (``PRAGMA user_version``) of the database at ``path``."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def backup(path: Path, target: Path) -> None:
    """A consistent copy of the database at ``path`` (WAL included) into ``target``."""
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        copy.close()
        source.close()


def migrate(state_dir: Path) -> str:
    """Open (so migrate) ``state_dir``'s store; return what happened, in one line.

    Raises :class:`StoreError` or :class:`sqlite3.DatabaseError` when it is damaged.
    """
    path = state_dir / "games.db"
    latest = len(MIGRATIONS)
    if not path.exists():
        return f"{path}: no games yet; it will be created at schema {latest}"
    before = schema_version(path)
    saved = ""
    if before < latest:
        target = path.with_name(f"{path.name}.before-schema-{latest}")
        backup(path, target)
        saved = f" (the old one copied to {target.name})"
    store = GameStore(path)
    try:
        if not store.integrity_ok():
            raise StoreError(f"{path}: SQLite's integrity check found damage", code="damaged")
    finally:
        store.close()
    if before == latest:
        return f"{path}: schema {latest}, up to date"
    return f"{path}: schema {before} -> {latest}{saved}"


def command(args: argparse.Namespace) -> int:
    """Run ``mtrain-hub migrate``."""
    overrides = {"hub": {"state_dir": args.state_dir}} if args.state_dir else {}
    try:
        state_dir = Path(load(args.config, overrides)["hub"]["state_dir"])
        print(migrate(state_dir))
    except ConfigError as exc:
        print(f"mtrain-hub migrate: config error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except (StoreError, sqlite3.DatabaseError, OSError) as exc:
        print(
            f"mtrain-hub migrate: the game store is damaged or unusable: {exc}; "
            "it is kept as it is (docs/deploy.md, 'Backups')",
            file=sys.stderr,
        )
        return EXIT_STORAGE
    return 0

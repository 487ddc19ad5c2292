"""``mtrain-hub export``: a game's scores (or every game's) as CSV or JSON, from the
state folder's database; the formats are :mod:`scorer.export`'s."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hub.runtime.config import ConfigError, load
from scorer.export import FORMATS, filename, game_csv, games_json, render
from scorer.store import GameStore, StoreError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``export`` subcommand's options."""
    parser.add_argument("--config", help="TOML config file (for hub.state_dir)")
    parser.add_argument("--state-dir", help="the hub's state directory (holds games.db)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--game", type=int, help="the game's id (default: the newest game)")
    which.add_argument("--all", action="store_true", help="every game")
    parser.add_argument(
        "--format", choices=FORMATS, help="csv or json (default: from --output's suffix, else csv)"
    )
    parser.add_argument(
        "--output",
        help="file to write (default: standard output); "
        "with --all --format csv, a directory for one file per game",
    )


def _fail(message: str, code: int = 1) -> int:
    print(f"mtrain-hub export: {message}", file=sys.stderr)
    return code


def _state_dir(args: argparse.Namespace) -> Path:
    if args.state_dir:
        return Path(args.state_dir)
    return Path(load(args.config)["hub"]["state_dir"])


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    suffix = Path(args.output).suffix.lstrip(".").lower() if args.output else ""
    return suffix if suffix in FORMATS else "csv"


def _write(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8", newline="")


def _export_all(store: GameStore, fmt: str, output: str | None) -> int:
    games = [store.get_game(entry["id"]) for entry in store.list_games()]
    if fmt == "json":
        _write(games_json(games), output)
        return 0
    if output is None:
        return _fail("--all --format csv writes one file per game: give --output DIR", 2)
    folder = Path(output)
    folder.mkdir(parents=True, exist_ok=True)
    for game in games:
        _write(game_csv(game), str(folder / filename(game["id"], "csv")))
    return 0


def _export_one(store: GameStore, game_id: int | None, fmt: str, output: str | None) -> int:
    if game_id is None:
        newest = store.list_games(limit=1)
        if not newest:
            return _fail("no games stored yet")
        game_id = newest[0]["id"]
    _write(render(store.get_game(game_id), fmt), output)
    return 0


def command(args: argparse.Namespace) -> int:
    """Run ``mtrain-hub export``: 0 when written, 1 on a missing game or database,
    2 on a usage or config error."""
    try:
        path = _state_dir(args) / "games.db"
    except ConfigError as exc:
        return _fail(f"config error: {exc}", 2)
    if not path.is_file():
        return _fail(f"no games database at {path}")
    store = GameStore(path)
    try:
        if args.all:
            return _export_all(store, _format(args), args.output)
        return _export_one(store, args.game, _format(args), args.output)
    except StoreError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write {args.output}: {exc.strerror or exc}")
    finally:
        store.close()

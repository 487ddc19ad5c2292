"""``mtrain-hub migrate``: the installer's one migration at upgrade, with a copy first."""

from __future__ import annotations

import sqlite3

from hub.cli import EXIT_CONFIG, EXIT_STORAGE
from hub.cli.main import main
from scorer.schema import MIGRATIONS
from scorer.setup import check_setup
from scorer.store import GameStore

LATEST = len(MIGRATIONS)


def test_no_games_yet(tmp_path, capsys):
    assert main(["migrate", "--state-dir", str(tmp_path)]) == 0
    assert "no games yet" in capsys.readouterr().out
    assert not (tmp_path / "games.db").exists()


def test_up_to_date_store_is_left_alone(tmp_path, capsys):
    store = GameStore(tmp_path / "games.db")
    game_id = store.create_game(
        check_setup({"players": ["Ann", "Bob"], "rules": "consensus"}), token="t" * 24
    )
    store.close()
    assert main(["migrate", "--state-dir", str(tmp_path)]) == 0
    assert f"schema {LATEST}, up to date" in capsys.readouterr().out
    assert not list(tmp_path.glob("games.db.before-*"))
    store = GameStore(tmp_path / "games.db")
    assert store.get_game(game_id)["players"] == ["Ann", "Bob"]
    store.close()


def test_an_older_store_is_copied_then_migrated(tmp_path, capsys):
    # An older program's database: schema 0 with a table of its own in it.
    conn = sqlite3.connect(tmp_path / "games.db")
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.execute("INSERT INTO notes VALUES ('kept')")
    conn.commit()
    conn.close()
    assert main(["migrate", "--state-dir", str(tmp_path)]) == 0
    assert f"schema 0 -> {LATEST}" in capsys.readouterr().out
    backup = sqlite3.connect(tmp_path / f"games.db.before-schema-{LATEST}")
    assert backup.execute("PRAGMA user_version").fetchone()[0] == 0
    assert backup.execute("SELECT text FROM notes").fetchall() == [("kept",)]
    backup.close()
    store = GameStore(tmp_path / "games.db")
    assert store.settings()["user_version"] == LATEST and store.list_games() == []
    store.close()


def test_a_damaged_store_exits_3_and_is_kept(tmp_path, capsys):
    damaged = b"not sqlite at all " * 64
    (tmp_path / "games.db").write_bytes(damaged)
    assert main(["migrate", "--state-dir", str(tmp_path)]) == EXIT_STORAGE
    assert "damaged or unusable" in capsys.readouterr().err
    assert (tmp_path / "games.db").read_bytes() == damaged


def test_a_bad_config_exits_2(tmp_path, capsys):
    config = tmp_path / "hub.toml"
    config.write_text("[hub]\nbackend = 'steam'\n")
    assert main(["migrate", "--config", str(config)]) == EXIT_CONFIG
    assert "hub.backend" in capsys.readouterr().err

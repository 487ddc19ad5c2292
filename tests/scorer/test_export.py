"""CSV and JSON export of games (scorer/export.py) and ``mtrain-hub export``."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from hub.cli.main import main
from scorer import export
from scorer.setup import check_setup
from scorer.store import GameStore

PLAYERS = ["Ann", "Bob", "=Cid"]  # a name a spreadsheet would take for a formula


@pytest.fixture
def state_dir(tmp_path):
    """A state directory whose games.db holds a game of 3 rounds (2 scored) and a newer
    game with nothing scored."""
    folder = tmp_path / "state"
    folder.mkdir()
    store = GameStore(folder / "games.db")
    first = store.create_game(check_setup({"players": PLAYERS, "set": 6, "rounds": 3}), token="t1")
    store.record_round(first, 1, {"Ann": 0, "Bob": 12, "=Cid": 30}, went_out="Ann")
    store.record_round(first, 2, {"Ann": 7, "Bob": 3, "=Cid": 0}, went_out=None)
    store.create_game(check_setup({"players": ["Dee", "Eve"]}), token="t2")
    store.close()
    return folder


def stored(state_dir, game_id):
    store = GameStore(state_dir / "games.db")
    try:
        return store.get_game(game_id)
    finally:
        store.close()


def rows(text):
    return list(csv.reader(io.StringIO(text)))


def test_csv_has_a_header_a_row_per_scored_round_and_totals(state_dir):
    text = export.game_csv(stored(state_dir, 1))
    assert rows(text) == [
        ["round", "engine", "Ann", "Bob", "'=Cid", "went_out"],
        ["1", "6", "0", "12", "30", "Ann"],
        ["2", "5", "7", "3", "0", ""],
        ["total", "", "7", "15", "30", ""],
    ]
    assert text.endswith("\r\n")


def test_csv_of_a_game_with_nothing_scored_is_header_and_totals(state_dir):
    assert rows(export.game_csv(stored(state_dir, 2))) == [
        ["round", "engine", "Dee", "Eve", "went_out"],
        ["total", "", "0", "0", ""],
    ]


def test_json_round_trips(state_dir):
    game = stored(state_dir, 1)
    assert json.loads(export.game_json(game)) == game
    assert json.loads(export.games_json([game])) == [game]
    assert "t1" not in export.game_json(game)  # never the token


def test_cli_writes_a_game_to_a_file(state_dir, tmp_path):
    out = tmp_path / "one.csv"
    assert main(["export", "--state-dir", str(state_dir), "--game", "1", "--output", str(out)]) == 0
    assert out.read_bytes().decode() == export.game_csv(stored(state_dir, 1))
    out = tmp_path / "one.json"  # the format follows the suffix
    assert main(["export", "--state-dir", str(state_dir), "--game", "1", "--output", str(out)]) == 0
    assert json.loads(out.read_text()) == stored(state_dir, 1)


def test_cli_defaults_to_the_newest_game_on_stdout(state_dir, capsys):
    assert main(["export", "--state-dir", str(state_dir), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == 2


def test_cli_exports_all_games(state_dir, tmp_path, capsys):
    assert main(["export", "--state-dir", str(state_dir), "--all", "--format", "json"]) == 0
    assert [g["id"] for g in json.loads(capsys.readouterr().out)] == [2, 1]
    folder = tmp_path / "sheets"
    assert main(["export", "--state-dir", str(state_dir), "--all", "--output", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["mtrain-game-1.csv", "mtrain-game-2.csv"]
    assert main(["export", "--state-dir", str(state_dir), "--all"]) == 2
    assert "--output DIR" in capsys.readouterr().err


def test_cli_errors(state_dir, tmp_path, capsys):
    empty = tmp_path / "empty"
    assert main(["export", "--state-dir", str(empty)]) == 1
    assert "no games database" in capsys.readouterr().err
    assert not empty.exists()  # nothing created
    assert main(["export", "--state-dir", str(state_dir), "--game", "9"]) == 1
    assert "game 9: no such game" in capsys.readouterr().err
    assert (
        main(
            [
                "export",
                "--state-dir",
                str(state_dir),
                "--output",
                str(tmp_path / "no" / "such" / "dir" / "x.csv"),
            ]
        )
        == 1
    )
    assert "cannot write" in capsys.readouterr().err
    assert main(["export", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "config error" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export", "--game", "1", "--all"])


def test_the_console_command_writes_the_file(state_dir, tmp_path):
    out = tmp_path / "game.csv"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "export",
            "--state-dir",
            str(state_dir),
            "--game",
            "1",
            "--format",
            "csv",
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert rows(out.read_text())[-1] == ["total", "", "7", "15", "30", ""]

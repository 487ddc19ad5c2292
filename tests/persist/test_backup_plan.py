"""Backups a flood cannot multiply nor rotate away: at most one every few minutes, one
asked for meanwhile taken when the rest ends (never lost), and each earlier day's
newest backup kept beside the newest copies (hub/persist/backup_plan.py)."""

from __future__ import annotations

from pathlib import Path

from hub.persist.backup_plan import Pacing, day_of, kept
from hub.persist.storage import DB_NAME, Backups, BackupService
from scorer.setup import check_setup
from scorer.store import GameStore, new_token
from tests.helpers import eventually
from tests.persist.test_correction_flood import family_backups

PLAYERS = ["Ann", "Bob", "Cy"]


def _db(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    store = GameStore(folder / DB_NAME)
    store.create_game(check_setup({"players": PLAYERS}), token=new_token())
    store.close()
    return folder / DB_NAME


def _games_in(db: Path) -> int:
    store = GameStore(db)
    try:
        return len(store.list_games())
    finally:
        store.close()


def _add_game(db: Path) -> None:
    store = GameStore(db)
    store.create_game(check_setup({"players": PLAYERS}), token=new_token())
    store.close()


# --- pacing ---------------------------------------------------------------------------


def test_the_first_backup_asked_for_is_taken_at_once() -> None:
    pacing = Pacing(now=0.0, rest_s=300.0)
    pacing.ask("game1")
    assert pacing.due(0.0) == "game1"
    assert pacing.due(0.0) is None  # nothing more asked


def test_asks_during_the_rest_are_one_backup_when_it_ends_with_the_newest_reason() -> None:
    pacing = Pacing(now=0.0, rest_s=300.0)
    pacing.ask("game1")
    assert pacing.due(10.0) == "game1"
    for at in range(11, 299):  # a flood: asked every second
        pacing.ask(f"game{at}")
        assert pacing.due(float(at)) is None
    assert pacing.next_at() == 310.0
    assert pacing.due(309.9) is None
    assert pacing.due(310.0) == "game298"  # the newest state, once
    assert pacing.due(311.0) is None


def test_a_daily_backup_without_asks() -> None:
    pacing = Pacing(now=0.0, rest_s=300.0, every_s=86400.0)
    assert pacing.next_at() == 86400.0
    assert pacing.due(86399.0) is None
    assert pacing.due(86400.0) == "daily"
    assert pacing.next_at() == 2 * 86400.0


# --- keeping ---------------------------------------------------------------------------


def test_each_earlier_days_newest_backup_is_kept_beside_the_newest_copies() -> None:
    earlier = [Path(f"games-202612{d:02d}-2130{m:02d}-game{d}.db") for d in (1, 2) for m in (0, 1)]
    flood = [Path(f"games-20261207-1200{s:02d}-game9.db") for s in range(30)]
    newest_first = sorted([*earlier, *flood], key=lambda p: p.name, reverse=True)
    keep = kept(newest_first, copies=7, days=7)
    assert keep == set(newest_first[:7]) | {earlier[1], earlier[3]}
    assert kept(newest_first, copies=7, days=1) == set(newest_first[:7]) | {earlier[3]}
    assert day_of(earlier[0]) == "20261201" and day_of(Path("games-1.db")) is None


def test_only_the_most_recent_days_are_kept_by_day() -> None:
    days = [Path(f"games-202611{d:02d}-120000-daily.db") for d in range(1, 21)]
    newest_first = sorted(days, key=lambda p: p.name, reverse=True)
    # The newest two copies, and the five days before the newest one's.
    assert kept(newest_first, copies=2, days=5) == set(newest_first[:6])


def test_a_flood_of_backups_keeps_the_familys_earlier_ones(tmp_path: Path) -> None:
    db = _db(tmp_path / "state")
    backups = Backups(tmp_path / "state" / "backups")
    family = family_backups(backups.folder, db)
    for i in range(30):
        backups.take(db, f"flood{i}")
    assert all(path.exists() for path in family)
    assert len(backups.list()) <= 7 + 7


# --- the backup thread ----------------------------------------------------------------


def test_a_backup_asked_for_during_the_rest_is_taken_later_with_the_newest_state(
    tmp_path: Path,
) -> None:
    db = _db(tmp_path / "state")
    backups = Backups(tmp_path / "state" / "backups")
    service = BackupService(backups, db, rest_s=1.0)
    service.start()
    try:
        service.request("game1")
        first = eventually(backups.latest, 10)
        assert first.name.endswith("-game1.db") and _games_in(first) == 1
        _add_game(db)
        service.request("game2")
        _add_game(db)
        service.request("game3")  # coalesced with game2's: one backup, the newest state
        last = eventually(lambda: backups.latest() if backups.latest() != first else None, 10)
        assert last.name.endswith("-game3.db") and _games_in(last) == 3
        assert len(backups.list()) == 2
    finally:
        service.stop()


def test_a_backup_still_resting_at_stop_is_taken_then(tmp_path: Path) -> None:
    db = _db(tmp_path / "state")
    backups = Backups(tmp_path / "state" / "backups")
    service = BackupService(backups, db, rest_s=3600.0)
    service.start()
    service.request("game1")
    first = eventually(backups.latest, 10)
    _add_game(db)
    service.request("game2")
    assert backups.latest() == first  # resting
    service.stop()
    last = backups.latest()
    assert last is not None and last.name.endswith("-game2.db") and _games_in(last) == 2

"""The SD card nobody can fill (issue 33, item 4): a stranger corrects their own
finished game from four threads as fast as the hub answers. The database grows by at
most 1 MB, at most 5 backups are written, the family's earlier backups are all kept,
the round's history stays small, and the newest state is backed up at the end."""

from __future__ import annotations

import logging
import shutil
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hub.persist.storage import DB_NAME, Backups
from hub.runtime.clock import SystemClock
from scorer.store import GameStore
from web import create_app

THREADS = 4
FLOOD_S = 3.0
PLAYERS = ["Ann", "Bob", "Cy"]


def family_backups(folder: Path, db: Path, days: int = 7) -> list[Path]:
    """One backup on each of the ``days`` days before today (the family's evenings)."""
    folder.mkdir(parents=True, exist_ok=True)
    today = datetime.now(UTC).replace(hour=21, minute=30, second=0)
    made = []
    for back in range(days, 0, -1):
        stamp = (today - timedelta(days=back)).strftime("%Y%m%d-%H%M%S")
        path = folder / f"games-{stamp}-game{back}.db"
        shutil.copy(db, path)
        made.append(path)
    return made


def _size(state: Path) -> int:
    return sum(p.stat().st_size for p in state.glob(f"{DB_NAME}*") if p.is_file())


def _flood(app, game_id: int, token: str, until: float, statuses: list[int]) -> None:
    client = app.test_client()
    auth = {"Authorization": f"Bearer {token}"}
    value = 0
    while time.monotonic() < until:
        value = (value + 1) % 40
        body = {"points": {"Ann": 0, "Bob": value, "Cy": 40 - value}}
        r = client.post(f"/api/games/{game_id}/rounds/1/scores", json=body, headers=auth)
        statuses.append(r.status_code)


def test_a_correction_flood_neither_fills_the_card_nor_rotates_the_backups_away(
    tmp_path, make_hub, caplog
):
    state = tmp_path / "state"
    state.mkdir()
    GameStore(state / DB_NAME).close()
    family = family_backups(state / "backups", state / DB_NAME)
    hub = make_hub(threaded=True, clock=SystemClock())
    app = create_app(hub.web_service(), {"TESTING": True})
    client = app.test_client()
    made = client.post("/api/games", json={"players": PLAYERS, "rounds": 1}).get_json()
    game_id, token = made["id"], made["token"]
    first = {"points": {"Ann": 0, "Bob": 5, "Cy": 7}, "mid_round": True}
    scored = client.post(
        f"/api/games/{game_id}/rounds/1/scores",
        json=first,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert scored.get_json()["finished"] is True
    hub.writer.flush()
    before = _size(state)
    caplog.set_level(logging.INFO, logger="hub.persist.storage")

    statuses: list[int] = []
    until = time.monotonic() + FLOOD_S
    threads = [
        threading.Thread(target=_flood, args=(app, game_id, token, until, statuses))
        for _ in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    hub.writer.flush()

    grown = _size(state) - before
    history = client.get(f"/api/games/{game_id}/rounds/1/history").get_json()
    now = client.get(f"/api/games/{game_id}").get_json()["rounds"][0]["points"]
    hub.stop()  # a backup asked for during the rest is taken at the stop
    written = [r for r in caplog.records if r.getMessage().startswith("backup: ")]
    kept = [path.name for path in family if path.exists()]

    assert (grown <= 1_000_000, 1 <= len(written) <= 5, len(kept)) == (True, True, 7), (
        f"{grown} bytes more, {len(written)} backups written, {len(kept)} of the family's kept"
    )
    assert len(history) <= 3 + 2  # the first scoring, and one merged correction each
    assert 200 in statuses and 429 in statuses, sorted(set(statuses))
    assert set(statuses) <= {200, 429}
    newest = Backups(state / "backups").latest()
    assert newest is not None and newest not in family
    store = GameStore(newest)
    try:
        assert store.get_game(game_id)["rounds"][0]["points"] == now
    finally:
        store.close()

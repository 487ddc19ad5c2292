"""The SD card nobody can fill (issue 33, item 4): a stranger corrects their own
finished game from four threads as fast as the hub answers. The database grows by at
most 1 MB, at most 5 backups are written, the family's earlier backups are all kept,
the round's history stays small, and the newest state is backed up at the end."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from hub.persist.storage import DB_NAME, Backups
from hub.runtime.clock import SystemClock
from scorer.store import GameStore
from tests.persist.test_backup_plan import family_backups
from web import create_app

THREADS = 4
FLOOD_S = 3.0
PLAYERS = ["Ann", "Bob", "Cy"]


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

    assert 200 in statuses and 429 in statuses, sorted(set(statuses))
    assert set(statuses) <= {200, 429}
    assert _size(state) - before <= 1_000_000
    history = client.get(f"/api/games/{game_id}/rounds/1/history").get_json()
    assert len(history) <= 3 + 2  # the first scoring, and one merged correction each
    now = client.get(f"/api/games/{game_id}").get_json()["rounds"][0]["points"]

    hub.stop()  # a backup asked for during the rest is taken at the stop
    written = [r for r in caplog.records if r.getMessage().startswith("backup: ")]
    assert 1 <= len(written) <= 5, [r.getMessage() for r in written]
    assert all(path.exists() for path in family)
    newest = Backups(state / "backups").latest()
    assert newest is not None and newest not in family
    store = GameStore(newest)
    try:
        assert store.get_game(game_id)["rounds"][0]["points"] == now
    finally:
        store.close()

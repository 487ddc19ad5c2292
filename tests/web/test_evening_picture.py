"""``GET /api/evening.png`` (web/players_api.py, web/evening_pictures.py,
web/evening_png.py) on a live sim hub: one drawing process at a time however many ask,
the picture kept until the evening changes (and revalidated by its ETag), a bounded
size for a long evening, and a typed 503 when it cannot be drawn now (issue 33)."""

from __future__ import annotations

import os
import struct
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests import history
from tests.helpers import eventually
from web import create_app
from web.evening_pictures import EveningPictures
from web.evening_png import MOST_LINES, WIDTH, height

DRAWER = "web.evening_png"


@pytest.fixture
def evening(live_hub):
    """Three games finished one after another in the live hub's store: one evening."""
    return history.store_history(live_hub.store, history.generate(7, 3, per_day=3))


@pytest.fixture
def spawned(monkeypatch):
    """Every drawing process started (``subprocess.run`` of ``python -m web.evening_png``),
    counted as the product starts them."""
    started: list[list[str]] = []
    run = subprocess.run

    def counting(args, *rest, **kw):
        if DRAWER in args:
            started.append(list(args))
        return run(args, *rest, **kw)

    monkeypatch.setattr(subprocess, "run", counting)
    return started


def size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header (IHDR)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, tall = struct.unpack(">II", png[16:24])
    return width, tall


def drawers() -> int:
    """This process's children drawing a picture now (read from /proc)."""
    children: set[str] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            children.update((task / "children").read_text().split())
        except OSError:  # the thread ended meanwhile
            pass
    count = 0
    for child in children:
        try:
            count += DRAWER in Path(f"/proc/{child}/cmdline").read_text()
        except OSError:  # gone meanwhile
            pass
    return count


def test_sixteen_askers_start_one_drawing_process_at_a_time(client, evening):
    seen: list[int] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.append(drawers())

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with ThreadPoolExecutor(16) as phones:
            answers = list(phones.map(lambda _: client.get("/api/evening.png"), range(16)))
    finally:
        done.set()
        watcher.join()
    assert [a.status_code for a in answers] == [200] * 16
    assert len({a.data for a in answers}) == 1
    assert max(seen) <= 1 and len(seen) > 10


def test_the_picture_is_kept_until_the_evening_changes(client, live_hub, evening, spawned):
    first = client.get("/api/evening.png")
    assert first.status_code == 200 and len(spawned) == 1
    again = client.get("/api/evening.png")
    assert again.data == first.data and len(spawned) == 1  # kept: nothing drawn
    tag = first.headers["ETag"]
    assert "no-cache" in first.headers["Cache-Control"]
    assert "private" in first.headers["Cache-Control"]
    unchanged = client.get("/api/evening.png", headers={"If-None-Match": tag})
    assert unchanged.status_code == 304 and unchanged.data == b"" and len(spawned) == 1
    # One more game finished that evening: a new picture, a new name.
    history.store_history(live_hub.store, history.generate(8, 1, first_year=2024))
    changed = client.get("/api/evening.png", headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert changed.data != first.data and len(spawned) == 2


def test_each_language_is_a_picture_of_its_own(client, evening, spawned):
    english = client.get("/api/evening.png", headers={"Accept-Language": "en"})
    spanish = client.get("/api/evening.png", headers={"Accept-Language": "es-MX"})
    assert english.headers["ETag"] != spanish.headers["ETag"] and len(spawned) == 2
    assert "Accept-Language" in english.headers["Vary"]


def test_a_long_evening_is_a_summary_of_bounded_size(client, live_hub):
    history.long_evening(live_hub.store, games=100, names=8)
    answer = client.get("/api/evening.png")
    assert answer.status_code == 200
    width, tall = size(answer.data)
    assert width == WIDTH and tall <= height([("body", "")] * MOST_LINES) <= 1200


def test_the_summary_says_how_many_are_left_out(live_hub):
    from web.evening_png import GAMES_SHOWN, PLAYERS_SHOWN, lines

    history.long_evening(live_hub.store, games=30, names=8)
    shown = [words for _, words in lines(live_hub.store.evening(None), "en")]
    assert len(shown) <= MOST_LINES
    assert f"… and {30 - GAMES_SHOWN} earlier games" in shown
    assert f"… and {240 - PLAYERS_SHOWN} more players" in shown
    assert "Game 30: P029A won" in shown and "Game 18: P017A won" not in shown
    assert any(w.startswith("Most wins: P000A, P001A, P002A and 27 more") for w in shown)


def _blocked_pictures(app):
    """Hand ``app`` pictures drawn by a stand-in that waits for ``go`` (a picture a byte
    long); the stand-in's calls and its gate."""
    go = threading.Event()
    calls: list[object] = []

    def draw(shown):
        calls.append(shown)
        go.wait(30)
        return b"png"

    app.extensions["evening_pictures"] = EveningPictures(draw, queue=2)
    return calls, go


def test_past_the_queue_the_answer_is_a_typed_503_with_retry_after(live_hub, evening):
    app = create_app(live_hub.web_service(), {"TESTING": True})
    calls, go = _blocked_pictures(app)
    history.store_history(live_hub.store, history.generate(9, 1, first_year=2030))
    with ThreadPoolExecutor(2) as phones:
        waiting = [
            phones.submit(app.test_client().get, "/api/evening.png", headers=h)
            for h in ({"Accept-Language": "en"}, {"Accept-Language": "es"})
        ]
        assert eventually(lambda: len(calls) == 1)  # one drawing; the other waits its turn
        other = app.test_client().get(f"/api/evening.png?game={evening[0]}")
        go.set()
        assert [w.result().status_code for w in waiting] == [200, 200]
    assert other.status_code == 503 and other.headers["Retry-After"] == "5"
    assert other.get_json()["error"] == "picture_busy"
    assert other.get_json()["params"] == {"count": 5}
    assert "try again in 5 seconds" in other.get_json()["message"]
    assert len(calls) == 2


def test_a_failed_drawing_is_a_typed_503_and_the_next_ask_draws_again(live_hub, evening):
    app = create_app(live_hub.web_service(), {"TESTING": True})
    tries: list[int] = []

    def draw(shown):
        tries.append(1)
        if len(tries) == 1:
            raise subprocess.CalledProcessError(1, ["python"], stderr=b"MemoryError")
        return b"png"

    app.extensions["evening_pictures"] = EveningPictures(draw)
    failed = app.test_client().get("/api/evening.png", headers={"Accept-Language": "es"})
    assert failed.status_code == 503 and failed.get_json()["error"] == "picture_failed"
    assert failed.headers["Retry-After"] == "5" and "ETag" not in failed.headers
    assert app.test_client().get("/api/evening.png").data == b"png" and len(tries) == 2


def test_phones_asking_at_once_share_one_reading_of_the_evening():
    pictures = EveningPictures(lambda shown: b"png")
    go, reads = threading.Event(), []

    def read():
        reads.append(1)
        go.wait(30)
        return {"games": len(reads)}

    with ThreadPoolExecutor(16) as phones:
        asked = [phones.submit(pictures.shared, ("evening", None), read) for _ in range(16)]
        assert eventually(lambda: len(reads) == 1)
        go.set()
        assert [a.result() for a in asked] == [{"games": 1}] * 16
    assert len(reads) == 1
    assert pictures.shared(("evening", None), read) == {"games": 2}  # read again after

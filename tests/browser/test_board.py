"""The tournament board in headless Chromium: three simulated hubs (``mtrain-hub run
--backend sim --mqtt``) and ``mtrain-hub board`` on one real mosquitto."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from hub.wire.i18n import CATALOGS
from tests.browser.conftest import PHONE, Phone
from tests.helpers import until
from tests.http_client import HubProcess, ServerProcess

pytestmark = pytest.mark.browser


class BoardProcess(ServerProcess):
    """``mtrain-hub board`` as a subprocess on 127.0.0.1."""

    def __init__(self, url: str, log_path, *args: str) -> None:
        def command(port: int) -> list[str]:
            return [
                sys.executable,
                "-m",
                "hub.cli",
                "board",
                "--mqtt",
                url,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                *args,
            ]

        super().__init__("mtrain-hub board", command, log_path)


@pytest.fixture
def tournament(tmp_path, mosquitto):
    hubs = {
        name: HubProcess(tmp_path / name, "--mqtt", mosquitto.url, "--hub-id", name)
        for name in ("t1", "t2", "t3")
    }
    board = BoardProcess(mosquitto.url, tmp_path / "board.log")
    yield hubs, board
    assert board.stop() == 0
    for hub in hubs.values():
        hub.stop(signal.SIGKILL)


def test_the_board_follows_every_table(chromium, tournament, mosquitto):
    hubs, board = tournament
    tokens = {}
    seats = {"t1": ["Ann", "Bob"], "t2": ["Cy", "Di", "Ed"], "t3": ["Flo", "Gus"]}
    for name, players in seats.items():
        status, created = hubs[name].post("/api/games", {"players": players, "first": 1})
        assert status == 201
        tokens[name] = created
    context = chromium.new_context(viewport=PHONE, device_scale_factor=1)
    phone = Phone(context, board.base)
    page = phone.page
    try:
        page.goto(board.base + "/")
        page.wait_for_selector("article.card[data-hub='t3']")
        expect(page.locator("article.card")).to_have_count(3)  # the tables come one by one
        t2 = page.locator("article.card[data-hub='t2']")
        expect(t2.locator(".meta")).to_contain_text("Round 1 of 13")
        # A turn played at table 2 shows on the board, live.
        status, snapshot = hubs["t2"].post("/api/sim/slots/1/press", {"hold_ms": 0})
        assert status == 200
        whose = {s["slot"]: s["owner"] for s in snapshot["slots"]}[snapshot["turn"]]
        page.wait_for_function(
            "([hub, who]) => document.querySelector(`article[data-hub='${hub}'] .turn`)"
            ".textContent.startsWith(who)",
            arg=["t2", whose],
        )
        # Scores at two tables make the tournament standings, lowest first.
        for name, points in (("t1", {"Ann": 0, "Bob": 30}), ("t3", {"Flo": 5, "Gus": 0})):
            game = tokens[name]
            status, _ = hubs[name].post(
                f"/api/games/{game['id']}/rounds/1/scores",
                {"points": points, "mid_round": True},
                token=game["token"],
            )
            assert status == 200, _
        # Every player has a row from the start (unplaced): wait for both tables' totals,
        # which come from two hubs in either order.
        page.wait_for_function("""() => {
            const points = (name) => document.querySelector(
                `#standings tr[data-player='${name}'] td:nth-child(4)`)?.textContent;
            return points("Bob") === "30" && points("Flo") === "5"; }""")
        rows = page.locator("#standings tbody tr")
        assert rows.nth(0).get_attribute("data-player") in ("Ann", "Gus")
        assert rows.nth(2).get_attribute("data-player") == "Flo"
        assert rows.count() == 7 and rows.nth(3).get_attribute("data-player") == "Bob"
        assert page.locator("#provisional").is_visible()  # t2 scored no round yet
        assert page.locator("#link").inner_text() == "Live"
        # A table whose hub dies is shown offline, not dropped.
        hubs["t3"].stop(signal.SIGKILL)
        page.wait_for_selector("article.card[data-hub='t3'][data-online='false']")
        assert page.locator("article.card").count() == 3
        page.wait_for_selector("#standings tr.offline[data-player='Flo']")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"]  # no sideways scrolling on a phone
        phone.shot("board")
        # Each hub's own scorepad says it reaches the broker.
        scorepad = Phone(chromium.new_context(viewport=PHONE), hubs["t1"].base)
        scorepad.open()
        scorepad.page.wait_for_selector("#mqtt[data-connected='true']")
        assert "connected" in scorepad.page.locator("#mqtt").inner_text()
        # The broker dies: the board and the scorepad both say so.
        mosquitto.kill()
        scorepad.page.wait_for_selector("#mqtt[data-connected='false']")
        # Not wait_for_function("<expression>"): Playwright evals an expression on each
        # re-check, which the board's Content-Security-Policy refuses (no 'unsafe-eval').
        expect(page.locator("#link")).to_have_text("Broker unreachable", timeout=30_000)
        assert page.locator("article.card").count() == 3
        scorepad.context.close()
        assert not scorepad.errors and not scorepad.foreign
    finally:
        context.close()
    assert not phone.foreign, phone.foreign
    assert not phone.errors, phone.errors


def test_pages_beyond_the_live_places_update_every_few_seconds(chromium, tmp_path, mosquitto):
    hub = HubProcess(tmp_path / "t1", "--mqtt", mosquitto.url, "--hub-id", "t1")
    # 5 web threads, 4 kept for page loads: one live page.
    board = BoardProcess(mosquitto.url, tmp_path / "board.log", "--threads", "5")
    first = Phone(chromium.new_context(viewport=PHONE), board.base)
    second = Phone(chromium.new_context(viewport=PHONE), board.base)
    second.allowed.append("503")  # the browser logs the refused stream
    try:
        status, _ = hub.post("/api/games", {"players": ["Ann", "Bob"], "first": 1})
        assert status == 201
        first.page.goto(board.base + "/")
        first.page.wait_for_selector("article.card[data-hub='t1']")
        expect(first.page.locator("#link")).to_have_text("Live")
        second.page.goto(board.base + "/")  # refused live: fetches the board instead
        second.page.wait_for_selector("article.card[data-hub='t1']")
        expect(second.page.locator("#link")).to_have_text("Every 5 s")
        status, snapshot = hub.post("/api/sim/slots/1/press", {"hold_ms": 0})
        assert status == 200
        whose = {s["slot"]: s["owner"] for s in snapshot["slots"]}[snapshot["turn"]]
        for phone in (first, second):  # live on the first, within 5 s on the second
            expect(phone.page.locator("article.card[data-hub='t1'] .turn")).to_contain_text(
                whose, timeout=15_000
            )
        # The first page goes. Waitress sees it gone only when writing to it fails (the
        # second or third write after, news or the 15 s keep-alive); then its place is
        # free and the second page's next try (every 5 s) gets it.
        first.context.close()
        turn = [snapshot["turn"]]

        def live_after_a_turn() -> bool:
            if second.page.locator("#link").inner_text() == "Live":
                return True
            # The turn passes: a new state, so the board writes to every page.
            status, now = hub.post(f"/api/sim/slots/{turn[0]}/press", {"hold_ms": 0})
            assert status == 200
            turn[0] = now["turn"]
            return False

        until(live_after_a_turn, "the place to come free", 60, every=0.5)
        assert not second.errors, second.errors
        assert not first.foreign and not second.foreign
    finally:
        second.context.close()
        assert board.stop() == 0
        hub.stop(signal.SIGKILL)


STATIC = Path(__file__).resolve().parents[2] / "hub" / "board" / "static"
GOOD = {
    "hub_id": "good",
    "online": True,
    "round": 2,
    "rounds": 13,
    "engine": 11,
    "phase": "play",
    "turn": "Ann",
    "players": [{"name": "Ann", "total": 5}],
    "standings": ["Ann"],
    "winner": None,
}
HOSTILE = [
    {"hub_id": "a", "phase": 3, "round": 1, "players": [{"name": "Bo", "total": "x"}]},
    {"hub_id": "b", "phase": True, "round": "2", "rounds": {}, "engine": [], "players": None},
    {"hub_id": "c", "players": [None, 7, {"name": 3}], "standings": [1, None], "turn": 5},
    {"hub_id": 7},
    None,
    "text",
    [],
]


def test_the_page_survives_any_json_the_board_serves(chromium):
    """Whatever the board sends, the good table shows and nothing throws."""
    view = {
        "version": 1,
        "connected": True,
        "tables": [*HOSTILE, GOOD],
        "standings": [
            {"name": "Ann", "hub_id": "good", "place": 1, "points": 5, "rounds": 1, "won": 0},
            {"name": 5},
            None,
            {"place": "1"},
        ],
    }
    update = {
        "version": 2,
        "connected": True,
        "tables": [{"hub_id": "d", "phase": 0}, 5],
        "standings": "no",
    }
    stream = (
        f"event: board\ndata: {json.dumps(view)}\n\nevent: tables\ndata: {json.dumps(update)}\n\n"
    )

    def serve(route) -> None:
        path = urlsplit(route.request.url).path
        if path == "/":
            route.fulfill(path=STATIC / "board.html")
        elif path.startswith("/static/"):
            route.fulfill(path=STATIC / path.removeprefix("/static/"))
        elif path.startswith("/i18n/"):  # the words, as the board serves them
            route.fulfill(path=CATALOGS / path.removeprefix("/i18n/"))
        elif path == "/api/board/events":
            route.fulfill(status=200, content_type="text/event-stream", body=stream)
        else:
            route.fulfill(status=200, content_type="application/json", body=json.dumps(view))

    context = chromium.new_context(viewport=PHONE)
    errors: list[str] = []
    try:
        context.route("**/*", serve)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto("http://board.test/")
        page.wait_for_selector("article.card[data-hub='d']")
        good = page.locator("article.card[data-hub='good']")
        expect(good.locator(".meta")).to_have_text("Round 2 of 13 · engine double-11 · play")
        expect(page.locator("article.card[data-hub='a'] .meta")).to_have_text("Round 1")
        expect(page.locator("#standings tbody tr")).to_have_count(1)
        assert page.locator("article.card").count() == 5  # a, b, c, d and good
    finally:
        context.close()
    assert not errors, errors


def test_the_board_speaks_the_browsers_language(chromium, tmp_path, mosquitto):
    """In Spanish (es-MX) every word of the board and of a table's card comes from the
    Spanish catalog, with no English catalog words left; <html lang> says so."""
    from tests.browser.test_language import english_left

    hub = HubProcess(tmp_path / "t1", "--mqtt", mosquitto.url, "--hub-id", "t1")
    board = BoardProcess(mosquitto.url, tmp_path / "board.log")
    phone = Phone(chromium.new_context(viewport=PHONE, locale="es-MX"), board.base)
    try:
        status, _ = hub.post("/api/games", {"players": ["Ann", "Bob"], "first": 1})
        assert status == 201
        page = phone.page
        page.goto(board.base + "/")
        page.wait_for_selector("article.card[data-hub='t1']")
        expect(page.locator("html")).to_have_attribute("lang", "es")
        expect(page.locator("h1")).to_have_text("Tabla del torneo")
        expect(page.locator("#link")).to_have_text("En vivo")
        expect(page.locator("article.card[data-hub='t1'] .meta")).to_contain_text("Ronda 1 de 13")
        seen = page.evaluate("() => document.title + '\\n' + document.body.innerText")
        assert not english_left(seen), english_left(seen)
        assert not phone.errors and not phone.foreign, (phone.errors, phone.foreign)
    finally:
        phone.context.close()
        assert board.stop() == 0
        hub.stop(signal.SIGKILL)

"""The page asks for what it shows (issue 33, item 10): with years of games kept, the
Scores tab with no game running asks for the newest game alone, and the Games view
lists a page at a time, "Older games" bringing the next until there is none."""

from __future__ import annotations

import signal

import pytest
from playwright.sync_api import expect

from tests.http_client import HubProcess
from tests.many_games import fill


@pytest.fixture
def hub(tmp_path):
    """``mtrain-hub run --backend sim`` whose store holds 45 finished games."""
    state = tmp_path / "state"
    state.mkdir()
    fill(state / "games.db", 45)
    process = HubProcess(state)
    yield process
    process.stop(signal.SIGKILL)


def test_the_page_asks_for_a_page_of_games_not_every_game(phones):
    phone = phones()
    page = phone.page
    asked: list[str] = []
    page.on(
        "request",
        lambda r: (
            asked.append(r.url) if "/api/games?" in r.url or r.url.endswith("/api/games") else None
        ),
    )
    phone.open("/#/scores")
    expect(page.locator("#scores")).to_contain_text("Game 45")  # the newest, finished
    assert [url.split("/api/")[1] for url in asked] == ["games?limit=1"]

    asked.clear()
    page.click(".tabs a[href='#/games']")
    items, more = page.locator("#games li"), page.locator("#games-more")
    expect(items).to_have_count(20)
    expect(items.first).to_contain_text("Game 45")
    expect(more).to_be_visible()
    more.click()
    expect(items).to_have_count(40)
    more.click()
    expect(items).to_have_count(45)
    expect(items.last).to_contain_text("Game 1")
    expect(more).to_be_hidden()  # the last page names no next one
    assert [url.split("/api/")[1] for url in asked] == [
        "games?limit=20",
        "games?before=26&limit=20",
        "games?before=6&limit=20",
    ]

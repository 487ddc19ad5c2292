"""The page with ``hide_stats`` on, in Chromium (issue 33, item 9): a viewer's list of
games shows past games without their winner or links and says why, in English and in
Spanish; a past game's scores answer the hub's refusal in words; the scorekeeper's
phone sees everything."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_players_pages import _play

pytestmark = pytest.mark.browser

HIDDEN = {
    "en": ("Its scores are hidden from viewers", "The statistics are hidden from viewers"),
    "es": ("Sus puntuaciones están ocultas", "Las estadísticas están ocultas"),
}


@pytest.fixture
def hidden(hub):
    """Two finished games, a third on the table (its token returned), hide_stats on."""
    _play(hub, ["Ann", "Bob"], {"Ann": 0, "Bob": 12}, "Ann")
    _play(hub, ["Cid", "Dee"], {"Cid": 0, "Dee": 9}, "Cid")
    status, made = hub.post("/api/games", {"players": ["Eve", "Fay"], "rules": "consensus"})
    assert status == 201
    status, _ = hub.post("/api/settings", {"hide_stats": True}, made["token"])
    assert status == 200
    return made


@pytest.mark.parametrize(("locale", "lang"), [("en-US", "en"), ("es-MX", "es")])
def test_a_viewer_sees_past_games_without_their_scores(phones, hidden, locale, lang):
    note, refused = HIDDEN[lang]
    phone = phones(locale=locale)
    phone.allowed.append("401 (UNAUTHORIZED)")  # the refusal of a past game's scores
    page = phone.page
    phone.open("/#/games")
    items = page.locator("#games li[data-key]")
    expect(items).to_have_count(3)
    for key in ("g1", "g2"):
        past = page.locator(f"#games li[data-key='{key}']")
        expect(past).to_contain_text(note)
        expect(past.locator("a")).to_have_count(0)
        expect(past).not_to_contain_text("Ann won")
    expect(page.locator("#games li[data-key='g3'] a")).to_have_count(3)  # the table's game
    phone.shot(f"games-hidden-{lang}")
    phone.open("/#/scores/1")
    expect(page.locator("#scores .err")).to_contain_text(refused)
    phone.open("/#/scores/3")
    expect(page.locator("#scores .standings")).to_contain_text("Eve")


def test_the_scorekeepers_phone_sees_every_game(phones, hidden):
    phone = phones()
    page = phone.page
    phone.open("/")
    page.evaluate(
        "([id, token]) => localStorage.setItem('mtrain.tokens', JSON.stringify({[id]: token}))",
        [hidden["id"], hidden["token"]],
    )
    phone.open("/#/games")
    expect(page.locator("#games li[data-key]")).to_have_count(3)
    expect(page.locator("#games li[data-key='g1']")).to_contain_text("Ann won")
    expect(page.locator("#games li[data-key='g1'] a")).to_have_count(3)
    phone.open("/#/scores/1")
    expect(page.locator("#scores .winner")).to_contain_text("Ann")

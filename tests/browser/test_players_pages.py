"""The players' pages in Chromium, in English and in Spanish (context locale es-MX):
a player's page with its chart, two players head to head, the season table, the
list, and the remembered names offered at a new game."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

WORDS = {
    "en": {
        "wins": "Wins",
        "chart": "Over time",
        "versus": "Ann vs Bob",
        "season": "Season",
        "together": "2 games together.",
        "offer": "Played here before",
    },
    "es": {
        "wins": "Victorias",
        "chart": "Con el tiempo",
        "versus": "Ann contra Bob",
        "season": "Temporada",
        "together": "2 partidas juntos.",
        "offer": "Ya jugaron aquí",
    },
}


def _play(hub, players, points, out):
    """One finished one-round game through the API."""
    status, made = hub.post("/api/games", {"players": players, "rules": "consensus", "rounds": 1})
    assert status == 201, made
    body = {"points": points, "went_out": out, "mid_round": True}
    status, game = hub.post(f"/api/games/{made['id']}/rounds/1/scores", body, made["token"])
    assert status == 200 and game["finished"], game


@pytest.fixture
def evenings(hub):
    _play(hub, ["Ann", "Bob", "Cid"], {"Ann": 0, "Bob": 12, "Cid": 30}, "Ann")
    _play(hub, ["bob", "ANN"], {"bob": 0, "ANN": 9}, "bob")
    status, listed = hub.get("/api/players")
    assert status == 200
    return {p["name"]: p["id"] for p in listed}


@pytest.mark.parametrize(("locale", "lang"), [("en-US", "en"), ("es-MX", "es")])
def test_the_players_pages_in_each_language(phones, evenings, locale, lang):
    words = WORDS[lang]
    phone = phones(locale=locale)
    page = phone.page
    phone.open(f"/#/player/{evenings['Ann']}")
    expect(page.locator("#h-player")).to_have_text("Ann")
    expect(page.locator("#v-player")).to_contain_text(words["wins"])
    expect(page.locator("#v-player")).to_contain_text(words["chart"])
    expect(page.locator("#v-player svg.chart polyline")).to_have_count(2)
    assert page.locator("html").get_attribute("lang") == lang
    phone.open(f"/#/versus/{evenings['Ann']}-{evenings['Bob']}")
    expect(page.locator("#h-versus")).to_have_text(words["versus"])
    expect(page.locator("#v-versus")).to_contain_text(words["together"])
    phone.open("/#/season")
    expect(page.locator("#h-season")).to_have_text(words["season"])
    rows = page.locator("#v-season tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("Ann")  # one win each, level on places: by name
    phone.shot(f"players-season-{lang}")
    phone.open("/#/players")
    expect(page.locator("#v-players li")).to_have_count(3)
    page.select_option("#vs-a", str(evenings["Cid"]))
    page.select_option("#vs-b", str(evenings["Bob"]))
    page.locator("#versus-pick button").click()
    expect(page.locator("#h-versus")).to_contain_text("Cid")


def test_a_new_game_offers_the_remembered_names(phones, evenings):
    phone = phones()
    phone.open("/#/new")
    expect(phone.page.locator("#known")).to_contain_text(WORDS["en"]["offer"])
    chips = phone.page.locator("#known [data-known]")
    expect(chips).to_have_count(3)
    expect(chips.first).to_have_text("Ann")  # the newest game's, in seat order
    chips.nth(2).click()
    expect(phone.page.locator("#f-players input[data-name='0']")).to_have_value("Cid")


@pytest.mark.parametrize(("locale", "title"), [("en-US", "Evening of"), ("es-MX", "Noche del")])
def test_the_evening_summary_after_the_last_game(phones, evenings, locale, title):
    phone = phones(locale=locale)
    page = phone.page
    phone.open("/#/scores/2")
    page.locator("#evening-link a").click()
    expect(page.locator("#h-evening")).to_contain_text(title)
    expect(page.locator("#v-evening li[data-key]")).to_have_count(2)
    picture = page.request.get(phone.base + "/api/evening.png?game=2")
    assert picture.ok and picture.headers["content-type"] == "image/png"
    assert picture.body()[:8] == b"\x89PNG\r\n\x1a\n"


def test_renaming_needs_the_scorekeeper_and_then_changes_every_game(phones, hub, evenings):
    phone = phones()
    phone.allowed.append("401 (UNAUTHORIZED)")  # the refusal this test asks for
    page = phone.page
    phone.open(f"/#/player/{evenings['Cid']}")
    page.fill("#p-name", "Cyd")
    page.locator("#p-rename button").click()
    expect(page.locator("#e-player")).to_contain_text("only a phone the table trusts can do that")
    assert hub.get(f"/api/players/{evenings['Cid']}")[1]["name"] == "Cid"
    status, made = hub.post("/api/games", {"players": ["Dee", "Eve"], "rules": "consensus"})
    assert status == 201
    page.evaluate(
        "([id, token]) => localStorage.setItem('mtrain.tokens', JSON.stringify({[id]: token}))",
        [made["id"], made["token"]],
    )
    phone.open(f"/#/player/{evenings['Cid']}")
    page.fill("#p-name", "Cyd")
    page.locator("#p-rename button").click()
    expect(page.locator("#h-player")).to_have_text("Cyd")
    assert hub.get("/api/games/1")[1]["players"] == ["Ann", "Bob", "Cyd"]

"""Issue 24's voice on the page: the scorekeeper chooses what the hub says, its
language and how it says a name; the hub keeps it (headless Chromium, a real hub)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Siobhan", "Cid"]


def test_the_scorekeeper_sets_the_voice_and_a_spelling(hub, phones):
    _, created = hub.post("/api/games", {"players": PLAYERS, "first": 1})
    phone = phones()
    phone.open(f"/#claim={created['id']}:{created['token']}")
    expect(phone.page.locator("#role")).to_have_text("Scorekeeper")
    page = phone.page
    page.goto(hub.base + "/#/join")
    expect(page.locator("#s-voice-label")).to_have_text("Voice")
    expect(page.locator("#s-voice")).to_have_value("turns")  # the hub's default
    expect(page.locator("#s-voice option:checked")).to_have_text("Turns only")
    spell = page.locator("#s-spell input")
    expect(spell).to_have_count(3)  # one per player of the game on the table
    page.select_option("#s-voice", "all")
    page.select_option("#s-voice_language", "es")
    page.locator("#s-spell input[data-name='Siobhan']").fill("Shivawn")
    page.click("#settings [type=submit]")
    expect(page.locator(".toast").last).to_contain_text("Settings saved")
    _, settings = hub.get("/api/settings")
    assert settings["voice"] == "all" and settings["voice_language"] == "es"
    assert settings["spoken_names"] == {"Siobhan": "Shivawn"}
    # a viewer sees the spelling, and cannot change it
    viewer = phones()
    viewer.open("/#/join")
    field = viewer.page.locator("#s-spell input[data-name='Siobhan']")
    expect(field).to_have_value("Shivawn")
    expect(field).to_be_disabled()

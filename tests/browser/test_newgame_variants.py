"""The new-game form and issue 24, item 10: no Mexican slot for a profile without a
Mexican Train (``triples``), and the consensus variations ``continuous_draw`` and
``doubled_doubles`` as switches with their one-line words, in English and Spanish."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CATALOGS = Path(__file__).resolve().parents[2] / "web" / "static" / "i18n"


def fill_four(page) -> None:
    expect(page.locator("#add-player")).to_be_enabled()
    expect(page.locator("#f-players li")).to_have_count(4)
    for i, name in enumerate(["Ann", "Bob", "Cid", "Dee"]):
        page.fill(f"input[data-name='{i}']", name)


def test_triples_offers_no_mexican_slot_and_starts_without_one(hub, phones):
    phone = phones()
    page = phone.page
    phone.open("/#/new")
    fill_four(page)
    expect(page.locator("#seat-mex")).to_be_visible()  # consensus, the default: one
    expect(page.locator("#seat-hub .mexican")).to_have_count(1)
    page.check("#f-rules input[value='triples']")
    expect(page.locator("#seat-mex")).to_be_hidden()
    expect(page.locator("#no-mex")).to_be_hidden()
    expect(page.locator("#seat-hub .mexican")).to_have_count(0)
    page.click("#new [type=submit]")
    expect(page.locator("#v-table")).to_be_visible()
    _, state = hub.get("/api/state")
    assert state["game"]["rules"] == "triples"
    assert state["game"]["mexican_slot"] is None and state["mexican_at"] is None
    assert not any(slot["owner"] == "mexican" for slot in state["slots"])
    page.goto(phone.base + "/#/new")  # back to consensus: the train has its slot again
    page.check("#f-rules input[value='consensus']")
    expect(page.locator("#seat-mex")).to_be_visible()


@pytest.mark.parametrize("locale", ["en-US", "es-MX"])
def test_the_two_variations_are_switches_with_their_words(hub, phones, locale):
    lang = locale[:2]
    words = json.loads((CATALOGS / f"{lang}.json").read_text())
    phone = phones(locale=locale)
    page = phone.page
    phone.open("/#/new")
    fill_four(page)
    page.check("#f-rules input[value='consensus']")
    for option in ("continuous_draw", "doubled_doubles"):
        box = page.locator(f"#f-{option}")
        expect(box).to_be_enabled()
        expect(page.locator(f"[data-key='o-{option}']")).to_contain_text(words[f"option.{option}"])
    page.check("#f-rules input[value='triples']")  # consensus only
    expect(page.locator("#f-doubled_doubles")).to_be_disabled()
    page.check("#f-rules input[value='consensus']")
    page.check("#f-doubled_doubles")
    page.click("#new [type=submit]")
    expect(page.locator("#v-table")).to_be_visible()
    _, games = hub.get("/api/games")
    newest = max(games["games"] if isinstance(games, dict) else games, key=lambda g: g["id"])
    _, game = hub.get(f"/api/games/{newest['id']}")
    assert game["options"]["doubled_doubles"] is True

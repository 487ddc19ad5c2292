"""Issue 23, the scorekeeper's phone that cannot trip anyone: each item the family
evening found, in headless Chromium against a real hub."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cid"]


def _keeper(hub, phones, path="/#/round"):
    """A game of three started over the API; a phone holding its token, at ``path``."""
    _, created = hub.post("/api/games", {"players": PLAYERS, "first": 1})
    phone = phones()
    phone.open(f"/#claim={created['id']}:{created['token']}")
    expect(phone.page.locator("#role")).to_have_text("Scorekeeper")
    phone.page.goto(hub.base + path)
    return phone, created


def _type(page, digits: str) -> None:
    for digit in digits:
        page.click(f".pad [data-key='{digit}']")


def test_item_1_a_round_in_play_needs_a_second_step_and_went_out_a_choice(hub, phones):
    phone, created = _keeper(hub, phones)
    phone.allowed.append("status of 409")
    page = phone.page
    # "Went out" is not silently "nobody": nothing is chosen until someone chooses.
    expect(page.locator("#r-out")).to_have_value("")
    expect(page.locator("#r-out option:checked")).to_have_text("Choose who went out")
    _type(page, "5")
    page.click(".pad [data-key='Next']")
    _type(page, "7")
    page.click(".pad [data-key='Next']")
    _type(page, "0")
    page.click("#r-save")
    expect(page.locator("#e-went_out")).to_contain_text("Choose who went out")
    assert hub.get(f"/api/games/{created['id']}")[1]["rounds"][0]["finished"] is False
    page.select_option("#r-out", " ")  # Nobody: the round was blocked
    expect(page.locator("#e-went_out")).to_have_text("")
    page.click("#r-save")
    # The hub still plays round 1: refused in plain words, Save becomes the second step.
    expect(page.locator("#e-round")).to_contain_text("Round 1 is still being played")
    expect(page.locator("#r-save")).to_have_text("Yes, save round 1 now, while it is still played")
    assert hub.get(f"/api/games/{created['id']}")[1]["rounds"][0]["finished"] is False
    page.click("#r-save")
    expect(page.locator(".standings")).to_be_visible()
    game = hub.get(f"/api/games/{created['id']}")[1]
    assert game["rounds"][0]["points"] == {"Ann": 5, "Bob": 7, "Cid": 0}
    assert game["rounds"][0]["blocked"] and game["round"] == 2

"""The new-game form before the hub's rules arrive: its buttons wait for them.

Found by tests/browser/test_names.py on a loaded machine: a tap on "Add a player" while
``GET /api/rules`` was on its way threw (``N.rules`` was still null) and left the form
with the tapped rows instead of the usual four. Here the rules are held back until the
taps are done, so the race is the same on every run.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_form_waits_for_the_rules_before_a_tap_counts(phones):
    phone = phones()
    page = phone.page
    held = []

    def hold(route):  # answered only when the test says so
        held.append(route)

    page.route("**/api/rules", hold)
    with page.expect_request("**/api/rules"):
        phone.open("/#/new")
    add, start = page.locator("#add-player"), page.locator("#new [type=submit]")
    expect(add).to_be_disabled()
    expect(start).to_be_disabled()
    add.click(force=True)  # a quick tap on a slow hub: nothing happens
    add.click(force=True)
    expect(page.locator("#f-players li")).to_have_count(0)
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#f-players li")).to_have_count(4)  # the usual four rows
    expect(add).to_be_enabled()
    expect(start).to_be_enabled()
    add.click()
    expect(page.locator("#f-players li")).to_have_count(5)
    page.unroute("**/api/rules", hold)

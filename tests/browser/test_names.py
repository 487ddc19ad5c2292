"""A name is plain data on every view: names that mean something to JavaScript or HTML,
right-to-left text, emoji and 24 characters, through the new-game form, the table,
round entry by points and by tiles, the scores, the games list and the export."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.test_scorepad import pick_tiles
from tests.http_client import HubProcess

pytestmark = pytest.mark.browser


@pytest.fixture
def hub(tmp_path):
    """The voice off: this test is about names as data on every view. With the voice on,
    a name that takes over 3 s to say is refused ("x" * 24 takes 5.8 s in espeak-ng's
    English): tests/voice/test_voice_churn.py holds that rule."""
    process = HubProcess.configured(tmp_path, '[sound]\nvoice = "off"\n')
    yield process
    process.stop(signal.SIGKILL)


NAMES = [
    "__proto__",
    "constructor",
    "toString",
    "<img src=x onerror=f()>",
    '"quoted"',
    "مريم",
    "🦊 Fox",
    "x" * 24,
]


def _start(phone) -> None:
    page = phone.page
    phone.open("/#/new")
    for _ in range(len(NAMES) - 4):
        page.click("#add-player")
    for i, name in enumerate(NAMES):
        page.fill(f"input[data-name='{i}']", name)
    page.click("#new [type=submit]")
    expect(page.locator("#v-table")).to_be_visible()
    expect(page.locator("#role")).to_have_text("Scorekeeper")


def _pad(page, index: int, digits: str) -> None:
    page.click(f".hand[data-i='{index}'] .who")
    for digit in digits:
        page.click(f".pad [data-key='{digit}']")


def _save_mid_round(page, round_no: int) -> None:
    """The table still plays the round: Save is refused (409), then saved on purpose."""
    page.click("#r-save")
    expect(page.locator("#e-round")).to_contain_text(f"Round {round_no} is still being played")
    expect(page.locator("#r-save")).to_have_text(
        f"Yes, save round {round_no} now, while it is still played"
    )
    page.click("#r-save")


def test_any_name_works_on_every_view(hub, phones):
    keeper = phones()
    keeper.allowed.append("409")  # the round still in play, before the second step
    page = keeper.page
    page.on("dialog", lambda d: pytest.fail(f"a dialog opened: {d.message}"))
    _start(keeper)
    _, state = hub.get("/api/state")
    owners = {s["slot"]: s["owner"] for s in state["slots"] if s["owner"] in NAMES}
    assert sorted(owners.values()) == sorted(NAMES)
    for slot, name in owners.items():
        expect(page.locator(f"#hub .slot[data-slot='{slot}']")).to_have_attribute(
            "aria-label", f"Slot {slot}: {name}" + (", their turn" if slot == state["turn"] else "")
        )
    keeper.shot("names-table")

    # Round 1 by points: __proto__ went out, everyone else holds 1, 2, 3, ...
    page.goto(hub.base + "/#/round")
    page.select_option("#r-out", NAMES[0])
    expect(page.locator("#r-out")).to_have_value(NAMES[0])
    for i in range(1, len(NAMES)):
        _pad(page, i, str(i))
    for i, name in enumerate(NAMES):
        expect(page.locator(f".hand[data-i='{i}'] .who")).to_contain_text(name)
    _save_mid_round(page, 1)
    grid = page.locator(".grid-table tbody tr")
    expect(grid.nth(0).locator("td.out")).to_have_text("0★")  # round 1 is stored
    expect(page.locator(".standings tbody tr")).to_have_count(len(NAMES))
    heads = page.locator(".grid-table thead th").all_inner_texts()
    assert [h for h in heads if h in NAMES] == NAMES
    standings = page.locator(".standings tbody tr").all_inner_texts()
    assert NAMES[0] in standings[0] and NAMES[7] in standings[7]
    keeper.shot("names-scores")

    # Round 2 by tiles: constructor went out; each other hand holds one tile.
    page.click(".tabs a[href='#/round']")
    expect(page.locator("#r-save")).to_have_text("Save round 2")
    page.select_option("#r-out", NAMES[1])
    page.check("input[name=mode][value=tiles]")
    tiles = ["6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-5"]
    others = [i for i in range(len(NAMES)) if i != 1]
    for i, tile in zip(others, tiles, strict=True):
        pick_tiles(page, i, [tile])
    _save_mid_round(page, 2)
    # The grid showed round 2 unscored before the save: wait for it scored (and round 3
    # opened) before reading the game from the API.
    expect(grid.nth(1).locator("td.out")).to_have_text("0★")
    expect(grid).to_have_count(3)

    _, game = hub.get("/api/games/1")
    assert game["players"] == NAMES
    assert game["rounds"][0]["points"] == {name: i for i, name in enumerate(NAMES)}
    assert game["rounds"][0]["went_out"] == NAMES[0]
    pips = {
        name: sum(map(int, tile.split("-")))
        for name, tile in zip([NAMES[i] for i in others], tiles, strict=True)
    }
    assert game["rounds"][1]["points"] == {**pips, NAMES[1]: 0}

    page.click(".tabs a[href='#/games']")
    expect(page.locator("#games li")).to_have_count(1)
    expect(page.locator("#games li")).to_contain_text(", ".join(NAMES))
    with page.expect_download() as download:
        page.click("#games a[href='/api/games/1/export.csv']")
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert all(name.replace('"', '""') in text for name in NAMES)
    keeper.shot("names-games")
    assert page.evaluate("document.querySelectorAll('img[src=x], img[onerror]').length") == 0

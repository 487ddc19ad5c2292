"""The scorepad updates in place: focus survives another phone's press, the virtual hub is
a real dialog, a tile tap fetches nothing, field errors are tied to their input, and a
reload fetches nothing unchanged."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cid", "Dee"]


def focused(page) -> str:
    """What has focus: the slot number of a hub slot, else the element's id."""
    return page.evaluate("""() => { const a = document.activeElement;
        return a.dataset && a.dataset.slot ? 'slot ' + a.dataset.slot : a.id; }""")


def test_a_focused_slot_keeps_focus_while_another_phone_presses(hub, phones):
    hub.post("/api/games", {"players": PLAYERS, "first": 1})
    phone = phones()
    page = phone.page
    phone.open("/")
    page.check("#sim-on")
    page.focus("#hub .slot[data-slot='1']")
    for _ in range(2):  # Tab on to slot 3
        page.keyboard.press("Tab")
    assert focused(page) == "slot 3"
    page.evaluate("document.activeElement.stillTheSameNode = true")
    for slot, turn in [(1, "2"), (2, "3")]:  # the table plays on: the picture changes
        hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 0})
        expect(page.locator("#hub")).to_have_attribute("data-turn", turn)
    expect(page.locator("#hub .slot[data-slot='3']")).to_have_class("slot player turn tappable")
    assert focused(page) == "slot 3"
    assert page.evaluate("document.activeElement.stillTheSameNode === true")
    page.keyboard.press("Enter")  # the same slot still works from the keyboard
    expect(page.locator("#sheet")).to_have_js_property("open", True)


def test_the_virtual_hub_is_a_dialog(hub, phones):
    hub.post("/api/games", {"players": PLAYERS, "first": 1})
    phone = phones()
    page = phone.page
    phone.open("/")
    sheet = page.locator("#sheet")
    assert page.evaluate("document.getElementById('sheet').tagName") == "DIALOG"
    expect(sheet).to_be_hidden()
    page.check("#sim-on")
    page.focus("#hub .slot[data-slot='1']")
    page.keyboard.press("Enter")
    expect(sheet).to_be_visible()
    assert focused(page) == ""  # the first button of the dialog ...
    assert page.evaluate("document.activeElement.dataset.press") == "tap"
    expect(page.locator("#sheet-title")).to_have_text("Slot 1 · Ann")
    page.keyboard.press("Enter")  # ... taps: Bob's turn
    expect(page.locator("#hub")).to_have_attribute("data-turn", "2")
    expect(page.locator("#sheet [data-press='tap']")).to_be_focused()
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    assert focused(page) == "slot 1"  # back where it was opened from
    expect(page.locator("#hub .slot.selected")).to_have_count(0)

    page.click("#hub .slot[data-slot='2']")  # by touch: the close button closes too
    expect(sheet).to_be_visible()
    page.click("#sheet-close")
    expect(sheet).to_be_hidden()
    assert focused(page) == "slot 2"


def test_a_tile_tap_fetches_nothing(hub, phones):
    _, game = hub.post("/api/games", {"players": PLAYERS[:3], "first": 1})
    phone = phones()
    page = phone.page
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    phone.open(f"/#claim={game['id']}:{game['token']}")
    page.click(".tabs a[href='#/round']")
    expect(page.locator("#r-history")).to_have_text("No scores yet.")
    page.check("input[name=mode][value=tiles]")
    page.click(".hand[data-i='1'] .who")
    before = len(requests)
    page.focus(".dom[data-tile='6-5']")
    page.keyboard.press("Enter")
    page.click(".dom[data-tile='3-3']")
    page.click(".hand[data-i='2'] .who")
    page.click(".dom[data-tile='2-1']")
    expect(page.locator("#p1")).to_have_value("17")
    expect(page.locator("#p2")).to_have_value("3")
    assert requests[before:] == []
    # The pressed tile kept focus through the update (the grid was patched, not rebuilt).
    page.click(".hand[data-i='1'] .who")
    page.focus(".dom[data-tile='4-4']")
    page.keyboard.press("Enter")
    expect(page.locator(".dom[data-tile='4-4']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".dom[data-tile='4-4']")).to_be_focused()
    assert requests[before:] == []
    hub.post(
        f"/api/games/{game['id']}/rounds/1/scores",
        {"points": {"Ann": 0, "Bob": 5, "Cid": 7}, "went_out": "Ann", "mid_round": True},
        token=phone.token(game["id"]),  # the phone took the link's token over
    )
    expect(page.locator("#r-history")).to_contain_text("Bob: 5")  # a score change does


def test_field_errors_are_tied_to_their_input(hub, phones):
    phone = phones()
    phone.allowed.append("status of 400")
    page = phone.page
    phone.open("/#/new")
    for i, name in enumerate(["Ann", "Bob", "Cid"]):
        page.fill(f"input[data-name='{i}']", name)
    page.click("button[data-remove='3']")
    page.check("#f-rules input[value='consensus']")  # 13 rounds at most (aces: 99)
    page.fill("#f-rounds", "40")
    page.click("#new [type=submit]")
    error = page.locator("#e-rounds")
    expect(error).to_contain_text("40")
    expect(page.locator("#f-rounds")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#f-rounds")).to_have_attribute("aria-describedby", "e-rounds")
    description = page.evaluate("""() => { const i = document.getElementById('f-rounds');
        return document.getElementById(i.getAttribute('aria-describedby')).textContent; }""")
    assert description == error.inner_text()
    page.fill("#f-rounds", "")
    page.fill("input[data-name='1']", "")  # caught on the phone, tied the same way
    page.click("#new [type=submit]")
    expect(page.locator("#f-rounds")).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("input[data-name='1']")).to_have_attribute("aria-describedby", "e-players")
    expect(page.locator("#e-players")).to_contain_text("Player 2 has no name")


def test_a_reload_fetches_nothing_unchanged(hub, chromium):
    """A phone that reloads gets 304 for every file: only what changed comes again.
    (Its own context: the other tests' request guard turns the browser's cache off.)"""
    from tests.browser.conftest import PHONE

    context = chromium.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        seen: list[str] = []
        page.on("request", lambda request: seen.append(request.url))
        page.goto(hub.base + "/#/scores")  # a lazily loaded view too
        expect(page.locator("#scores")).to_contain_text("No game yet")
        # Every file of the first load in the cache before the reload: the ring's module
        # comes with the first snapshot, and a reload before it had come fetched it whole.
        page.wait_for_selector("#hub .slot[data-slot='8']", state="attached")
        answers: list[tuple[str, int]] = []
        fetched: list[tuple[str, int]] = []  # fetch()'s own (the catalog): body bytes
        page.on(
            "response",
            lambda response: (
                answers.append((response.url, response.status))
                if response.request.resource_type != "fetch"
                else None
            ),
        )
        page.on(
            "requestfinished",
            lambda request: (
                fetched.append((request.url, request.sizes()["responseBodySize"]))
                if request.resource_type == "fetch" and "/static/" in request.url
                else None
            ),
        )
        page.reload()
        expect(page.locator("#scores")).to_contain_text("No game yet")
        page.wait_for_selector("#hub .slot[data-slot='8']", state="attached")
        files = [
            (url, status)
            for url, status in answers
            if "/static/" in url or url == hub.base + "/#/scores"
        ]
        assert len(files) >= 6, answers
        assert all(status == 304 for _, status in files), [f for f in files if f[1] != 304]
        # Chromium shows a fetch() answered 304 as its cached 200: no body came.
        assert fetched and all(size == 0 for _, size in fetched), fetched
        assert all(url.startswith(hub.base) for url in seen), seen
    finally:
        context.close()


def test_the_new_game_form_follows_the_hubs_rules(hub, phones):
    _, rules = hub.get("/api/rules")
    phone = phones()
    page = phone.page
    phone.open("/#/new")
    labels = page.locator("#f-rules label")
    expect(labels).to_have_count(len(rules["profiles"]))
    assert [t.strip() for t in labels.all_inner_texts()] == [p["name"] for p in rules["profiles"]]
    expect(page.locator(f"#f-rules input[value='{rules['default_rules']}']")).to_be_checked()
    sets = page.locator("#f-set option")
    assert sets.evaluate_all("os => os.map(o => o.value)") == ["", *map(str, rules["sets"])]
    for option, spec in rules["options"].items():  # each option, labelled by the hub
        expect(page.locator("#f-options")).to_contain_text(spec["label"])
        assert page.locator(f"#f-options [name='{option}']").count() >= 1
    for profile in rules["profiles"]:  # an option the rules do not offer is disabled
        page.check(f"#f-rules input[value='{profile['id']}']")
        for option in rules["options"]:
            offered = option in profile["options"] and (
                4 in rules["options"][option].get("players", [4])
            )
            inputs = page.locator(f"#f-options [name='{option}']")
            for i in range(inputs.count()):
                if offered:
                    expect(inputs.nth(i)).to_be_enabled()
                else:
                    expect(inputs.nth(i)).to_be_disabled()
    page.check(f"#f-rules input[value='{rules['default_rules']}']")
    page.click("#add-player")  # 5 players: partnerships need 4, 6 or 8
    expect(page.locator("#f-partnerships")).to_be_disabled()
    expect(page.locator("#deal")).to_contain_text("Deal 12 each")


def test_the_standard_rules_come_first_chosen_and_recommended(hub, phones):
    """Issue 23: "Standard rules (recommended)": the family's rules are the hub's
    default, preselected and marked, and a game started from the form plays them."""
    phone = phones()
    page = phone.page
    phone.open("/#/new")
    first = page.locator("#f-rules label").first
    expect(first).to_have_text("Standard rules")
    expect(first.locator("input")).to_have_value("aces")
    expect(first.locator("input")).to_be_checked()
    expect(page.locator("#about-aces")).to_have_text(re.compile(r"^Recommended\. The rules"))
    recommended = page.locator(".rule-about", has_text="Recommended")
    expect(recommended).to_have_count(1)  # only the standard rules
    expect(page.locator("#about-consensus")).not_to_contain_text("Recommended")
    for i, name in enumerate(["Ann", "Bob", "Cid", "Dee"]):
        page.fill(f"input[data-name='{i}']", name)
    page.click("#new [type=submit]")
    expect(page).to_have_url(re.compile(r"#/table$"))
    _, state = hub.get("/api/state")
    assert state["game"]["rules"] == "aces"

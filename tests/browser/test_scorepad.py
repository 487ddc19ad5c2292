"""The scorepad in headless Chromium against a real hub: a game from the new-game form
to the chart, live on a second (viewer) phone; bad input; the hub restarting; the
scorekeeper role handed to another phone; the settings panel.

Each test leaves 390×844 screenshots in test-artifacts/scorepad/.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.http_client import HubProcess, call

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cid", "Dee"]


def hub_picture(phone):
    return phone.page.locator("#hub")


def mark_loaded(phone) -> None:
    """Tag the page; a reload would lose the tag (updates must come without one)."""
    phone.page.evaluate("window.stillTheSamePage = true")


def not_reloaded(phone) -> bool:
    return phone.page.evaluate("window.stillTheSamePage === true")


def press(phone, slot: int, action: str) -> None:
    """Use the virtual hub: tap the slot in the picture, then an action in its sheet."""
    page = phone.page
    if not page.is_checked("#sim-on"):
        page.check("#sim-on")
    page.click(f"#hub .slot[data-slot='{slot}']")
    buttons = {
        "tap": "[data-press='tap']",
        "hold": "[data-press='hold']",
        "out": "[data-press='long']",
        "claim": "[data-press='chord']",  # the lit slot with the centre: a claim's chord
        "marker": "#sheet-marker",
    }
    page.click(f"#sheet {buttons[action]}")
    expect(page.locator("#sheet button").first).to_be_enabled(timeout=8000)


def create_game_on_the_page(phone) -> None:
    """Four players; Dee seated on slot 6 and the Mexican Train on 8 from the picture."""
    page = phone.page
    phone.open("/#/new")
    page.check("#f-rules input[value='consensus']")  # the tournament rules: doubles covered
    for i, name in enumerate(PLAYERS):
        page.fill(f"input[data-name='{i}']", name)
    page.click("button[data-seat='3']")  # Dee ...
    page.click("#seat-hub .slot[data-slot='6']")  # ... sits at slot 6
    page.click("#seat-mex")
    page.click("#seat-hub .slot[data-slot='8']")
    expect(page.locator("#seat-hub .slot[data-slot='6']")).to_have_attribute(
        "aria-label", "slot 6 Dee"
    )
    expect(page.locator("#seat-hub .slot[data-slot='8']")).to_have_attribute(
        "aria-label",
        "slot 8 Mexican train",  # its visible words, in its name
    )
    page.select_option("#f-first", "0")
    page.check("input[name=double_blank][value='25']")
    expect(page.locator("#deal")).to_have_text(
        "Deal 15 each; 31 stay in the boneyard (the engine among them). "
        "Double-12 set, up to 13 rounds."
    )
    phone.shot("new-game")
    page.click("#new [type=submit]")
    expect(page.locator("#v-table")).to_be_visible()
    expect(page.locator("#role")).to_have_text("Scorekeeper")


def pick_tiles(page, player_index: int, tiles: list[str]) -> None:
    page.click(f".hand[data-i='{player_index}'] .who")
    for tile in tiles:
        page.click(f".dom[data-tile='{tile}']")


def test_a_game_from_the_form_to_the_chart(hub, phones):
    keeper, viewer = phones(), phones(scheme="dark")  # the viewer plays at night
    create_game_on_the_page(keeper)
    _, state = hub.get("/api/state")
    assert state["game"]["seats"] == [1, 2, 3, 6] and state["game"]["mexican_slot"] == 8
    assert state["turn"] == 1
    viewer.open("/")
    for phone in (keeper, viewer):
        mark_loaded(phone)
        expect(hub_picture(phone)).to_have_attribute("data-turn", "1")
    keeper.shot("table")

    press(keeper, 1, "tap")  # Ann plays on her train: Bob's turn
    for phone in (keeper, viewer):
        expect(hub_picture(phone)).to_have_attribute("data-turn", "2")
    press(keeper, 2, "hold")  # Bob plays a double on his train
    press(keeper, 2, "marker")  # ... cannot cover it: marker down, Cid must cover
    for phone in (keeper, viewer):
        expect(hub_picture(phone)).to_have_attribute("data-doubles", "2:3")
        expect(hub_picture(phone)).to_have_attribute("data-public", "2,8")
        expect(phone.page.locator("#double-note")).to_have_text("Double on Bob: Cid must cover")
    expect(viewer.page.locator("#hub .slot[data-slot='3']")).to_have_attribute(
        "aria-label", "Slot 3: Cid, their turn, must cover the double on Bob"
    )
    viewer.shot("table-viewer-double")
    keeper.shot("table-virtual-hub")
    press(keeper, 2, "tap")  # Cid covers it: Dee's turn
    press(keeper, 6, "out")  # Dee goes out
    for phone in (keeper, viewer):
        expect(phone.page.locator("#status")).to_contain_text("Dee went out")
    keeper.page.click("#sheet-close")
    keeper.shot("table-round-over")
    expect(viewer.page.locator("#go-round")).to_be_hidden()

    viewer.page.click(".tabs a[href='#/scores']")
    keeper.page.click("#go-round")
    page = keeper.page
    expect(page.locator("#r-out")).to_have_value("Dee")
    page.check("input[name=mode][value=tiles]")
    pick_tiles(page, 0, ["6-5", "0-0"])  # Ann: 11 + 25 for the double blank
    expect(page.locator("#p0")).to_have_value("36")
    page.click(".hand[data-i='1'] .who")
    expect(page.locator(".dom[data-tile='6-5']")).to_be_disabled()  # in Ann's hand
    expect(page.locator(".dom[data-tile='12-12']")).to_be_disabled()  # the engine
    pick_tiles(page, 1, ["12-11"])
    pick_tiles(page, 2, ["3-3"])
    expect(page.locator("#p1")).to_have_value("23")
    expect(page.locator("#p3")).to_have_value("0")
    expect(page.locator("#toast")).to_have_text("", timeout=6000)
    page.evaluate("window.scrollTo(0, document.querySelector('.hands').offsetTop - 8)")
    keeper.shot("round-tiles")
    page.click("#r-save")

    for phone in (keeper, viewer):
        rows = phone.page.locator(".standings tbody tr")
        expect(rows).to_have_count(4)
        expect(rows.nth(0)).to_contain_text("Dee")
        expect(rows.nth(3)).to_contain_text("Ann")
        expect(rows.nth(3)).to_contain_text("36")
        expect(phone.page.locator(".chart polyline")).to_have_count(4)
        expect(phone.page.locator(".grid-table tfoot")).to_contain_text("36")
        assert not_reloaded(phone)
    keeper.shot("scores")
    viewer.shot("scores-viewer")
    _, game = hub.get("/api/games/1")
    assert game["rounds"][0]["points"] == {"Ann": 36, "Bob": 23, "Cid": 6, "Dee": 0}
    assert game["rounds"][0]["went_out"] == "Dee" and game["round"] == 2

    # The viewer cannot edit: no form, and the hub refuses its request.
    viewer.page.click(".tabs a[href='#/round']")
    expect(viewer.page.locator("#round")).to_contain_text("Only the scorekeeper")
    expect(viewer.page.locator("#r-save")).to_have_count(0)
    viewer.allowed.append("status of 401")
    status = viewer.page.evaluate("""async () => (await fetch('/api/games/1/rounds/1/scores',
        {method: 'POST', headers: {'Content-Type': 'application/json'},
         body: JSON.stringify({points: {Ann: 0, Bob: 0, Cid: 0, Dee: 0}})})).status""")
    assert status == 401

    # A correction of round 1 on the keeper's phone, with its history.
    page.click(".grid-table a[href='#/round/1']")
    expect(page.locator("#r-save")).to_have_text("Save the correction of round 1")
    page.click(".hand[data-i='2'] .who")
    for key in ["⌫", "9"]:
        page.click(f".pad [data-key='{key}']")
    page.click("#r-save")
    expect(viewer.page.locator("#r-round")).to_be_visible()
    viewer.page.click(".tabs a[href='#/scores']")
    expect(viewer.page.locator(".standings tbody tr").nth(1)).to_contain_text("9")
    page.click(".tabs a[href='#/round']")
    page.select_option("#r-round", "1")
    expect(page.locator("#r-history")).to_contain_text("Cid: 6 → 9")
    keeper.shot("round-correction")

    page.click(".tabs a[href='#/games']")
    expect(page.locator("#games li")).to_have_count(1)
    with page.expect_download() as download:
        page.click("#games a[href='/api/games/1/export.csv']")
    assert "Ann" in Path(download.value.path()).read_text()
    keeper.shot("games")
    page.click(".tabs a[href='#/join']")
    expect(page.locator("#join-url")).to_contain_text(":" + str(hub.port) + "/")
    expect(page.locator("#join-qr")).to_have_js_property("complete", True)
    assert page.evaluate("document.getElementById('join-qr').naturalWidth") > 0
    keeper.shot("join")


def test_bad_input_gets_a_message_next_to_the_field(hub, phones):
    phone = phones()
    phone.allowed += ["status of 400", "status of 409"]
    page = phone.page
    phone.open("/#/new")
    for i, name in enumerate(["Ann", "ann", "Cid"]):
        page.fill(f"input[data-name='{i}']", name)
    page.click("button[data-remove='3']")
    page.click("#new [type=submit]")
    expect(page.locator("#e-players")).to_have_text("'Ann' and 'ann' are the same name.")
    expect(page.locator("input[data-name='0']")).to_have_attribute("aria-invalid", "true")
    phone.shot("new-game-error")
    page.fill("input[data-name='1']", "")
    page.click("#new [type=submit]")
    expect(page.locator("#e-players")).to_contain_text("Player 2 has no name")
    page.fill("input[data-name='1']", "Bob")
    page.check("#f-rules input[value='consensus']")  # 13 rounds at most (aces: 99)
    page.fill("#f-rounds", "40")
    page.click("#new [type=submit]")
    expect(page.locator("#e-rounds")).to_have_text("40 is not between 1 and 13.")
    expect(page.locator("#e-players")).to_have_text("")
    assert hub.get("/api/games")[1] == [] and hub.get("/api/state")[1]["game"] is None

    page.fill("#f-rounds", "")
    page.click("#new [type=submit]")
    expect(page.locator("#role")).to_have_text("Scorekeeper")
    page.click(".tabs a[href='#/round']")
    for key in "9999":
        page.click(f".pad [data-key='{key}']")
    page.click(".pad [data-key='Next']")
    page.click(".pad [data-key='4']")
    page.click("#r-save")  # Cid has no points yet: refused on the phone
    expect(page.locator("#e-p2")).to_contain_text("Type the points left in Cid's hand")
    expect(page.locator("#e-went_out")).to_contain_text("Choose who went out")
    page.click(".hand[data-i='2'] .who")
    page.click(".pad [data-key='0']")
    page.select_option("#r-out", " ")  # nobody: blocked
    expect(page.locator("#e-went_out")).to_have_text("")
    page.click("#r-save")  # the round is still in play: a second step
    expect(page.locator("#e-round")).to_contain_text("Round 1 is still being played")
    page.click("#r-save")  # 9999 is more than a hand holds: refused by the hub
    expect(page.locator("#e-p0")).to_contain_text("Ann's points 9999")
    expect(page.locator("#p0")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#p0")).to_have_attribute("aria-describedby", "e-p0")
    phone.shot("round-error")
    _, game = hub.get("/api/games/1")
    assert game["rounds"] == [
        {
            "round": 1,
            "engine": 12,
            "points": {},
            "went_out": None,
            "blocked": False,
            "finished": False,
        }
    ]


def test_reconnects_after_the_hub_restarts(tmp_path, chromium):
    from tests.browser.conftest import PHONE, Phone

    first = HubProcess(tmp_path / "state")
    second = None
    context = chromium.new_context(viewport=PHONE)
    try:
        _, created = first.post("/api/games", {"players": PLAYERS, "first": 1})
        phone = Phone(context, first.base)
        phone.allowed += [
            "ERR_CONNECTION_REFUSED",
            "ERR_EMPTY_RESPONSE",
            "ERR_CONNECTION_RESET",
            "ERR_INCOMPLETE_CHUNKED_ENCODING",
        ]
        phone.open("/")
        mark_loaded(phone)
        expect(phone.page.locator("#banner")).to_be_hidden()
        first.stop(signal.SIGKILL)  # the hub loses power (SIGTERM works alike, 5 s slower)
        expect(phone.page.locator("#banner")).to_be_visible()
        phone.shot("table-reconnecting")
        second = HubProcess(tmp_path / "state", port=first.port)  # the page's address
        expect(phone.page.locator("#banner")).to_be_hidden(timeout=15000)
        second.post("/api/sim/slots/1/press", {"hold_ms": 0})
        expect(hub_picture(phone)).to_have_attribute("data-turn", "2")
        # The phone wakes: it fetches the state at once.
        second.post("/api/sim/slots/2/press", {"hold_ms": 0})
        phone.page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        expect(hub_picture(phone)).to_have_attribute("data-turn", "3")
        assert not_reloaded(phone)
        assert not phone.foreign and not phone.errors, (phone.foreign, phone.errors)
    finally:
        context.close()
        for process in (first, second):
            if process is not None:
                process.stop(signal.SIGKILL)


def test_handing_over_the_scorekeeping(hub, phones):
    _, created = hub.post("/api/games", {"players": PLAYERS[:3], "first": 1})
    game = created["id"]
    old, new = phones(), phones()
    old.open(f"/#claim={game}:{created['token']}")
    expect(old.page.locator("#role")).to_have_text("Scorekeeper")
    assert "claim" not in old.page.url
    old.page.click(".tabs a[href='#/join']")
    old.page.click("#show-handover")
    expect(old.page.locator("#handover-qr svg")).to_be_visible()
    link = old.page.locator("#handover-url").inner_text()
    assert link.endswith(f"#claim={game}:{old.token(game)}")  # the phone's own token
    old.shot("join-handover")

    new.allowed.append("status of 409")  # round 1 is still in play: the second step
    new.open("/")
    expect(new.page.locator("#role")).to_have_text("Viewer")
    new.open("/" + link[link.index("#") :])  # the QR code's link, on this test's host
    expect(new.page.locator("#role")).to_have_text("Scorekeeper")
    assert "claim" not in new.page.url
    tokens = json.loads(new.page.evaluate("localStorage.getItem('mtrain.tokens')"))
    handed = link[link.rindex(":") + 1 :]
    assert list(tokens) == [str(game)] and tokens[str(game)] != handed  # its own
    # Handed over means handed over: the old phone is a viewer at once, told by the hub,
    # and the link's token no longer works.
    expect(old.page.locator("#role")).to_have_text("Viewer")
    expect(old.page.locator("#handover")).to_be_hidden()
    assert json.loads(old.page.evaluate("localStorage.getItem('mtrain.tokens')")) == {}
    late = call(hub.base, "POST", "/api/join/take", {"game": game, "token": handed})
    assert late[0] == 403
    new.page.click(".tabs a[href='#/round']")
    for key in ["1", "2", "Next", "0", "Next", "7"]:
        new.page.click(f".pad [data-key='{key}']")
    new.page.select_option("#r-out", " ")  # nobody went out: blocked
    new.page.click("#r-save")
    expect(new.page.locator("#e-round")).to_contain_text("Round 1 is still being played")
    new.page.click("#r-save")  # the second step: save it while it is in play
    expect(new.page.locator(".standings")).to_be_visible()
    assert hub.get(f"/api/games/{game}")[1]["totals"] == {"Ann": 12, "Bob": 0, "Cid": 7}

    new.page.click(".tabs a[href='#/join']")
    new.page.click("#forget")
    expect(new.page.locator("#role")).to_have_text("Viewer")
    expect(new.page.locator("#handover")).to_be_hidden()

    bad = phones()
    bad.allowed.append("status of 403")
    bad.open(f"/#claim={game}:not-the-token")
    expect(bad.page.locator("#toast")).to_contain_text("not valid")
    expect(bad.page.locator("#role")).to_have_text("Viewer")


def test_settings_panel_follows_the_hub(hub, phones):
    phone = phones()
    status, settings = hub.get("/api/settings")
    phone.open("/#/join")
    if status == 404:
        phone.allowed.append("status of 404")
        expect(phone.page.locator("#settings")).to_be_hidden()
        return
    expect(phone.page.locator("#settings")).to_be_visible()
    expect(phone.page.locator("#s-quiet")).to_have_value(settings["quiet"])
    # Each menu offers what the hub allows (its `choices`), each value in words.
    for field in ("quiet", "voice", "voice_language"):
        options = phone.page.locator(f"#s-{field} option")
        expect(options).to_have_count(len(settings["choices"][field]))
        assert options.evaluate_all("os => os.map(o => o.value)") == settings["choices"][field]
    expect(phone.page.locator("#s-quiet option")).to_have_text(
        ["off: every sound", "turn chime only", "mute"]
    )
    # No game: the table's proof is needed, so the form says so before any Save.
    expect(phone.page.locator("#s-quiet")).to_be_disabled()
    expect(phone.page.locator("#settings [type=submit]")).to_be_disabled()
    expect(phone.page.locator("#s-who")).to_contain_text("ask the hub")
    phone.page.click("#claim")
    note = phone.page.locator("#claim-note")
    expect(note).to_have_text(re.compile(r"Hold the centre button and slot \d"))
    slot = int(re.search(r"and slot (\d)", note.text_content() or "").group(1))
    # Hands on the hub: the lit slot and the centre held together.
    hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 2000, "centre": True})
    expect(note).to_contain_text("The table trusts this phone")
    expect(phone.page.locator("#s-quiet")).to_be_enabled()
    phone.page.select_option("#s-quiet", "mute")
    phone.page.click("#settings [type=submit]")
    expect(phone.page.locator("#toast")).to_have_text("Settings saved")
    assert call(hub.base, "GET", "/api/settings")[1]["quiet"] == "mute"
    phone.shot("settings")


def test_the_guard_sees_every_request(hub, phones):
    """The harness itself: the live stream goes through the route guard, and a request
    to another host is stopped and reported."""
    phone = phones()
    seen: list[str] = []
    phone.page.on("request", lambda request: seen.append(request.url))
    phone.open("/")
    assert any(url.endswith("/api/events") for url in seen)
    phone.allowed += ["ERR_FAILED", "Content Security Policy"]
    script = "fetch('http://192.0.2.1/x').then(() => 'sent', () => 'stopped')"
    # The scorepad's own CSP stops it before it leaves the browser ...
    assert phone.page.evaluate(script) == "stopped" and phone.foreign == []
    # ... and the harness stops and reports one from a page without that CSP.
    blank = phone.context.new_page()
    assert blank.evaluate(script) == "stopped" and phone.foreign == ["http://192.0.2.1/x"]
    blank.close()
    phone.foreign.clear()


def test_the_virtual_hub_holds_by_the_hubs_own_thresholds(tmp_path, phones):
    """A hub configured with slower hands (taps up to 2 s, out from 6 s): the virtual
    hub's "hold" is still a double and its "long hold" still goes out (fixed lengths
    of 1.5 and 4.3 s would be a tap and a double here)."""
    (tmp_path / "slow").mkdir()
    slow = HubProcess.configured(
        tmp_path / "slow", "[gestures]\ntap_max_ms = 2000\nlong_hold_ms = 6000\n"
    )
    try:
        status, snap = slow.get("/api/state")
        assert snap["gestures"]["tap_max_ms"] == 2000
        assert snap["gestures"]["long_hold_ms"] == 6000
        slow.post(
            "/api/games",
            {"players": ["Ann", "Bob", "Cid"], "first": 1, "rules": "consensus", "rounds": 1},
        )
        phone = phones(slow.base)
        phone.allowed.append("ERR_INCOMPLETE_CHUNKED_ENCODING")  # its stream, at the kill
        phone.open("/#/table")
        press(phone, 1, "hold")  # Ann's first turn: a double on her train
        assert call(slow.base, "GET", "/api/state")[1]["double"]["slot"] == 1
        press(phone, 1, "tap")  # she covers it
        expect(phone.page.locator("#status strong")).to_have_text("Bob's turn")
        phone.page.click("#sheet-close")
        press(phone, 2, "out")  # Bob goes out: the round is over
        assert call(slow.base, "GET", "/api/state")[1]["game"]["phase"] == "round-over"
    finally:
        slow.stop(signal.SIGKILL)

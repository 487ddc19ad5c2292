"""Issue 23, the scorekeeper's phone that cannot trip anyone: each item the family
evening found, in headless Chromium against a real hub."""

from __future__ import annotations

import signal

import pytest
from playwright.sync_api import expect

from tests.http_client import HubProcess

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


SEEN_TEXT = """() => {
  window.seenText = "";
  const text = () => (document.body ? document.body.innerText : "");
  new MutationObserver(() => { window.seenText += "\\n" + text(); })
    .observe(document, { subtree: true, childList: true, characterData: true });
}"""


def test_items_2_3_4_8_round_entry_loads_cleanly_keeps_typing_honest(hub, phones):
    phone, created = _keeper(hub, phones, path="/#/table")
    page = phone.page
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    # Item 2: opening or reloading #/round never shows round 0 or asks for its history.
    page.add_init_script(f"({SEEN_TEXT})()")
    page.goto(hub.base + "/#/round")
    page.reload()
    expect(page.locator("#r-save")).to_have_text("Save round 1")
    seen = page.evaluate("window.seenText")
    assert "Round 0" not in seen and "/rounds/0/" not in " ".join(asked)
    assert "No game is running" not in seen

    # Item 3: letters typed in a score are not dropped silently.
    page.fill("#p0", "1o2")
    expect(page.locator("#e-p0")).to_contain_text("“1o2” is not a number")
    expect(page.locator("#p0")).to_have_attribute("aria-invalid", "true")
    page.select_option("#r-out", "Cid")
    page.click("#r-save")
    expect(page.locator("#e-p0")).to_contain_text("not a number")
    assert hub.get(f"/api/games/{created['id']}")[1]["rounds"][0]["points"] == {}
    # Item 8: the error goes once the field is fixed.
    page.fill("#p0", "12")
    expect(page.locator("#e-p0")).to_have_text("")
    expect(page.locator("#p0")).not_to_have_attribute("aria-invalid", "true")

    # Item 4: a player chosen again starts a new number; Clear empties it.
    page.click(".hand[data-i='1'] .who")
    _type(page, "5")
    page.click(".hand[data-i='0'] .who")
    page.click(".hand[data-i='1'] .who")
    _type(page, "41")
    expect(page.locator("#p1")).to_have_value("41")
    page.click(".pad [data-key='Clear']")
    expect(page.locator("#p1")).to_have_value("")
    page.click("#r-save")  # Bob has no points: refused on the phone, next to Bob
    expect(page.locator("#e-p1")).to_contain_text("Type the points left in Bob's hand")
    _type(page, "7")  # Item 8 again: fixing it by the pad clears it too
    expect(page.locator("#e-p1")).to_have_text("")
    expect(page.locator("#p1")).to_have_value("7")


def test_item_7_messages_have_no_field_names(hub, phones):
    phone = phones()
    phone.allowed.append("status of 400")
    page = phone.page
    phone.open("/#/new")
    for i, name in enumerate(["Ann", "Bob", ""]):
        page.fill(f"input[data-name='{i}']", name)
    page.click("button[data-remove='3']")
    page.click("#new [type=submit]")
    expect(page.locator("#e-players")).to_have_text(
        "Player 3 has no name: type one, or remove the row."
    )
    page.fill("input[data-name='2']", "Cid")
    page.fill("#f-rounds", "2.5")
    page.click("#new [type=submit]")
    expect(page.locator("#e-rounds")).to_have_text("2.5 is not a whole number of rounds.")
    page.check("#f-rules input[value='consensus']")  # 13 rounds at most (aces: 99)
    page.fill("#f-rounds", "40")
    page.click("#new [type=submit]")  # the hub's own message, without "rounds: "
    expect(page.locator("#e-rounds")).to_have_text("40 is not between 1 and 13.")


def test_item_14_the_end_of_a_game_is_plain_on_the_table(hub, phones):
    _, created = hub.post("/api/games", {"players": PLAYERS, "first": 1, "rounds": 1})
    viewer = phones()
    viewer.open("/#/scores")
    page = viewer.page
    expect(page.locator(".standings tbody tr")).to_have_count(3)
    expect(page.locator(".standings .why")).to_have_count(0)  # no "tied with" yet
    page.click(".tabs a[href='#/table']")
    hub.post("/api/sim/slots/1/press", {"hold_ms": 50})
    hub.post("/api/sim/slots/1/press", {"hold_ms": 50})  # Ann calls her last tile
    expect(page.locator("#one-tile")).to_have_text("One tile: Ann")
    expect(page.locator("#status strong")).to_have_text("Bob's turn")
    size = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#status strong')).fontSize)"
    )
    assert size >= 24  # readable at arm's length
    for slot in (2, 3):
        hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 50})
    hub.post("/api/sim/slots/1/press", {"hold_ms": 4300})  # Ann goes out
    expect(page.locator("#status")).to_contain_text("Ann went out")
    expect(page.locator("#one-tile")).to_be_hidden()
    status, _ = hub.post(
        f"/api/games/{created['id']}/rounds/1/scores",
        {"points": {"Ann": 0, "Bob": 5, "Cid": 9}},
        token=created["token"],
    )
    assert status == 200  # round over on the table: one step
    expect(page.locator("#status strong")).to_have_text("Ann won")
    expect(page.locator("#title")).to_have_text(f"Game {created['id']} · the game is over")


def test_item_9_the_view_on_screen_refreshes_when_the_hub_is_back(tmp_path, chromium):
    from tests.browser.conftest import PHONE, Phone

    first = HubProcess(tmp_path / "state")
    port = first.port  # the hub comes back on the same port
    second = None
    context = chromium.new_context(viewport=PHONE)
    try:
        first.post("/api/games", {"players": PLAYERS, "first": 1})
        phone = Phone(context, first.base)
        phone.allowed += [
            "ERR_CONNECTION_REFUSED",
            "ERR_EMPTY_RESPONSE",
            "ERR_CONNECTION_RESET",
            "ERR_INCOMPLETE_CHUNKED_ENCODING",
        ]
        page = phone.page
        phone.open("/")
        page.evaluate("Promise.all([import('/static/games.js'), import('/static/join.js')])")
        first.stop(signal.SIGKILL)
        expect(page.locator("#banner")).to_be_visible()
        page.click(".tabs a[href='#/join']")
        expect(page.locator("#join-qr")).to_have_js_property("complete", True)
        assert page.evaluate("document.getElementById('join-qr').naturalWidth") == 0
        second = HubProcess(tmp_path / "state", port=port)
        expect(page.locator("#banner")).to_be_hidden(timeout=15000)
        expect(page.locator("#join-url")).to_contain_text(f":{port}/")
        page.wait_for_function("() => document.getElementById('join-qr').naturalWidth > 0")
        second.stop(signal.SIGKILL)
        expect(page.locator("#banner")).to_be_visible()
        page.click(".tabs a[href='#/games']")
        expect(page.locator("#games li")).to_contain_text("did not answer")
        second = HubProcess(tmp_path / "state", port=port)
        expect(page.locator("#games li").first).to_contain_text("Game 1", timeout=15000)
        assert not phone.foreign and not phone.errors, (phone.foreign, phone.errors)
    finally:
        context.close()
        for process in (first, second):
            if process is not None:
                process.stop(signal.SIGKILL)


CLEAR_OF_THE_TABS = """(sel) => {
  const el = document.querySelector(sel), tabs = document.querySelector('.tabs');
  const r = el.getBoundingClientRect(), t = tabs.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= t.top + 0.5 && r.height > 0;
}"""


def _focused_clear(page, sel: str) -> bool:
    page.focus(sel)
    page.wait_for_timeout(0)
    return page.evaluate(CLEAR_OF_THE_TABS, sel)


def test_item_5_and_acceptance_3_a_round_in_nine_taps_without_scrolling(hub, phones):
    """4 players, the hub knowing who went out, 3 non-zero scores: at most 9 taps with
    Save, no scroll at 390×844; and focus never hides behind the tab bar."""
    _, created = hub.post("/api/games", {"players": ["Ann", "Bob", "Cid", "Dee"], "first": 1})
    for slot in (1, 2, 3):
        hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 50})
    hub.post("/api/sim/slots/4/press", {"hold_ms": 4300})  # Dee goes out
    phone = phones()
    page = phone.page
    phone.open(f"/#claim={created['id']}:{created['token']}")
    expect(page.locator("#status")).to_contain_text("Dee went out")
    taps = 0

    def tap(sel: str) -> None:
        nonlocal taps
        assert page.evaluate(CLEAR_OF_THE_TABS, sel), f"{sel} is not in view"
        assert page.evaluate("window.scrollY") == 0, "the page was scrolled"
        page.click(sel)
        taps += 1

    tap("#go-round")
    expect(page.locator("#r-out")).to_have_value("Dee")
    for key in ("1", "2", "Next", "7", "Next", "2", "3"):
        tap(f".pad [data-key='{key}']")
    tap("#r-save")
    expect(page.locator(".standings")).to_be_visible()
    assert taps <= 9, taps
    game = hub.get(f"/api/games/{created['id']}")[1]
    assert game["rounds"][0]["points"] == {"Ann": 12, "Bob": 7, "Cid": 23, "Dee": 0}
    phone.shot("round-nine-taps")

    # Keyboard focus on Save and on the forms' buttons stays clear of the tab bar.
    page.goto(hub.base + "/#/round/1")
    expect(page.locator("#h-round")).to_be_focused()
    expect(page.locator("#r-save")).to_be_visible()
    assert _focused_clear(page, "#r-save")
    page.goto(hub.base + "/#/new")
    expect(page.locator("#h-new")).to_be_focused()  # the view is open
    expect(page.locator("#add-player")).to_be_enabled()  # the hub's rules came
    for sel in ("#add-player", "#seat-mex"):
        assert _focused_clear(page, sel), sel
    page.goto(hub.base + "/#/join")
    expect(page.locator("#h-join")).to_be_focused()
    expect(page.locator("#settings")).to_be_visible()
    assert _focused_clear(page, "#settings [type=submit]")


def test_item_13_tap_targets_are_44_px(hub, phones):
    _, created = hub.post("/api/games", {"players": PLAYERS, "first": 1})
    hub.post(
        f"/api/games/{created['id']}/rounds/1/scores",
        {"points": {"Ann": 0, "Bob": 5, "Cid": 9}, "mid_round": True},
        token=created["token"],
    )
    phone = phones()
    page = phone.page
    phone.open(f"/#claim={created['id']}:{created['token']}")
    summary = page.locator("#fix-panel > summary")
    expect(summary).to_be_visible()
    assert summary.bounding_box()["height"] >= 44
    page.click(".tabs a[href='#/scores']")
    link = page.locator(".grid-table a[href='#/round/1']")
    expect(link).to_be_visible()
    box = link.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, box


def test_item_6_and_also_seen_readable_picture_rem_text_focus_motion_toasts(hub, phones):
    hub.post(
        "/api/games",
        {"players": ["Ann", "Bartholomew-Maximilian", "Cid"], "first": 1},
    )
    phone = phones()
    page = phone.page
    page.emulate_media(reduced_motion="reduce")
    phone.open("/")
    # Item 6: the picture's words at least 14 px as drawn; a long name stays in its disc.
    sizes = page.evaluate("""() => {
      const svg = document.getElementById('hub'), scale = svg.getBoundingClientRect().width / 412;
      const px = (el) => parseFloat(getComputedStyle(el).fontSize) * scale;
      return [...svg.querySelectorAll('.slot .tag, .slot .num, .slot .name')].map(px);
    }""")
    assert sizes and min(sizes) >= 14, sizes
    fits = page.evaluate("""() => [...document.querySelectorAll('#hub .slot')].every((g) => {
      const name = g.querySelector('.name'), disc = g.querySelector('.disc');
      if (!name || !name.textContent) return true;
      const n = name.getBoundingClientRect(), d = disc.getBoundingClientRect();
      return n.left >= d.left - 0.5 && n.right <= d.right + 0.5;
    })""")
    assert fits
    # Also seen: text in rem follows the phone's text size.
    body = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    page.evaluate("document.documentElement.style.fontSize = '24px'")
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == body * 1.5
    page.evaluate("document.documentElement.style.fontSize = ''")
    # Reduced motion: no CSS animation runs and the ring has no SVG <animate>.
    page.evaluate("document.getElementById('sim-on').click()")
    running = page.evaluate(
        "document.getAnimations().filter((a) => a.playState === 'running').length"
    )
    assert running == 0
    # The ring shows a breathing LED (Ann's turn), drawn steady: no SMIL <animate>.
    expect(page.locator("#hub .leds [data-effect='breathe']").first).to_be_attached()
    assert page.locator("#hub animate").count() == 0
    # Focus moves to the new view's heading.
    page.click(".tabs a[href='#/scores']")
    expect(page.locator("#h-scores")).to_be_focused()
    page.click(".tabs a[href='#/games']")
    expect(page.locator("#h-games")).to_be_focused()
    # A toast covers neither the header nor the reconnect banner.
    page.evaluate("document.getElementById('banner').hidden = false")
    page.evaluate("import('/static/core.js').then((m) => m.toast('Round 1 saved'))")
    expect(page.locator("#toast")).to_have_text("Round 1 saved")
    apart = page.evaluate("""() => {
      const t = document.getElementById('toast').getBoundingClientRect();
      return ['.top', '#banner'].every((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return t.bottom <= r.top || t.top >= r.bottom;
      });
    }""")
    assert apart


def test_also_seen_the_pad_shows_and_says_who_is_typing(hub, phones):
    phone, _ = _keeper(hub, phones)
    page = phone.page
    expect(page.locator(".hand[data-i='0'] .typing")).to_have_text("typing")
    _type(page, "12")
    expect(page.locator("#r-live")).to_have_text("Ann: 12")
    page.click(".pad [data-key='Next']")
    expect(page.locator(".hand[data-i='1'] .typing")).to_have_text("typing")
    expect(page.locator(".hand[data-i='0'] .typing")).to_have_count(0)


OVERFLOW = """() => {
  const root = document.documentElement, wide = [];
  for (const el of document.querySelectorAll('main *, .tabs *, header *')) {
    const r = el.getBoundingClientRect();
    // a wide data table may scroll inside its own box (.scroll), as WCAG's reflow allows
    if (el.closest('.scroll')) continue;
    if (r.width && el.offsetParent !== null && r.right > root.clientWidth + 1)
      wide.push(el.id || el.className || el.tagName);
  }
  return { scroll: root.scrollWidth - root.clientWidth, wide: wide.slice(0, 5) };
}"""


@pytest.mark.parametrize("locale", ["en-US", "es-MX"])
def test_item_12_every_view_at_200_percent_zoom_scrolls_only_down(hub, chromium, locale):
    """200 % zoom on a 390 px phone is a 195 px wide page: nothing runs off sideways,
    in English and in Spanish (whose words are longer)."""
    from tests.browser.conftest import Phone

    _, created = hub.post("/api/games", {"players": ["Ann", "Bob", "Cid", "Dee"], "first": 1})
    context = chromium.new_context(viewport={"width": 195, "height": 422}, locale=locale)
    try:
        phone = Phone(context, hub.base)
        page = phone.page
        phone.open(f"/#claim={created['id']}:{created['token']}")
        expect(page.locator("html")).to_have_attribute("lang", locale[:2])
        for view in ("table", "scores", "round", "new", "games", "join", "selftest"):
            page.goto(f"{hub.base}/#/{view}")
            if view != "table":  # the claim left the page on #/table already
                expect(page.locator(f"#h-{view}")).to_be_focused()
            if view == "new":
                expect(page.locator("#add-player")).to_be_enabled()
            if view == "round":
                expect(page.locator("#r-save")).to_be_visible()
            if view == "join":  # the settings too, and the hand-over code
                expect(page.locator("#settings [type=submit]")).to_be_enabled()
                page.click("#show-handover")
                expect(page.locator("#handover-qr svg")).to_be_visible()
            found = page.evaluate(OVERFLOW)
            assert found["scroll"] <= 0 and not found["wide"], (view, found)
        assert not phone.errors, phone.errors
    finally:
        context.close()


def test_item_10_eight_players_and_back_keep_the_mexican_train_and_the_order(hub, phones):
    phone = phones()
    page = phone.page
    phone.open("/#/new")
    expect(page.locator("#add-player")).to_be_enabled()
    expect(page.locator("#mex-slot")).to_have_text("slot 5")
    for _ in range(4):
        page.click("#add-player")
    expect(page.locator("#f-players li")).to_have_count(8)
    expect(page.locator("#mex-slot")).to_have_text("none")  # an 8th player sits there
    expect(page.locator("#add-player")).to_be_disabled()
    expect(page.locator("#add-note")).to_have_text("The hub seats at most 8 players.")
    slots = page.locator("#f-players .seat").all_inner_texts()
    assert slots == [f"slot {n}" for n in range(1, 9)]  # clockwise, as they play
    page.click("button[data-remove='7']")
    expect(page.locator("#mex-slot")).not_to_have_text("none")  # the train gets it back
    expect(page.locator("#add-note")).to_have_text("")
    page.click("button[data-remove='1']")
    page.click("#add-player")  # the new player sits in the free slot 2, in its place
    slots = page.locator("#f-players .seat").all_inner_texts()
    assert slots == sorted(slots, key=lambda s: int(s.split()[1]))
    expect(page.locator("#f-players li:nth-child(2) input")).to_be_focused()


def test_item_15_viewers_see_settings_they_cannot_save_and_the_code_shows(hub, phones):
    keeper, _ = _keeper(hub, phones, path="/#/join")
    viewer = phones()
    viewer.open("/#/join")
    settings = viewer.page.locator("#settings")
    expect(settings).to_be_visible()
    expect(viewer.page.locator("#s-who")).to_contain_text("Only the scorekeeper's phone")
    expect(settings.locator("[type=submit]")).to_be_disabled()
    expect(settings.locator("#s-volume")).to_be_disabled()
    page = keeper.page
    expect(page.locator("#settings [type=submit]")).to_be_enabled()
    expect(page.locator("#s-who")).to_have_text("")
    page.click("#show-handover")
    qr = page.locator("#handover-qr svg")
    expect(qr).to_be_visible()
    expect(qr).to_be_in_viewport()


def test_item_7_the_speaker_is_explained_in_plain_words(hub, phones):
    _, settings = hub.get("/api/settings")
    phone = phones()
    phone.open("/#/join")
    note = phone.page.locator("#s-sound")
    expect(phone.page.locator("#settings")).to_be_visible()
    if settings["sound"]["available"]:  # a machine with a sound device: nothing to say
        expect(note).to_have_text("")
        return
    expect(note).to_contain_text("The hub's speaker is not working: no sound device answers.")
    assert "No such file" not in note.inner_text() and "[default]" not in note.inner_text()

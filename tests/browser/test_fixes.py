"""fixes.js on a phone: the scorekeeper's Undo, the fix panel and its log lines, the
"one tile" badge, and the virtual hub's centre button."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Phone
from tests.http_client import HubProcess

pytestmark = pytest.mark.browser


@pytest.fixture
def roomy_hub(tmp_path):
    """A sim hub whose last-tile window allows two HTTP presses in a row."""
    process = HubProcess.configured(tmp_path, "[gestures]\nlast_tile_ms = 2000\n")
    yield process
    process.stop()


@pytest.fixture
def keeper(chromium, roomy_hub):
    """A game of Ann, Bob and Cid on ``roomy_hub`` (the tournament rules: the Mexican
    Train, the centre, is open in the first turn), claimed by the scorekeeper's phone."""
    body = {"players": ["Ann", "Bob", "Cid"], "rules": "consensus", "first": 1}
    _, game = roomy_hub.post("/api/games", body)
    context = chromium.new_context(viewport=PHONE)
    try:
        phone = Phone(context, roomy_hub.base)
        phone.open(f"/#claim={game['id']}:{game['token']}")
        yield phone
    finally:
        context.close()


def test_undo_fix_one_tile_and_the_centre(keeper, roomy_hub):
    hub, phone = roomy_hub, keeper
    page = phone.page
    hub.post("/api/sim/slots/1/press", {"hold_ms": 50})
    hub.post("/api/sim/slots/1/press", {"hold_ms": 50})  # Ann calls her last tile
    page.locator("#one-tile").filter(has_text="One tile: Ann").wait_for()
    page.locator("#undo").click()
    page.locator("#fix-log li").filter(has_text="undo (scorekeeper)").wait_for()
    page.locator("#one-tile").wait_for(state="hidden")  # the call was the last action
    assert hub.get("/api/state")[1]["turn"] == 2
    page.locator("#fix-panel summary").click()
    page.select_option("#fix-turn", "3")
    page.get_by_role("button", name="Set the turn").click()
    page.locator("#fix-log li").filter(has_text="turn to slot 3").wait_for()
    page.select_option("#fix-public", "2")
    page.get_by_role("button", name="Public", exact=True).click()
    page.locator("#fix-log li").filter(has_text="slot 2 public").wait_for()
    assert hub.get("/api/state")[1]["slots"][1]["public"]
    page.check("#sim-on")
    page.get_by_role("button", name="Centre tap").click()  # Cid on the Mexican Train
    page.wait_for_function("() => document.querySelector('#fix-turn').value === '1'")
    assert hub.get("/api/state")[1]["turn"] == 1
    phone.shot("fixes")
    assert not phone.errors and not phone.foreign


def test_a_double_tap_on_undo_undoes_one_action_of_the_table_shown(keeper, roomy_hub):
    """A hurried double tap on Undo takes back one action, and the request names the
    table the phone showed (the hub refuses it if the table has moved on since)."""
    import json

    hub, phone = roomy_hub, keeper
    page = phone.page
    for slot in (1, 2, 3):  # Ann, Bob and Cid play
        hub.post("/api/sim/slots/" + str(slot) + "/press", {"hold_ms": 50})
    page.wait_for_function("() => document.querySelector('#fix-turn').value === '1'")
    expect(page.locator("#undo")).to_be_enabled()
    shown = hub.get("/api/state")[1]["undo_stamp"]  # the stamp of Cid's tap
    sent: list[dict] = []
    page.on(
        "request",
        lambda r: sent.append(json.loads(r.post_data or "{}")) if r.url.endswith("/undo") else None,
    )
    # When the answer comes back ("Undone: …"), and when Undo is enabled again after it.
    page.evaluate(
        """() => { window.undoTimes = new Promise((resolve) => {
            const undo = document.querySelector("#undo"), toast = document.querySelector("#toast");
            let answered = null;
            new MutationObserver(() => {
                if (answered === null && toast.textContent === "Undone: a tap on slot 3") {
                    answered = performance.now();
                }
            }).observe(toast, { childList: true, characterData: true, subtree: true });
            new MutationObserver(() => {
                if (answered !== null && !undo.disabled) resolve(performance.now() - answered);
            }).observe(undo, { attributes: true, attributeFilter: ["disabled"] });
        }); }"""
    )
    page.locator("#undo").dblclick()
    page.locator("#fix-log li").filter(has_text="undo (scorekeeper)").wait_for()
    # A slow double tap's second tap lands after the answer: Undo rests 0.6 s after it.
    assert page.evaluate("() => window.undoTimes") >= 590
    page.wait_for_function("() => document.querySelector('#fix-turn').value === '3'")
    expect(page.locator("#undo")).to_be_enabled()  # it rests only while its request is out
    _, state = hub.get("/api/state")
    assert state["undo"] == 2 and state["turn"] == 3
    assert sent == [{"undo": 3, "stamp": shown}]  # the table shown, and its last action
    undos = [e for e in hub.get("/api/log?limit=100")[1] if e["kind"] == "undo"]
    assert len(undos) == 1
    assert not phone.errors and not phone.foreign


def test_the_undo_names_what_it_takes_back_in_the_phones_language(keeper, roomy_hub):
    """The Undo button says what it would take back (the snapshot's ``undoes``, data the
    page words from its catalogs), and the log says what an undo took back: a tap, a
    double, a marker, a fix, in English and in Spanish."""
    hub, phone = roomy_hub, keeper
    page = phone.page
    undo = page.locator("#undo")
    hub.post("/api/sim/slots/1/press", {"hold_ms": 50})  # Ann plays: Bob's turn
    expect(undo).to_have_text("Undo: a tap on slot 1")
    hub.post("/api/sim/slots/2/press", {"hold_ms": 1500})  # Bob plays a double on his train
    expect(undo).to_have_text("Undo: a double played on slot 2")
    hub.post("/api/sim/slots/2/marker", {"present": True})  # he cannot cover: marker down
    expect(undo).to_have_text("Undo: a marker put on slot 2")
    assert hub.get("/api/state")[1]["undoes"] == {"kind": "marker", "slot": 2, "present": True}
    undo.click()
    line = page.locator("#fix-log li").filter(has_text="undo (scorekeeper)")
    expect(line).to_contain_text("a marker put on slot 2")
    expect(undo).to_have_text("Undo: a double played on slot 2")
    page.locator("#fix-panel summary").click()
    page.select_option("#fix-public", "3")
    page.get_by_role("button", name="Public", exact=True).click()
    expect(undo).to_have_text("Undo: slot 3 opened by hand")
    # As the page's own language choice does it (join.js): load the words, then say so.
    page.evaluate(
        """async () => {
            const i18n = await import('/static/i18n.js'), core = await import('/static/core.js');
            await i18n.setLanguage('es');
            core.emit('lang', i18n.language());
        }"""
    )
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator("#undo")).to_have_text("Deshacer: el lugar 3 abierto a mano")
    page.locator("#undo").click()
    expect(page.locator("#undo")).to_have_text("Deshacer: una mula en el lugar 2")
    page.locator("#undo").click()
    expect(page.locator("#undo")).to_have_text("Deshacer: un toque en el lugar 1")
    line = page.locator("#fix-log li").filter(has_text="una mula en el lugar 2")
    expect(line).to_contain_text("deshecho (quien lleva los puntos)")
    assert not phone.errors and not phone.foreign


def test_a_pick_in_the_fix_panel_stays_while_the_table_changes(keeper, roomy_hub):
    """The scorekeeper picks whose turn it should be; before they press the button the
    table changes (here a train goes public): the pick stays, and the fix sets it."""
    hub, phone = roomy_hub, keeper
    page = phone.page
    page.locator("#fix-panel summary").click()
    page.wait_for_function("() => document.querySelector('#fix-turn').value === '1'")
    page.select_option("#fix-turn", "3")
    status, _ = hub.post("/api/sim/slots/2/marker", {"present": True})  # Bob's marker
    assert status == 200
    page.wait_for_function(
        "() => document.querySelector('#hub').dataset.public.split(',').includes('2')"
    )
    assert page.input_value("#fix-turn") == "3"
    page.get_by_role("button", name="Set the turn").click()
    page.locator("#fix-log li").filter(has_text="turn to slot 3").wait_for()
    assert hub.get("/api/state")[1]["turn"] == 3
    # Sent: the select follows the table again (Cid's tap passes the turn to Ann).
    hub.post("/api/sim/slots/3/press", {"hold_ms": 50})
    page.wait_for_function("() => document.querySelector('#fix-turn').value === '1'")
    assert not phone.errors and not phone.foreign

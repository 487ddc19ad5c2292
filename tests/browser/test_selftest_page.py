"""The self-test view (#/selftest) on a phone, with a real ``mtrain-hub run`` on the hub
box (the fake microcontroller: the real firmware on a pty): a person at the hub presses,
places markers and answers on the phone, and the page ends with a table of every part."""

from __future__ import annotations

import re
import threading
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import browsing
from tests.helpers import eventually

pytestmark = pytest.mark.browser


def test_a_person_walks_through_the_hub_box_from_the_phone(chromium, tmp_path):
    from firmware_bridge.fake_mcu import FakeMcu
    from hub.wire.wifi import Hotspot, write_hotspot
    from tests.browser.conftest import PHONE, Phone
    from tests.http_client import HubProcess

    mcu = FakeMcu(str(tmp_path / "hub-box"))
    (tmp_path / "state").mkdir()
    write_hotspot(tmp_path / "state", Hotspot("Mexican Train hub", "k7pm-x2qd-h9ta-4ncw"))
    hub = HubProcess(tmp_path / "state", "--backend", "serial", "--serial-port", mcu.path)
    context = chromium.new_context(viewport=PHONE)
    try:
        phone = Phone(context, hub.base)
        phone.allowed.append("409")  # a click racing the hub's own step change
        phone.allowed.append("403")  # the first start, before the table trusts this phone
        page = phone.page
        page.goto(hub.base + "/selftest")
        page.locator("#st-buttons [data-action='start']").click()
        # A phone the table does not trust is refused, and sent to ask the hub.
        page.locator("#st-claim a[href='#/join']").click()
        claim_at_the_hub(hub, mcu, page)
        page.goto(hub.base + "/selftest")
        page.locator("#st-buttons [data-action='start']").click()
        page.locator("#st-step").filter(has_text="slot 1 button (Pico GP2 (pin 4))").wait_for()
        answered = walk(hub, mcu, page)
        page.locator("#st-step").filter(has_text="Every part passed.").wait_for()
        # Each light and sound was answered by the test's own (double) tap on its step:
        # a second tap never answered the next step unseen.
        assert answered == set(range(8 + 1 + 16 + 1, 8 + 1 + 16 + 8 + 8 + 1 + 1))
        rows = page.locator("#st-results tbody tr")
        assert rows.count() == 8 + 1 + 16 + 8 + 8 + 1  # the voice's step last
        assert rows.nth(8 + 1 + 16 + 8 + 8).inner_text().split("\t")[0] == "voice"
        assert page.locator("#st-results tr[data-passed='false']").count() == 0
        centre = rows.nth(8).inner_text().split("\t")
        assert centre[:3] == ["centre button", "Pico GP18 (pin 24)", "PASS"]
        assert page.locator("#st-buttons [data-action='start']").is_visible()
        # The end shows the hub's own Wi-Fi code, to print for the box's lid (issue 37).
        page.locator("#st-wifi button").click()
        expect(page.locator("#st-wifi svg")).to_have_attribute(
            "aria-label", "QR code that joins the hub's Wi-Fi"
        )
        expect(page.locator("#st-wifi")).to_contain_text("Network: Mexican Train hub")
        assert page.locator("#st-wifi a").get_attribute("href") == "/api/wifi/card.pdf"
        phone.shot("selftest")
        assert not phone.errors and not phone.foreign
    finally:
        context.close()
        hub.stop()
        mcu.close()


def claim_at_the_hub(hub, mcu, page) -> None:
    """The join view's claim: the hub lights a slot, the person holds it and the centre
    together."""
    # The view's module is loaded on its first visit: its buttons work once it has
    # filled in the hub's address (a click before that would do nothing).
    expect(page.locator("#join-url")).not_to_be_empty()
    page.locator("#claim").click()

    slot = lit_slot(hub, page)
    # The chord at the lit slot; held again while the hub still waits for it, as a person
    # would: on a loaded machine the fake box (a thread of this process) can scan more
    # than 250 ms apart, and a release seen after such a pause is sent LATE, which the
    # hub rightly takes as a press of unknown length, not a hold (a real Pico scans
    # every millisecond).
    for _ in range(3):
        mcu.chord(slot, 1500)
        if eventually(lambda: not claim_slot(hub), 8, every=0.1, pause=browsing(page)):
            break
    page.locator("#claim-note").filter(has_text="The table trusts this phone").wait_for()


def claim_slot(hub) -> int | None:
    """The slot a waiting claim has lit, or None."""
    _, state = hub.get("/api/state")
    return state["claim"]["slot"] if state.get("claim") else None


def lit_slot(hub, page) -> int:
    """The slot the claim the page just asked for lit: waited for as long as Playwright's
    own waits, with the browser going (the page's POST is routed through this process:
    a plain sleep held it, unsent, until the next Playwright call), asked at a pace that
    leaves the hub its CPU."""
    slot = eventually(lambda: claim_slot(hub), 30, every=0.05, pause=browsing(page))
    assert slot, f"no claim lit; the page says {page.locator('#claim-note').inner_text()!r}"
    return slot


# Resolves window.restedAtNext with whether Yes was disabled in the very task that
# showed the step whose text starts with the argument (a MutationObserver's callback).
RESTS_AT = """(prefix) => { window.restedAtNext = new Promise((resolve) => {
  const step = document.querySelector("#st-step");
  const seen = new MutationObserver(() => {
    if (!step.textContent.startsWith(prefix)) return;
    seen.disconnect();
    resolve(document.querySelector("#st-buttons [data-action='yes']").disabled);
  });
  seen.observe(step, { childList: true, characterData: true, subtree: true });
}); }"""


# Taps Yes if, in this very task, the page shows the step the argument starts and Yes
# is shown and awake; whether it tapped.
TAP_YES_AT = """(prefix) => {
  const yes = document.querySelector("#st-buttons [data-action='yes']");
  if (!document.querySelector("#st-step").textContent.startsWith(prefix)) return false;
  if (yes.hidden || yes.disabled) return false;
  yes.click();
  return true;
}"""


def walk(hub, mcu, page, timeout: float = 60.0) -> set[int]:
    """Do what each step asks: at the hub box for inputs, on the phone for answers, each
    answer a double tap (as a hurried thumb gives). The numbers of the steps answered."""

    def moved_on(done: int) -> bool:
        _, now = hub.get("/api/selftest")
        return not now["running"] or now["step"]["number"] != done

    answered: set[int] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, now = hub.get("/api/selftest")
        step = now["step"]
        if not now["running"]:
            return answered
        page.locator("#st-step").filter(has_text=re.compile(f"^{step['number']} of ")).wait_for()
        done = step["number"]
        if step["answer"]:
            # Tapped once per step: the page may show the next step before the hub
            # answers this GET, and a tap then is an answer to that one.
            assert done not in answered, f"step {done} was answered and is still waiting"
            if not answered:  # the first: is Yes resting when the next step appears?
                page.evaluate(RESTS_AT, f"{done + 1} of ")
            page.locator("#st-buttons [data-action='yes']").dblclick()
            if not answered:
                # A slow second tap, just after the next step showed, answers nothing.
                assert page.evaluate("() => window.restedAtNext") is True
            answered.add(done)
            # A poll answered before the tap reached the hub can show the step before
            # for a moment: a tap then names that one and is refused (409). Tapped
            # again, but only in the task that sees this step on the page (and Yes
            # awake), so the tap can answer no other step.
            while not eventually(lambda: moved_on(done), 3.0, every=0.02, pause=browsing(page)):  # noqa: B023
                assert time.monotonic() < deadline, f"step {done} was never answered"
                page.evaluate(TAP_YES_AT, f"{done} of ")
            continue
        if step["kind"] == "button":
            mcu.press(step["slot"], 40)
        else:
            mcu.marker(step["slot"], step["kind"] == "marker-on")
        # Nothing for 3 s on a loaded machine: the loop does it again, as a person would.
        eventually(lambda: moved_on(done), 3.0, every=0.02, pause=browsing(page))  # noqa: B023
    raise AssertionError("the self-test did not end")


def test_the_view_names_a_stuck_button_at_the_start(chromium, tmp_path):
    """Issue 22's up-front level check on the phone: a button held before the test
    (the sim's, held 10 s) is named in the view at once, in the page's words."""
    from tests.browser.conftest import PHONE, Phone
    from tests.http_client import HubProcess

    hub = HubProcess(tmp_path / "state", "--backend", "sim")
    context = chromium.new_context(viewport=PHONE)
    try:
        phone = Phone(context, hub.base)
        page = phone.page
        page.goto(hub.base + "/#/join")
        page.locator("#join-url").filter(has_text="http").wait_for()  # the view is live
        page.locator("#claim").click()

        slot = lit_slot(hub, page)
        hub.post(f"/api/sim/slots/{slot}/press", {"hold_ms": 1500, "centre": True})
        page.locator("#claim-note").filter(has_text="The table trusts this phone").wait_for()
        stuck = 4 if slot != 4 else 5
        pressed = threading.Thread(
            target=hub.post, args=(f"/api/sim/slots/{stuck}/press", {"hold_ms": 10000})
        )
        pressed.start()  # the pin goes down as the request arrives, long before the click
        page.goto(hub.base + "/selftest")
        page.locator("#st-buttons [data-action='start']").click()
        item = page.locator(f"#st-stuck li[data-slot='{stuck}']")
        item.wait_for()
        assert item.inner_text().startswith(f"Slot {stuck}'s button (BCM ")
        assert "reads pressed before anything was pressed" in item.inner_text()
        assert not page.locator("#st-lights").is_visible()  # the sim's ring is on the page
        page.locator("#st-buttons [data-action='stop']").click()
        pressed.join(15)
        assert not phone.errors and not phone.foreign
    finally:
        context.close()
        hub.stop()

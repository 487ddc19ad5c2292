"""The self-test view (#/selftest) on a phone, with a real ``mtrain-hub run`` on the hub
box (the fake microcontroller: the real firmware on a pty): a person at the hub presses,
places markers and answers on the phone, and the page ends with a table of every part."""

from __future__ import annotations

import time

import pytest

from tests.helpers import eventually

pytestmark = pytest.mark.browser


def test_a_person_walks_through_the_hub_box_from_the_phone(chromium, tmp_path):
    from firmware_bridge.fake_mcu import FakeMcu
    from tests.browser.conftest import PHONE, Phone
    from tests.http_client import HubProcess

    mcu = FakeMcu(str(tmp_path / "hub-box"))
    hub = HubProcess(tmp_path / "state", "--backend", "serial", "--serial-port", mcu.path)
    context = chromium.new_context(viewport=PHONE)
    try:
        phone = Phone(context, hub.base)
        phone.allowed.append("409")  # a click racing the hub's own step change
        page = phone.page
        page.goto(hub.base + "/selftest")
        page.locator("#st-buttons [data-action='start']").click()
        page.locator("#st-step").filter(has_text="slot 1 button (Pico GP2 (pin 4))").wait_for()
        walk(hub, mcu, page)
        page.locator("#st-step").filter(has_text="Every part passed.").wait_for()
        rows = page.locator("#st-results tbody tr")
        assert rows.count() == 8 + 1 + 16 + 8 + 8 + 1  # the voice's step last
        assert rows.nth(8 + 1 + 16 + 8 + 8).inner_text().split("\t")[0] == "voice"
        assert page.locator("#st-results tr[data-passed='false']").count() == 0
        centre = rows.nth(8).inner_text().split("\t")
        assert centre[:3] == ["centre button", "Pico GP18 (pin 24)", "PASS"]
        assert page.locator("#st-buttons [data-action='start']").is_visible()
        phone.shot("selftest")
        assert not phone.errors and not phone.foreign
    finally:
        context.close()
        hub.stop()
        mcu.close()


def walk(hub, mcu, page, timeout: float = 60.0) -> None:
    """Do what each step asks: at the hub box for inputs, on the phone for answers."""

    def moved_on(done: int) -> bool:
        _, now = hub.get("/api/selftest")
        return not now["running"] or now["step"]["number"] != done

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, now = hub.get("/api/selftest")
        step = now["step"]
        if not now["running"]:
            return
        page.locator("#st-step").filter(has_text=f"{step['number']} of ").wait_for()
        if step["answer"]:
            page.locator("#st-buttons [data-action='yes']").click()
        elif step["kind"] == "button":
            mcu.press(step["slot"], 40)
        else:
            mcu.marker(step["slot"], step["kind"] == "marker-on")
        # Nothing for 3 s on a loaded machine: the loop does it again, as a person would.
        done = step["number"]
        eventually(lambda: moved_on(done), 3.0, every=0.02)  # noqa: B023 (asked at once)
    raise AssertionError("the self-test did not end")

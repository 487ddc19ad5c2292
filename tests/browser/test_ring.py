"""The virtual hub draws the LED ring as the ring shows it (state.ring), and says
whether the hub box is connected when there is one."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_the_ring_is_drawn_round_the_hub(phones, hub):
    phone = phones()
    phone.open()
    page = phone.page
    page.wait_for_selector("#hub .led[data-led='23']", state="attached")
    _, state = hub.get("/api/state")
    colours = page.eval_on_selector_all("#hub .led", "els => els.map(e => e.dataset.colour)")
    assert colours == state["ring"]["pixels"]  # no game: dim white idle
    assert "no hub box" in page.get_attribute("#hub .leds", "aria-label")
    status, _ = hub.post("/api/games", {"players": ["Ann", "Bob"], "first": 1, "seats": [1, 5]})
    assert status == 201
    page.wait_for_selector("#hub .led[data-led='1'][data-effect='breathe']", state="attached")
    _, state = hub.get("/api/state")
    colour = page.get_attribute("#hub .led[data-led='1']", "data-colour")
    assert colour == state["ring"]["pixels"][1]
    assert page.locator("#hub .led[data-led='1'] animate").count() == 1
    assert page.locator("#hub-box").count() == 0 or page.locator("#hub-box").is_hidden()
    phone.shot("ring")


def test_the_page_says_when_the_hub_box_is_unplugged(chromium, tmp_path):
    from firmware_bridge.fake_mcu import FakeMcu
    from tests.browser.conftest import PHONE, Phone
    from tests.http_client import HubProcess

    mcu = FakeMcu(str(tmp_path / "hub-box"))
    hub = HubProcess(tmp_path / "state", "--backend", "serial", "--serial-port", mcu.path)
    context = chromium.new_context(viewport=PHONE)
    try:
        phone = Phone(context, hub.base)
        phone.open()
        status = phone.page.locator("#hub-box")
        status.filter(has_text="Hub box: connected").wait_for()
        assert "on the hub box" in phone.page.get_attribute("#hub .leds", "aria-label")
        # The hub announces the link's change, then the ring redrawn: between the two
        # snapshots the ring's own flag is behind. The page says what the link says.
        label = phone.page.evaluate(
            """async () => (await import("/static/ring.js")).ringSvg(
                {pixels: ["ff0000"], effects: ["steady"], connected: true}, {connected: false})"""
        )
        assert 'aria-label="LED ring (hub box disconnected)"' in label
        mcu.unplug()
        status.filter(has_text="disconnected").wait_for()
        assert "hub box disconnected" in phone.page.get_attribute("#hub .leds", "aria-label")
        mcu.replug()
        status.filter(has_text="Hub box: connected").wait_for()
        assert not phone.errors and not phone.foreign
    finally:
        context.close()
        hub.stop()
        mcu.close()

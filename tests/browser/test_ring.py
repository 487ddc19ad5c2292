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

"""The hub's own Wi-Fi on the page's Join view (web/static/join.js): the scorekeeper
sees the Wi-Fi code, its words and the printable card; a viewer sees none of it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from hub.wire.wifi import Hotspot, write_hotspot

pytestmark = pytest.mark.browser

HOTSPOT = Hotspot("Mexican Train hub", "k7pm-x2qd-h9ta-4ncw")


@pytest.fixture
def hub(hub):
    """The conftest's hub, with a hotspot in its state folder (the installer's)."""
    write_hotspot(hub.state_dir, HOTSPOT)
    return hub


def test_the_scorekeeper_shows_the_wifi_code_and_a_viewer_cannot(hub, phones):
    _, created = hub.post("/api/games", {"players": ["Ann", "Bob", "Cid"], "first": 1})
    viewer = phones()
    viewer.open("/#/join")
    expect(viewer.page.locator("#join-qr")).to_be_visible()
    expect(viewer.page.locator("#wifi")).to_be_hidden()
    assert HOTSPOT.passphrase not in viewer.page.content()

    keeper = phones()
    keeper.open(f"/#claim={created['id']}:{created['token']}")
    expect(keeper.page.locator("#role")).to_have_text("Scorekeeper")
    keeper.page.goto(hub.base + "/#/join")
    page = keeper.page
    expect(page.locator("#wifi")).to_be_visible()
    page.click("#show-wifi")
    expect(page.locator("#wifi-qr svg")).to_have_attribute(
        "aria-label", "QR code that joins the hub's Wi-Fi"
    )
    expect(page.locator("#wifi-words")).to_have_text(
        f"Network: {HOTSPOT.ssid} · Passphrase: {HOTSPOT.passphrase}"
    )
    with page.expect_download() as download:
        page.click("#wifi-cards a[href$='card.pdf']", modifiers=["Alt"])
    assert download.value.suggested_filename == "mtrain-wifi-card.pdf"

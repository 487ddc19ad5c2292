"""A phone beyond the hub's stream capacity, in headless Chromium: the hub refuses its
stream (503), the page polls /api/state and follows the table all the same, and takes
the stream once a place is free again."""

from __future__ import annotations

import signal

import pytest
from playwright.sync_api import expect

from tests.http_client import HubProcess

pytestmark = pytest.mark.browser

REFUSED = "503"  # Chromium logs the refused EventSource (and its MIME type) as errors


@pytest.fixture
def hub(tmp_path):
    """A sim hub that serves one live stream at most."""
    process = HubProcess.configured(tmp_path, "[web]\nstreams = 1\n")
    yield process
    process.stop(signal.SIGKILL)


def live(phone):
    return phone.page.locator("html")


def test_a_phone_beyond_capacity_polls_until_it_can_stream(hub, phones):
    status, _ = hub.post("/api/games", {"players": ["Ann", "Bob", "Cid"], "first": 1})
    assert status == 201
    first, second = phones(), phones()
    second.allowed += [REFUSED, "text/event-stream"]
    first.open("/")
    expect(live(first)).to_have_attribute("data-live", "stream")
    second.open("/")
    expect(live(second)).to_have_attribute("data-live", "polling")
    assert hub.get("/api/state")[0] == 200  # the API answers beside the full streams

    hub.post("/api/sim/slots/1/press", {"hold_ms": 0})  # Ann plays: Bob's turn
    for phone in (first, second):  # the streaming phone and the polling one
        expect(phone.page.locator("#hub")).to_have_attribute("data-turn", "2")
    second.shot("table-polling")

    first.page.close()  # its place is free: the other phone streams again
    expect(live(second)).to_have_attribute("data-live", "stream", timeout=30000)
    hub.post("/api/sim/slots/2/press", {"hold_ms": 0})
    expect(second.page.locator("#hub")).to_have_attribute("data-turn", "3")

"""Headless Chromium (the Debian package, driven by Playwright) against a real
``mtrain-hub run`` on 127.0.0.1. Each phone is a browser context at 390×844 that
fails the test on a console error or on any request to another host.

Never ``playwright install``: the browser is /usr/bin/chromium. Without it the tests
skip, or fail when ``CI`` is set.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.http_client import HubProcess

# How long an expectation waits for the page to get there: the suite runs in several
# processes beside a booting container on two shared cores, where a page's fetch and
# redraw took over Playwright's 5 s default once (the hand-over code in view). A
# generous bound only costs time when a test fails; what is timed is in bench/page.py.
expect.set_options(timeout=15_000)

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "scorepad"


def _missing(what: str):
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing (make test installs it as root)")
    pytest.skip(f"{what} is missing")


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole session."""
    if not os.access(CHROMIUM, os.X_OK):
        _missing(CHROMIUM)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def hub(tmp_path):
    """``mtrain-hub run --backend sim`` on 127.0.0.1."""
    process = HubProcess(tmp_path / "state")
    yield process
    # SIGKILL: an orderly stop waits ~5 s for the web server's threads serving SSE; the
    # orderly stop is tested elsewhere (test_e2e, the reconnect test below).
    process.stop(signal.SIGKILL)


def browsing(page):
    """A pause for :func:`tests.helpers.eventually` that keeps ``page``'s browser going.

    Every request of a :class:`Phone` is routed through this process (``_only_the_hub``),
    and sync Playwright runs a route handler only while the test is inside a Playwright
    call: during ``time.sleep`` a page's POST waits, unsent. A test polling the hub for
    what a tap on the page does must wait with this, or it waits for its own request."""
    return lambda seconds: page.wait_for_timeout(seconds * 1000)


class Phone:
    """One phone at the table: a page in its own context (own localStorage)."""

    def __init__(self, context, base: str) -> None:
        self.context = context
        self.base = base
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.allowed: list[str] = []  # substrings of console errors this test expects
        context.route("**/*", self._only_the_hub)
        self.page = context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))

    def _only_the_hub(self, route) -> None:
        url = route.request.url
        if urlsplit(url).hostname != "127.0.0.1":
            self.foreign.append(url)
            route.abort()
        else:
            route.continue_()

    def _console(self, message) -> None:
        if message.type == "error":
            where = (message.location or {}).get("url", "")
            text = f"{message.text} ({where})"
            if not any(part in text for part in self.allowed):
                self.errors.append(text)

    def open(self, path: str = "/") -> None:
        """Load ``path`` and wait until the hub picture shows the hub's slots."""
        self.page.goto(self.base + path)
        self.page.wait_for_selector("#hub .slot[data-slot='8']", state="attached")

    def token(self, game_id: int) -> str | None:
        """The scorekeeper token this phone holds for ``game_id`` (a hand-over link
        gives the phone that opens it a token of its own, and the link's stops working)."""
        tokens = self.page.evaluate("JSON.parse(localStorage.getItem('mtrain.tokens') || '{}')")
        return tokens.get(str(game_id))

    def shot(self, name: str) -> Path:
        """A 390×844 screenshot under test-artifacts/scorepad/."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path


@pytest.fixture
def phones(chromium, hub):
    """Make phones on ``hub``; after the test, none logged an error or left 127.0.0.1."""
    made: list[Phone] = []

    def make(base: str | None = None, scheme: str = "light", locale: str = "en-US") -> Phone:
        context = chromium.new_context(
            viewport=PHONE,
            device_scale_factor=1,
            accept_downloads=True,
            color_scheme=scheme,
            locale=locale,
        )
        phone = Phone(context, base or hub.base)
        made.append(phone)
        return phone

    yield make
    for phone in made:
        phone.context.close()
    for phone in made:
        assert not phone.foreign, f"requests left 127.0.0.1: {phone.foreign}"
        assert not phone.errors, f"console errors: {phone.errors}"

"""axe-core on every view of the scorepad, light and dark, in each language: zero
serious or critical violations.

axe-core is a pinned npm package used only by the tests (tests/package.json and its
lock; ``make test`` installs it into tests/node_modules with ``npm ci``). It is put
into the page from that local file (never a CDN). Without it the test skips, or fails
when ``CI`` is set, like the browser itself.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Phone

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
# The page's languages, each with a browser locale that chooses it.
LOCALES = {"en": "en-US", "es": "es-MX"}
SCHEMES = ["light", "dark"]
PLAYERS = ["Ann", "Bob", "Cid", "Dee"]

RUN_AXE = """async () => {
  const found = await axe.run(document, { resultTypes: ["violations"] });
  return found.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ")) }));
}"""


def axe_file() -> Path:
    """The installed axe-core, or a skip (a failure under CI) saying how to get it."""
    if not AXE.is_file():
        what = f"{AXE} (cd tests && npm ci)"
        if os.environ.get("CI"):
            pytest.fail(f"{what} is missing (make test installs it)")
        pytest.skip(f"{what} is missing")
    return AXE


def violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_file()))
    return page.evaluate(RUN_AXE)


def report(found: dict[str, list[dict]]) -> str:
    """One line per violation: where, which rule, and the first elements it names."""
    return "\n".join(
        f"{view}: {v['impact']} {v['id']} ({v['help']}): {v['nodes']}"
        for view, found_there in found.items()
        for v in found_there
    )


def _ready(page, view: str) -> None:
    """Wait until ``view`` shows what it shows once the hub answered."""
    expect(page.locator(f"#h-{view}")).to_be_visible()
    waits = {
        "table": "#status strong",
        "scores": ".standings",
        "round": "#r-save",
        "new": "#add-player:enabled",
        "games": "#games li",
        "join": "#settings [type=submit]:enabled",
        "selftest": "#st-buttons",
    }
    expect(page.locator(waits[view]).first).to_be_visible()


def _game(hub) -> dict:
    """Four players, round 1 scored, round 2 in play with a double open and a public
    train: every part of every view has something to show."""
    # The tournament rules: a double stays open until covered.
    body = {"players": PLAYERS, "rules": "consensus", "first": 1}
    _, created = hub.post("/api/games", body)
    hub.post(
        f"/api/games/{created['id']}/rounds/1/scores",
        {"points": {"Ann": 0, "Bob": 5, "Cid": 9, "Dee": 12}, "mid_round": True},
        token=created["token"],
    )
    hub.post("/api/sim/slots/2/marker", {"present": True})
    hub.post("/api/sim/slots/1/press", {"hold_ms": 1500})  # a double on Ann's train
    return created


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_every_view_has_no_serious_violation(hub, chromium, lang: str, scheme: str) -> None:
    axe_file()
    created = _game(hub)
    context = chromium.new_context(
        viewport=PHONE,
        device_scale_factor=1,
        color_scheme=scheme,
        locale=LOCALES[lang],
        # axe arrives as an inline <script>, which the hub's CSP (rightly) refuses.
        bypass_csp=True,
    )
    try:
        phone = Phone(context, hub.base)
        page = phone.page
        phone.open(f"/#claim={created['id']}:{created['token']}")
        expect(page.locator("#role")).to_have_class(re.compile(r"\bkeeper\b"))
        expect(page.locator("html")).to_have_attribute("lang", lang)
        found: dict[str, list[dict]] = {}
        for view in ("table", "scores", "round", "new", "games", "join", "selftest"):
            page.goto(f"{hub.base}/#/{view}")
            _ready(page, view)
            found[view] = violations(page)
        # The virtual hub's sheet, the hand-over code and the pad's error state too.
        page.goto(f"{hub.base}/#/table")
        _ready(page, "table")
        page.check("#sim-on")
        page.click("#hub .slot[data-slot='3']")
        expect(page.locator("#sheet")).to_be_visible()
        found["table: the virtual hub"] = violations(page)
        page.goto(f"{hub.base}/#/join")
        _ready(page, "join")
        page.click("#show-handover")
        expect(page.locator("#handover-qr svg")).to_be_visible()
        found["join: the hand-over code"] = violations(page)
        page.goto(f"{hub.base}/#/round")
        _ready(page, "round")
        page.click("#r-save")  # nothing typed: every field says what it needs
        expect(page.locator(".hand .err:not(:empty)").first).to_be_visible()
        found["round: its errors"] = violations(page)
        assert not any(found.values()), report(found)
        assert not phone.errors and not phone.foreign, (phone.errors, phone.foreign)
    finally:
        context.close()


@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_a_viewer_without_a_game_meets_no_serious_violation(hub, chromium, lang: str) -> None:
    """A phone that only views, with no game: the table, an empty games list, the
    settings it may not change (disabled, with the reason)."""
    axe_file()
    context = chromium.new_context(viewport=PHONE, locale=LOCALES[lang], bypass_csp=True)
    try:
        phone = Phone(context, hub.base)
        page = phone.page
        phone.open("/")
        expect(page.locator("#go-new")).to_be_visible()
        found = {"table": violations(page)}
        for view in ("games", "join", "new"):
            page.goto(f"{hub.base}/#/{view}")
            expect(page.locator(f"#h-{view}")).to_be_focused()
            if view == "join":
                expect(page.locator("#s-who")).not_to_be_empty()
            if view == "new":
                expect(page.locator("#add-player")).to_be_enabled()
            found[view] = violations(page)
        assert not any(found.values()), report(found)
        assert not phone.errors and not phone.foreign, (phone.errors, phone.foreign)
    finally:
        context.close()

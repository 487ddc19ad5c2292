"""The trust model in real Chromium (docs/security.md, "Trust: who may do what"): a page from
another local origin cannot change anything, even in a browser holding the
scorekeeper's cookie; a viewer cannot take over; the table claim hands the role to a
second phone by a press on the virtual hub."""

from __future__ import annotations

import http.server
import re
import threading

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARGS, PHONE  # noqa: F401  (same browser settings)
from tests.browser.test_scorepad import press
from tests.http_client import call

pytestmark = pytest.mark.browser
PLAYERS = ["Ann", "Bob", "Cid"]


def _changing_paths(game_id: int) -> list[str]:
    return [
        "/api/games",
        "/api/settings",
        "/api/sim/slots/1/press",
        "/api/sim/slots/2/marker",
        f"/api/games/{game_id}/rounds/1/scores",
        f"/api/games/{game_id}/rounds/1/blocked",
        f"/api/games/{game_id}/finish",
        f"/api/games/{game_id}/undo",
        "/api/claim",
        f"/api/games/{game_id}/resume",
        "/api/selftest",
    ]


def _attack_page(hub: str, paths: list[str]) -> str:
    """Every changing call by fetch (no-cors) and by forms of the three encodings."""
    forms = []
    for i, path in enumerate(paths):
        for j, enctype in enumerate(
            ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")
        ):
            forms.append(
                f'<iframe name="f{i}_{j}"></iframe>'
                f'<form id="form{i}_{j}" method="post" action="{hub}{path}" '
                f'enctype="{enctype}" target="f{i}_{j}">'
                f'<input name=\'{{"players": ["X", "Y"], "volume": 0, "x": "\' '
                f"value='\"}}'></form>"
            )
    return f"""<!doctype html><html><body>{"".join(forms)}<script>
const hub = {hub!r}, paths = {paths!r};
window.attack = async () => {{
  const body = JSON.stringify({{players: ["X", "Y"], volume: 0, hold_ms: 0, present: true,
                               points: {{Ann: 1, Bob: 1, Cid: 1}}, action: "start"}});
  for (const path of paths) {{
    for (const type of ["text/plain", "application/json"]) {{
      try {{ await fetch(hub + path, {{method: "POST", mode: "no-cors", credentials: "include",
                                       headers: {{"Content-Type": type}}, body}}); }} catch (e) {{}}
    }}
  }}
  for (const form of document.forms) form.submit();
  return document.forms.length;
}};
</script></body></html>"""


@pytest.fixture
def other_origin(hub):
    """A second tiny HTTP server on another 127.0.0.1 port serving the attack page."""
    pages: dict[str, str] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pages
    server.shutdown()
    server.server_close()


def _hub_view(hub) -> tuple[object, ...]:
    state = call(hub.base, "GET", "/api/state")[1]
    games = call(hub.base, "GET", "/api/games")[1]
    settings = call(hub.base, "GET", "/api/settings")[1]
    log = [e for e in call(hub.base, "GET", "/api/log?limit=2000")[1] if e["kind"] != "sound"]
    return state["game"], state["turn"], state["claim"], games, settings["volume"], len(log)


def test_a_page_from_another_origin_changes_nothing(hub, chromium, other_origin):
    origin, pages = other_origin
    status, game = hub.post("/api/games", {"players": PLAYERS, "first": 1})
    assert status == 201
    context = chromium.new_context(viewport=PHONE)
    try:
        # The phone holds the scorekeeper's cookie: another port of 127.0.0.1 is the
        # same *site*, so a SameSite=Strict cookie alone would not stop this.
        context.add_cookies(
            [
                {
                    "name": f"mtrain_token_{game['id']}",
                    "value": game["token"],
                    "url": hub.base,
                    "httpOnly": True,
                    "sameSite": "Strict",
                }
            ]
        )
        before = _hub_view(hub)
        pages["/attack.html"] = _attack_page(hub.base, _changing_paths(game["id"]))
        page = context.new_page()
        page.goto(origin + "/attack.html")
        assert page.evaluate("window.attack()") == 33
        page.wait_for_timeout(1500)  # the forms' posts land in their frames
        page.goto(hub.base + "/api/games/1/finish")  # a navigation is a GET: 405
        page.goto(hub.base + "/api/claim")
        assert _hub_view(hub) == before
        assert call(hub.base, "GET", "/api/state")[1]["game"]["phase"] == "first-turn"
    finally:
        context.close()


def test_a_viewer_cannot_take_over_and_the_scorekeeper_can(hub, phones):
    keeper = phones()
    keeper.open("/#/new")
    _, game = hub.post("/api/games", {"players": PLAYERS, "first": 1})
    viewer = phones()
    viewer.open("/")
    viewer.allowed.append("Failed to load resource")
    script = """async ([path, body, token]) => {
      const headers = {"Content-Type": "application/json"};
      if (token) headers.Authorization = "Bearer " + token;
      const r = await fetch(path, {method: "POST", headers, body: JSON.stringify(body)});
      return r.status;
    }"""
    new = {"players": ["Xi", "Yo"]}
    assert viewer.page.evaluate(script, ["/api/games", new, None]) == 403
    assert viewer.page.evaluate(script, ["/api/settings", {"volume": 0}, None]) == 401
    scores = f"/api/games/{game['id']}/rounds/1/scores"
    points = {"points": {"Ann": 0, "Bob": 1, "Cid": 2}, "mid_round": True}
    assert viewer.page.evaluate(script, [scores, points, None]) == 401
    assert call(hub.base, "GET", "/api/state")[1]["game"]["id"] == game["id"]
    keeper.allowed.append("Failed to load resource")
    assert keeper.page.evaluate(script, [scores, points, game["token"]]) == 200
    assert keeper.page.evaluate(script, ["/api/settings", {"volume": 0.5}, game["token"]]) == 200
    assert keeper.page.evaluate(script, ["/api/games", new, game["token"]]) == 201
    listed = {g["id"]: g["abandoned"] for g in call(hub.base, "GET", "/api/games")[1]}
    assert listed[game["id"]] is True


def test_the_table_claim_hands_the_role_to_a_second_phone(hub, phones):
    _, game = hub.post("/api/games", {"players": PLAYERS, "first": 1})
    second = phones()
    second.open("/#/join")
    second.page.click("#claim")
    note = second.page.locator("#claim-note")
    expect(note).to_have_text(re.compile(r"Hold the centre button and slot \d"))
    slot = int(re.search(r"and slot (\d)", note.text_content() or "").group(1))
    at_the_hub = phones()
    at_the_hub.open("/")
    press(at_the_hub, slot, "claim")  # the virtual hub's chord: the slot with the centre
    expect(note).to_contain_text("keeps the score", timeout=10000)
    token = second.page.evaluate(f"JSON.parse(localStorage.getItem('mtrain.tokens'))[{game['id']}]")
    assert token and token != game["token"]
    state = call(hub.base, "GET", "/api/state")[1]
    assert state["claim"] is None and state["turn"] == 1  # the press did nothing else
    status, _ = call(
        hub.base,
        "POST",
        f"/api/games/{game['id']}/rounds/1/scores",
        {"points": {"Ann": 0, "Bob": 1, "Cid": 2}, "mid_round": True},
        token=token,
    )
    assert status == 200

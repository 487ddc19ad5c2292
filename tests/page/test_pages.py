"""The scorepad's pages: the page and its files, the join QR code, the hand-over link."""

from __future__ import annotations

import gzip
import re
import urllib.request
from pathlib import Path

import pytest

from web import qr

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
# What the table view loads before it shows the hub (the other views are modules that
# app.js imports on their first visit).
TABLE_FIRST_LOAD = (
    "index.html",
    "app.css",
    "app.js",
    "core.js",
    "patch.js",
    "table.js",
    "running.js",
    "i18n.js",
)
# 60 KB until issue 32 re-wrapped the page's code to 100 columns (ESLint's max-len):
# the line breaks and indentation added 0.7 KB to these files (61,261 -> 61,959 bytes;
# +0.2 KB gzipped, what crosses the wire), past a budget that had 0.2 KB left. 61 KB
# leaves 0.5 KB; bench/page.py still reports against 60 KB. 63 KB since issue 33 added
# what the table view must show or send at once: the claim's chord on the ring and its
# words, the undo's stamp, the games list's next page (core.js reads its Link header),
# the keeper's token on the list (hide_stats) and the Wi-Fi code on Join: 62.8-63.2 KB
# decoded. Issue 35 (a page that opens at once) is where the first load gets lighter.
BUDGET = 63 * 1024
# The one catalog the page fetches before its first view (its language's words): every
# view's words, the players' pages' too, and since issue 32 the words of every refusal
# code the hub answers (es: ~46 KB, ~13 KB gzipped on the wire; +2 KB gzipped for them).
# 54 KB since issue 33's words (the claim's chord, the paced writes, hidden statistics,
# the Wi-Fi code, names that speak too long): es 51.4 KB, 14.0 KB gzipped. Issue 35 (a
# page that opens at once) is where the first load stops fetching every refusal's words.
CATALOG_BUDGET = 54 * 1024


def test_the_page_and_its_files(client):
    with client.get("/") as page:
        assert page.status_code == 200 and page.mimetype == "text/html"
        html = page.get_data(as_text=True)
    lazy = re.findall(r'import\("\./([\w-]+\.js)"\)', (STATIC / "app.js").read_text())
    assert len(lazy) >= 5, lazy
    linked = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
    for src in [*linked, *(f"/static/{m}" for m in lazy)]:
        with client.get(src) as answer:
            assert answer.status_code == 200, src


def test_first_load_of_the_table_is_under_budget():
    """Everything the table view needs, by the page's own links and static imports."""
    html = (STATIC / "index.html").read_text()
    linked = set(re.findall(r'(?:src|href)="/static/([^"]+)"', html))
    app = (STATIC / "app.js").read_text()
    imported = set(re.findall(r'^import [^;]*from "\./([\w-]+\.js)"', app, re.M))
    assert linked | imported | {"index.html"} <= set(TABLE_FIRST_LOAD)
    sizes = {name: (STATIC / name).stat().st_size for name in TABLE_FIRST_LOAD}
    assert sum(sizes.values()) < BUDGET, sizes


def test_each_catalog_is_under_budget():
    """The words come with the first load too: one catalog, the language in use."""
    for catalog in (STATIC / "i18n").glob("*.json"):
        assert catalog.stat().st_size < CATALOG_BUDGET, catalog.name
        raw = catalog.read_bytes()
        assert len(gzip.compress(raw)) < len(raw) / 2, catalog.name


def test_nothing_comes_from_elsewhere():
    """No CDN, remote font or script: every URL in the static files is the hub's own."""
    for path in (path for path in STATIC.rglob("*") if path.is_file()):
        text = path.read_text()
        remote = re.findall(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*""", text, re.I)
        remote = [url for url in remote if "www.w3.org/2000/svg" not in url]
        assert not remote, (path.name, remote)
        assert "@import" not in text and "fonts.g" not in text


def test_static_files_compress(client):
    """The figures bench/page.py reports rest on these files compressing well."""
    for name in TABLE_FIRST_LOAD:
        raw = (STATIC / name).read_bytes()
        assert len(gzip.compress(raw)) < len(raw) / 2, name


@pytest.mark.parametrize(
    "host, lan, url",
    [
        ("192.168.1.20:8080", "10.0.0.5", "http://192.168.1.20:8080/"),
        ("mtrain.local", "10.0.0.5", "http://mtrain.local/"),
        ("127.0.0.1:8080", "192.168.1.20", "http://192.168.1.20:8080/"),
        ("localhost", "192.168.1.20", "http://192.168.1.20:9000/"),
        ("[::1]:8080", "192.168.1.20", "http://192.168.1.20:8080/"),
        ("127.0.0.1:8080", None, "http://127.0.0.1:8080/"),
        ('"><script>', "192.168.1.20", "http://192.168.1.20:9000/"),
        (None, None, "http://localhost:9000/"),
    ],
)
def test_hub_url(host, lan, url):
    assert qr.hub_url(host, 9000, lan) == url


def test_lan_ip_is_an_address_or_none():
    address = qr.lan_ip()
    assert address is None or re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address)


def test_a_hub_bound_to_loopback_advertises_where_it_listens(tmp_path):
    """Issue 23: bound to 127.0.0.1 the join code held the LAN address, where the hub
    does not listen. It holds the address it listens on, and says only this machine
    can open it."""
    from tests.http_client import HubProcess

    hub = HubProcess(tmp_path / "state")  # --host 127.0.0.1
    try:
        status, answer = hub.get("/api/join")
        assert status == 200
        assert answer == {"url": f"http://127.0.0.1:{hub.port}/", "local_only": True}
        with urllib.request.urlopen(hub.base + "/join.svg", timeout=30) as svg:
            assert f"http://127.0.0.1:{hub.port}/" in svg.read().decode()
    finally:
        hub.stop()


def test_join_qr_code_holds_the_address(client):
    answer = client.get("/api/join", headers={"Host": "192.168.1.20:8080"})
    assert answer.get_json() == {"url": "http://192.168.1.20:8080/", "local_only": False}
    svg = client.get("/join.svg", headers={"Host": "192.168.1.20:8080"})
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    text = svg.get_data(as_text=True)
    assert text.startswith("<svg") and "viewBox" in text
    assert "http://192.168.1.20:8080/" in text  # in its <title>, for screen readers
    assert svg.headers["Cache-Control"] == "no-store"


def test_qr_svg_scales_and_escapes():
    svg = qr.qr_svg("http://x/#claim=1:a<b", "a <title> & more")
    assert 'viewBox="0 0 ' in svg and "width=" not in svg.split(">", 1)[0]
    assert "<title>a &lt;title&gt; &amp; more</title>" in svg


def test_handover_needs_the_right_token(client):
    created = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()
    good = {"game": created["id"], "token": created["token"]}
    answer = client.post("/api/join/handover", json=good, headers={"Host": "10.1.1.1:8080"})
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["url"] == f"http://10.1.1.1:8080/#claim={created['id']}:{created['token']}"
    assert body["svg"].startswith("<svg")
    wrong = client.post("/api/join/handover", json={**good, "token": "nope"})
    assert wrong.status_code == 403 and wrong.get_json()["error"] == "handover_wrong"
    assert wrong.get_json()["field"] == "token"
    unknown = client.post("/api/join/handover", json={**good, "game": 999})
    assert unknown.status_code == 403


def test_taking_over_moves_the_scorekeeping(client):
    """Issue 23, item 15: the phone that opens the hand-over link gets a token of its
    own and the link's stops working, so the phone that handed over is a viewer."""
    created = client.post("/api/games", json={"players": ["Ann", "Bob"]}).get_json()
    game, old = created["id"], created["token"]
    bearer = {"Authorization": f"Bearer {old}"}
    assert client.get(f"/api/games/{game}/keeper", headers=bearer).get_json() == {"keeper": True}
    taken = client.post("/api/join/take", json={"game": game, "token": old})
    assert taken.status_code == 200
    new = taken.get_json()["token"]
    assert taken.get_json()["game"] == game and new != old
    assert f"mtrain_token_{game}={new}" in taken.headers["Set-Cookie"]
    assert client.get(f"/api/games/{game}/keeper", headers=bearer).get_json() == {"keeper": False}
    mine = {"Authorization": f"Bearer {new}"}
    assert client.get(f"/api/games/{game}/keeper", headers=mine).get_json() == {"keeper": True}
    again = client.post("/api/join/take", json={"game": game, "token": old})
    assert again.status_code == 403 and again.get_json()["error"] == "handover_used"
    refused = client.post(
        f"/api/games/{game}/rounds/1/scores",
        json={"points": {"Ann": 1, "Bob": 0}, "mid_round": True},
        headers=bearer,
    )
    assert refused.status_code == 403


@pytest.mark.parametrize(
    "body, field",
    [
        (b"not json", "body"),
        (b"[1]", "body"),
        (b'{"token": "x"}', "game"),
        (b'{"game": true, "token": "x"}', "game"),
        (b'{"game": 1}', "token"),
        (b'{"game": 1, "token": "  "}', "token"),
    ],
)
def test_handover_bad_input(client, body, field):
    answer = client.post("/api/join/handover", data=body, content_type="application/json")
    named = None if field == "body" else field  # the body as a whole names no field
    assert answer.status_code == 400 and answer.get_json().get("field") == named

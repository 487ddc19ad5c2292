"""The hub's own Wi-Fi on the page (web/wifi_api.py) and its printable card
(web/wifi_card.py): only the scorekeeper or the table's proof sees the passphrase; the
card's Wi-Fi QR code decodes (zbarimg) to the hotspot's name and passphrase."""

from __future__ import annotations

import subprocess

import pytest

from hub.wire.wifi import Hotspot, wifi_code, write_hotspot
from tests.conftest import need
from tests.fake_service import FakeHubService
from web import create_app

HOTSPOT = Hotspot("Mexican Train hub", "k7pm-x2qd-h9ta-4ncw")
URL = "http://10.42.0.1/"


@pytest.fixture
def fake():
    return FakeHubService()


@pytest.fixture
def client(fake, tmp_path):
    write_hotspot(tmp_path, HOTSPOT)
    config = {"TESTING": True, "HUB_HOTSPOT": {"state_dir": str(tmp_path), "url": URL}}
    return create_app(fake, config).test_client()


def keeper_of_a_game(fake, client) -> str:
    answer = client.post("/api/games", json={"players": ["Ann", "Bob"]})
    assert answer.status_code == 201, answer.get_json()
    return fake.tokens[answer.get_json()["id"]]


@pytest.mark.parametrize("path", ["/api/wifi", "/api/wifi/card.png", "/api/wifi/card.pdf"])
def test_a_viewer_never_sees_the_passphrase(fake, client, path):
    keeper_of_a_game(fake, client)
    client.delete_cookie("mtrain_token_1")
    answer = client.get(path)
    assert answer.status_code == 401 and answer.get_json()["error"] == "wifi_proof"
    assert HOTSPOT.passphrase not in answer.get_data(as_text=True)
    answer = client.get(path, headers={"Authorization": "Bearer not-the-token"})
    assert answer.status_code == 403 and answer.get_json()["error"] == "wifi_proof"


def test_the_scorekeeper_gets_the_wifi_code(fake, client):
    token = keeper_of_a_game(fake, client)
    answer = client.get("/api/wifi", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["ssid"] == HOTSPOT.ssid and body["passphrase"] == HOTSPOT.passphrase
    assert body["code"] == wifi_code(HOTSPOT) and body["url"] == URL
    assert body["svg"].startswith("<svg") or "<svg" in body["svg"]
    assert answer.headers["Cache-Control"] == "no-store"


def test_the_tables_proof_gets_it_with_no_game_running(fake, client):
    fake.table_tokens.add("table-token")
    assert client.get("/api/wifi").status_code == 401
    client.set_cookie("mtrain_table", "table-token")
    assert client.get("/api/wifi").get_json()["passphrase"] == HOTSPOT.passphrase


def test_a_hub_without_a_hotspot_says_so(fake, tmp_path):
    client = create_app(
        fake, {"TESTING": True, "HUB_HOTSPOT": {"state_dir": str(tmp_path), "url": URL}}
    ).test_client()
    fake.table_tokens.add("table-token")
    client.set_cookie("mtrain_table", "table-token")
    answer = client.get("/api/wifi")
    assert answer.status_code == 404 and answer.get_json()["error"] == "wifi_none"


def decoded(picture: bytes, tmp_path) -> set[str]:
    """Every QR code zbarimg reads in ``picture``."""
    zbarimg = need("zbarimg")
    path = tmp_path / "card.png"
    path.write_bytes(picture)
    done = subprocess.run(
        [zbarimg, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(path)],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return {line.decode() for line in done.stdout.splitlines() if line}


def test_the_card_png_decodes_to_the_hotspot_and_the_page(fake, client, tmp_path):
    token = keeper_of_a_game(fake, client)
    answer = client.get("/api/wifi/card.png", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200 and answer.mimetype == "image/png"
    assert answer.headers["Cache-Control"] == "no-store"
    codes = decoded(answer.data, tmp_path)
    assert codes == {f"WIFI:T:WPA;S:{HOTSPOT.ssid};P:{HOTSPOT.passphrase};;", URL}


def test_the_card_decodes_with_special_characters(fake, tmp_path):
    from web.wifi_card import render

    hotspot = Hotspot('Ann;s "hub"', "pa\\ss;wo,rd:x")
    codes = decoded(render(hotspot, URL, "es", "png"), tmp_path)
    assert wifi_code(hotspot) in codes


def test_the_card_pdf_is_a_pdf(fake, client):
    token = keeper_of_a_game(fake, client)
    answer = client.get("/api/wifi/card.pdf", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200 and answer.mimetype == "application/pdf"
    assert answer.data.startswith(b"%PDF-") and b"%%EOF" in answer.data[-64:]

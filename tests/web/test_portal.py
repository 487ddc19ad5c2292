"""The captive portal (web/guard.py): on the hub's own Wi-Fi (``[network] portal``) a
read of a page on a foreign Host is sent to the hub's page, which opens a phone's
portal window; the API and every change on a foreign Host stay refused (421)."""

from __future__ import annotations

import pytest

from hub.runtime.config import ConfigError, load, portal_url
from tests.fake_service import FakeHubService
from web import create_app

PORTAL = "http://10.42.0.1/"
# The operating systems' connectivity checks: (Host, path, the answer that means
# "online", which the portal must never give).
CHECKS = [
    ("connectivitycheck.gstatic.com", "/generate_204", 204, b""),  # Android
    ("captive.apple.com", "/hotspot-detect.html", 200, b"Success"),  # Apple
    ("www.msftconnecttest.com", "/connecttest.txt", 200, b"Microsoft Connect Test"),  # Windows
    ("detectportal.firefox.com", "/success.txt", 200, b"success"),  # Firefox
]
OTHER_PAGES = [("example.com", "/"), ("neverssl.com", "/online/"), ("a.b.example", "/x?y=1")]


@pytest.fixture
def fake():
    return FakeHubService()


def _client(fake, portal: str):
    return create_app(fake, {"TESTING": True, "HUB_PORTAL": portal}).test_client()


@pytest.mark.parametrize("host, path, online_status, online_body", CHECKS)
def test_each_connectivity_check_opens_the_portal_on_the_scorepad(
    fake, host, path, online_status, online_body
):
    answer = _client(fake, PORTAL).get(path, headers={"Host": host})
    assert answer.status_code == 302 and answer.headers["Location"] == PORTAL
    assert answer.headers["Cache-Control"] == "no-store"
    assert (answer.status_code, answer.data) != (online_status, online_body)


@pytest.mark.parametrize("host, path", [(h, p) for h, p, *_ in CHECKS] + OTHER_PAGES)
def test_without_the_portal_a_foreign_host_is_refused(fake, host, path):
    answer = _client(fake, "").get(path, headers={"Host": host})
    assert answer.status_code == 421 and answer.get_json()["error"] == "host_refused"
    assert "Location" not in answer.headers


@pytest.mark.parametrize("host, path", OTHER_PAGES)
def test_any_page_on_a_foreign_host_is_sent_to_the_hub(fake, host, path):
    client = _client(fake, PORTAL)
    for method in (client.get, client.head):
        answer = method(path, headers={"Host": host})
        assert answer.status_code == 302 and answer.headers["Location"] == PORTAL


@pytest.mark.parametrize("path", ["/api/state", "/api/games", "/api", "/api/events"])
def test_the_api_on_a_foreign_host_is_still_refused(fake, path):
    answer = _client(fake, PORTAL).get(path, headers={"Host": "connectivitycheck.gstatic.com"})
    assert answer.status_code == 421 and answer.get_json()["error"] == "host_refused"


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_no_change_on_a_foreign_host_is_redirected(fake, method):
    client = _client(fake, PORTAL)
    for path in ("/", "/generate_204", "/api/games"):
        answer = getattr(client, method)(
            path, json={"players": ["Ann", "Bob"]}, headers={"Host": "captive.apple.com"}
        )
        assert answer.status_code == 421
    assert [name for name, _ in fake.calls if name != "get_game"] == []


def test_the_hubs_own_address_is_served_as_ever(fake):
    client = _client(fake, PORTAL)
    assert client.get("/", headers={"Host": "10.42.0.1"}).status_code == 200
    assert client.get("/api/state", headers={"Host": "10.42.0.1"}).status_code == 200


def test_the_config_names_the_portal(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text('[network]\nportal = true\naddress = "10.42.0.1"\n')
    config = load(path)
    assert portal_url(config["network"], 80) == "http://10.42.0.1/"
    assert portal_url(config["network"], 8080) == "http://10.42.0.1:8080/"
    assert portal_url(load()["network"], 80) == ""  # off by default
    path.write_text('[network]\naddress = "mtrain.local"\n')
    with pytest.raises(ConfigError, match="network.address"):
        load(path)

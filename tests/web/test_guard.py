"""The request guard: changes are JSON only and come from the hub's own page; every
answer carries the security headers (see web/guard.py and docs/security.md)."""

from __future__ import annotations

import pytest

from tests.fake_service import FakeHubService
from web import create_app
from web.guard import same_origin

CHANGES = [
    ("post", "/api/games", {"players": ["Ann", "Bob"]}),
    ("post", "/api/settings", {"volume": 0.1}),
    ("post", "/api/sim/slots/1/press", {"hold_ms": 0}),
    ("post", "/api/sim/slots/1/marker", {"present": True}),
    ("post", "/api/games/1/rounds/1/scores", {"points": {"Ann": 1, "Bob": 0}}),
    ("post", "/api/games/1/finish", {}),
]


@pytest.fixture
def fake():
    return FakeHubService()


@pytest.fixture
def client(fake):
    return create_app(fake, {"TESTING": True}).test_client()


def _changed(fake: FakeHubService) -> list[str]:
    return [name for name, _ in fake.calls if name not in ("get_game", "selftest")]  # reads


@pytest.mark.parametrize("method, path, body", CHANGES)
@pytest.mark.parametrize(
    "content_type, data",
    [
        ("text/plain", '{"players": ["Ann", "Bob"]}'),
        ("application/x-www-form-urlencoded", "players=Ann"),
        (
            "multipart/form-data; boundary=x",
            '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n',
        ),
        (None, ""),
    ],
)
def test_a_change_that_is_not_json_is_refused_415(
    client, fake, method, path, body, content_type, data
):
    headers = {"Content-Type": content_type} if content_type else {}
    r = getattr(client, method)(path, data=data, headers=headers)
    assert r.status_code == 415
    assert r.get_json()["error"] == "json_only"
    assert _changed(fake) == []


@pytest.mark.parametrize("method, path, body", CHANGES)
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://127.0.0.1:9999"},  # another port of the same machine
        {"Origin": "https://localhost"},  # another scheme
        {"Origin": "null"},  # a sandboxed frame or a file: page
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_a_change_from_another_origin_is_refused_403(client, fake, method, path, body, headers):
    r = getattr(client, method)(path, json=body, headers=headers)
    assert r.status_code == 403
    code = "origin_refused" if "Origin" in headers else "foreign_site"
    assert r.get_json()["error"] == code
    if "Origin" in headers:
        assert r.get_json()["params"] == {"origin": headers["Origin"]}
    assert r.get_json()["message"] == "Only the hub's own page can change anything."
    assert _changed(fake) == []


@pytest.mark.parametrize(
    "headers",
    [
        {},  # curl, the tests, the CLI: no Origin at all
        {"Origin": "http://localhost"},  # the hub's own page (the test client's Host)
        {"Origin": "http://LOCALHOST:80"},
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},  # typed by the user
    ],
)
def test_a_json_change_from_the_hub_itself_is_served(client, fake, headers):
    r = client.post("/api/games", json={"players": ["Ann", "Bob"]}, headers=headers)
    assert r.status_code == 201, r.get_json()
    assert _changed(fake) == ["new_game"]


def test_json_with_a_charset_is_json(client, fake):
    r = client.post(
        "/api/games",
        data='{"players": ["Ann", "Bob"]}',
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert r.status_code == 201


def test_reads_need_neither_json_nor_the_origin(client):
    r = client.get("/api/state", headers={"Origin": "http://evil.example"})
    assert r.status_code == 200


def test_unknown_address_and_method_answer_404_and_405_first(client):
    assert client.post("/api/nothing").status_code == 404
    assert client.delete("/api/state").status_code == 405


@pytest.mark.parametrize("path", ["/", "/api/state", "/api/nothing", "/static/app.js", "/join.svg"])
def test_every_answer_carries_the_security_headers(client, path):
    r = client.get(path)
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"
    assert r.headers["Referrer-Policy"] == "no-referrer"


def test_an_error_answer_carries_them_too(client):
    r = client.post("/api/games", data="x", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("scheme_name", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_the_bearer_scheme_name_is_case_insensitive(client, fake, scheme_name):
    client.post("/api/games", json={"players": ["Ann", "Bob"]})
    client.delete_cookie("mtrain_token_1")
    r = client.post(
        "/api/games/1/rounds/1/scores",
        json={"points": {"Ann": 1, "Bob": 0}},
        headers={"Authorization": f"{scheme_name} token-1"},
    )
    assert r.status_code == 200, r.get_json()


def test_the_game_cookie_is_strict_and_http_only(client):
    r = client.post("/api/games", json={"players": ["Ann", "Bob"]})
    cookie = r.headers["Set-Cookie"]
    assert "SameSite=Strict" in cookie and "HttpOnly" in cookie


@pytest.mark.parametrize(
    "origin, host, scheme, same",
    [
        ("http://hub.local:8080", "hub.local:8080", "http", True),
        ("http://hub.local", "hub.local:80", "http", True),
        ("https://hub.local", "hub.local:443", "https", True),
        ("http://[::1]:8080", "[::1]:8080", "http", True),
        ("http://[::1]", "[::1]:8080", "http", False),
        ("http://hub.local:8081", "hub.local:8080", "http", False),
        ("http://hub.local.evil:8080", "hub.local:8080", "http", False),
        ("http://hub.local:8080/x", "hub.local:8080", "http", False),
        ("null", "hub.local", "http", False),
        ("http://hub.local", None, "http", False),
    ],
)
def test_same_origin(origin, host, scheme, same):
    assert same_origin(origin, host, scheme) is same


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:8080", "hub.evil.example.", "localhost.evil.example", "x"],
)
def test_a_host_that_is_not_the_hubs_is_refused(client, fake, host):
    # The DNS-rebinding shape: a name the attacker controls, and a matching Origin.
    answer = client.post(
        "/api/games",
        json={"players": ["Ann", "Bob"]},
        headers={"Host": host, "Origin": f"http://{host}"},
    )
    assert answer.status_code == 421 and answer.get_json()["error"] == "host_refused"
    assert answer.get_json()["params"] == {"host": host}
    assert client.get("/api/state", headers={"Host": host}).status_code == 421
    assert _changed(fake) == []


@pytest.mark.parametrize(
    "host",
    ["localhost", "127.0.0.1:8080", "[::1]:8080", "192.168.1.20", "LOCALHOST.", "10.0.0.5:8080"],
)
def test_the_hubs_own_names_and_addresses_are_served(client, host):
    assert client.get("/api/state", headers={"Host": host}).status_code == 200


def test_more_names_are_configurable(fake):
    import socket

    client = create_app(fake, {"TESTING": True, "HUB_HOSTS": ["mtrain.example"]}).test_client()
    assert client.get("/api/state", headers={"Host": "mtrain.example:80"}).status_code == 200
    machine = socket.gethostname()
    assert client.get("/api/state", headers={"Host": machine}).status_code == 200
    assert client.get("/api/state", headers={"Host": "other.example"}).status_code == 421

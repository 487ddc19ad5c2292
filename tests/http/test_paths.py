"""Issue 33, item 5: the early gate and every limit match the path as the app routes it.

Werkzeug drops a path's leading slashes before it routes, so ``//api/claim`` reached
the claim handler while the server's early gate, comparing the raw path, counted
nothing (and the handler does not count a request the gate has seen): a claim flood
past every limit. The server now hands the app one form of the path
(:func:`hub.http.targets.routed_path`) and keys its gate on that same string.
"""

from __future__ import annotations

import socket

import pytest

from hub.http.targets import routed_path, split_target
from tests.http.test_capacity import served  # noqa: F401  (the fixture)

# Every way of writing /api/claim, each now the claim handler's and counted by the gate.
# On the old code (six claims of each, statuses): a leading "//" reached the handler
# past every limit ([202, 409, 409, 409, 409, 409]: never a 429), interior runs of
# slashes got Flask's 308 (a worker's request the gate never counted), dot segments a
# 404; the rest were counted as now ([202, 409, 409, 429, 429, 429]).
ROUTED = [
    "//api/claim",
    "///api/claim",
    "//api/claim?x",
    "//api/%63laim",
    "http://127.0.0.1//api/claim",
    "/api//claim",
    "///api///claim",
    "/api%2F%2Fclaim",
    "/./api/claim",
    "/api/./claim",
    "/api/x/../claim",
    "/../api/claim",
    "/api/claim",
    "/api/%63laim",
    "/api/claim?x",
    "%2Fapi/claim",
    "http://127.0.0.1/api/claim",
]
ELSEWHERE = ["/api/claim/", "/API/claim", "/api/Claim", "/api/claim/.", "/api/claim%20"]


def post(base: str, path: str, method: str = "POST") -> tuple[int, bytes]:
    """One ``POST path`` (both written as given) with an empty JSON body: status, whole
    answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: 2\r\nConnection: close\r\n\r\n{}".encode()
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1]), answer


@pytest.mark.parametrize("path", ROUTED)
def test_every_spelling_of_the_claim_path_is_counted_by_the_early_gate(served, path):  # noqa: F811
    """Six claims written ``path``: the first three reach the handler (202, then 409
    while the first waits), the rest get the gate's 429; none is redirected."""
    _, base = served
    statuses = [post(base, path)[0] for _ in range(6)]
    assert statuses == [202, 409, 409, 429, 429, 429]
    assert post(base, "/api/claim")[0] == 429  # one limit, however the path was written


@pytest.mark.parametrize("method", ["post", "Post", "pOST"])
def test_every_spelling_of_the_method_is_counted_by_the_early_gate(served, method):  # noqa: F811
    """Werkzeug routes ``post`` as POST; on the old code the gate, comparing the method
    as sent, counted none of them ([202, 409, 409, 409, 409, 409])."""
    _, base = served
    statuses = [post(base, "/api/claim", method)[0] for _ in range(6)]
    assert statuses == [202, 409, 409, 429, 429, 429]


def test_a_head_written_in_lower_case_gets_no_body(served):  # noqa: F811
    _, base = served
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"head /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and body == b""


@pytest.mark.parametrize("path", ELSEWHERE)
def test_a_path_the_app_routes_elsewhere_is_neither_served_nor_counted(served, path):  # noqa: F811
    _, base = served
    for _ in range(4):
        status, answer = post(base, path)
        assert status in (404, 405)
        assert b'"error":' in answer  # the app's own typed refusal
    assert post(base, "/api/claim")[0] == 202  # none of them was counted as a claim


@pytest.mark.parametrize(
    ("raw", "routed"),
    [
        ("/", "/"),
        ("", "/"),
        ("//", "/"),
        ("//api/claim", "/api/claim"),
        ("/api//claim//", "/api/claim/"),
        ("/./api/claim", "/api/claim"),
        ("/api/x/../claim", "/api/claim"),
        ("/../../api/claim", "/api/claim"),
        ("/api/claim/.", "/api/claim/"),
        ("/api/claim/..", "/api/"),
        ("/api/%63laim", "/api/claim"),
        ("/static/%2e%2e/api/claim", "/api/claim"),
        ("/API/Claim", "/API/Claim"),
        ("/players/%C3%A9", "/players/\xc3\xa9"),  # WSGI's latin-1 text of the UTF-8
    ],
)
def test_the_routed_path(raw, routed):
    assert routed_path(raw) == routed


def test_the_target_splits_into_the_routed_path_and_the_raw_query():
    assert split_target("//api/claim?x=%2F") == ("/api/claim", "x=%2F")
    assert split_target("http://hub.local//x/./y?q=1") == ("/x/y", "q=1")

"""Issue 33, item 11: every 400 the server answers itself is the API's JSON refusal.

A request Tornado cannot read (a NUL or another control character in a header, a bad
request line, a broken length or chunk) got a bare ``400 Bad Request`` with no body,
as waitress's plain-text 400 before it; now it gets ``{"error": "bad_request",
"params", "message"}`` like every other refusal, and the connection is closed."""

from __future__ import annotations

import json

import pytest

from tests.http.test_webserver import answer_of, served  # noqa: F401  (the fixture)
from tests.http_client import send_raw

HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
UNREADABLE = {
    "a NUL in a header": HEAD + b"X-Name: a\x00b\r\n\r\n",
    "a NUL in the Host": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\x00\r\n\r\n",
    "a control character in a header": HEAD + b"X-Name: a\x01b\r\n\r\n",
    "an escape in a header": HEAD + b"X-Name: a\x1b[2Jb\r\n\r\n",
    "a DEL in a header": HEAD + b"X-Name: a\x7fb\r\n\r\n",
    "a bare CR in a header": HEAD + b"X-Name: a\rb\r\n\r\n",
    "a space in a header's name": HEAD + b"X Name: a\r\n\r\n",
    "a header without a colon": HEAD + b"XName\r\n\r\n",
    "a bad request line": b"GET /\x00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    "a length that is no number": HEAD.replace(b"GET", b"POST") + b"Content-Length: 1x\r\n\r\n{}",
    "two lengths": HEAD.replace(b"GET", b"POST")
    + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    "a broken chunk": HEAD.replace(b"GET", b"POST")
    + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
}


@pytest.mark.parametrize("request_bytes", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_request_the_server_cannot_read_gets_the_json_refusal(served, request_bytes):  # noqa: F811
    sock, _ = send_raw(f"127.0.0.1:{served.effective_port}", request_bytes)
    answer = answer_of(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"Content-Type: application/json" in head and b"Connection: close" in head
    refusal = json.loads(body)
    assert refusal == {
        "error": "bad_request",
        "params": {},
        "message": "The hub could not read that request.",
    }
    assert sock.recv(1) == b""  # and the connection closed
    sock.close()


def test_the_connection_is_served_again_after_a_good_request(served):  # noqa: F811
    """A readable request on the same server still gets its answer (the 400 is not
    stuck to the server or the next connection)."""
    sock, _ = send_raw(f"127.0.0.1:{served.effective_port}", HEAD + b"X-Name: ok\r\n\r\n")
    assert answer_of(sock).endswith(b"ok")
    sock.close()

"""The claim lock-out on the hub's own server (issue 33, 2): a stranger at one loopback
address floods claims (its own claim waiting, the rest refused by the early gate); the
family's phone, at another address, is lit at once and granted by the table's chord,
within the minute the acceptance allows, on the real clock."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any

from hub.runtime.clock import SystemClock


def _ask(port: int, source: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One request from loopback address ``source`` (the server sees it as the asker)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=30, source_address=(source, 0)
    )
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        data = None if body is None else json.dumps(body)
        connection.request(method, path, body=data, headers=headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        connection.close()


def test_a_strangers_flood_never_keeps_the_family_from_its_claim(make_hub):
    hub = make_hub(threaded=True, clock=SystemClock())
    hub.serve("127.0.0.1", 0, block=False, on_listening=lambda host, port: None)
    port = hub._server.effective_port
    stranger, family = "127.0.0.66", "127.0.0.2"
    asked = time.monotonic()
    statuses = [_ask(port, stranger, "POST", "/api/claim", {})[0] for _ in range(10)]
    assert statuses == [202, 409, 409] + [429] * 7  # the gate refuses the rest unread
    status, ours = _ask(port, family, "POST", "/api/claim", {})
    assert status == 202, ours
    chord = {"hold_ms": 1500, "centre": True}  # hands on the hub
    assert _ask(port, family, "POST", f"/api/sim/slots/{ours['slot']}/press", chord)[0] == 200
    status, answer = _ask(port, family, "GET", f"/api/claim/{ours['claim']}")
    assert status == 200 and answer["state"] == "granted" and answer["token"]
    assert time.monotonic() - asked < 60  # the acceptance's minute, on the real clock

"""What a refusal of huge client text costs the hub, beside a plain GET, in one run.

Issue 32: refusals were English read back by ~60 regular expressions, one of them
quadratic; a POST with a 200 KB ``Origin`` held every phone and the loop for 12 s.
Now a refusal is a code with small params, and its words come from the catalogs.

A hub (``mtrain-hub run``, sim backend, sound on ``null``) is served in a subprocess.
Each round, over loopback, in turns:

- the baseline: a phone's ``GET /api/state`` alone;
- each attack: the request sent whole, then at once a phone's ``GET /api/state``;
  timed are the attack's answer (from its last byte sent) and the GET's (from its
  own). The attacks: a POST with a 256 KB ``Origin`` (above the server's head limit),
  one with a 200 KB ``Origin`` (below it: the guard refuses it), one with a 60 KB
  unknown field (the body limit is 64 KB; a 256 KB one is refused 413 unread) and a
  ``GET /api/season?since=`` of 120 KB. The text is the kind the old regexes took
  quadratic time over (``'s points`` again and again).

Printed: each answer's median and worst over the rounds, the GET's beside each attack
with its median's ratio to the baseline's, and the goal (issue 32): every answer within
50 ms (judged on the medians: this machine is shared; the worst is printed beside the
plain GET's own worst).

    python bench/refusal_cost.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.http_client import HubProcess, send_raw, status_of  # noqa: E402
from tests.http_client import raw_get as get  # noqa: E402
from tests.http_client import raw_post as post  # noqa: E402

GOAL_MS = 50.0
EVIL = "'s points "


def evil(size: int) -> str:
    """``size`` characters of the text the old regexes choked on."""
    return (EVIL * (size // len(EVIL) + 1))[:size]


def attacks(host: str) -> dict[str, bytes]:
    """Each attack's name and its whole request."""
    field = b'{"' + evil(60 * 1024).encode() + b'": 1}'
    since = evil(120 * 1024).replace(" ", "%20").replace("'", "%27")
    return {
        "POST, 256 KB Origin": post(host, f"Origin: http://{evil(256 * 1024)}\r\n", b"{}"),
        "POST, 200 KB Origin": post(host, f"Origin: http://{evil(200 * 1024)}\r\n", b"{}"),
        "POST, 60 KB unknown field": post(host, "", field),
        "GET ?since= of 120 KB": get(host, f"/api/season?since={since}"),
    }


def send(port: int, request: bytes) -> tuple[socket.socket, float]:
    return send_raw(f"127.0.0.1:{port}", request)


def answer(sock: socket.socket, sent: float) -> tuple[int, float]:
    """The status on ``sock`` and the milliseconds from ``sent`` to its first line."""
    status, took = status_of(sock, sent)
    return status, took * 1000


def beside(port: int, request: bytes, state: bytes) -> tuple[int, float, float]:
    """The attack's status and milliseconds, and those of a GET sent right after it."""
    refused = send(port, request)
    phone = send(port, state)
    status, took = answer(*refused)
    _, phone_took = answer(*phone)
    return status, took, phone_took


def line(name: str, times: list[float], base: float | None = None) -> str:
    median = statistics.median(times)
    ratio = f"{median / base:6.2f}x" if base else "  1.00x"
    return f"{name:<44} {median:8.2f} {max(times):8.2f} {ratio}"


def run(rounds: int, port: int) -> list[str]:
    host = f"127.0.0.1:{port}"
    state = get(host, "/api/state")
    cases = attacks(host)
    plain: list[float] = []
    took: dict[str, list[float]] = {name: [] for name in cases}
    phone: dict[str, list[float]] = {name: [] for name in cases}
    statuses: dict[str, set[int]] = {name: set() for name in cases}
    for _ in range(rounds):
        plain.append(answer(*send(port, state))[1])
        for name, request in cases.items():
            status, ms, beside_ms = beside(port, request, state)
            statuses[name].add(status)
            took[name].append(ms)
            phone[name].append(beside_ms)
    base = statistics.median(plain)
    out = [
        f"refusal cost, {rounds} rounds; ms: median, worst, median / plain GET's",
        line("GET /api/state alone (baseline)", plain),
    ]
    for name in cases:
        codes = "/".join(str(s) for s in sorted(statuses[name]))
        out.append(line(f"{name} -> {codes}", took[name], base))
        out.append(line("  GET /api/state beside it", phone[name], base))
    slowest = max(statistics.median(v) for v in (*took.values(), *phone.values()))
    worst = max(max(v) for v in (*took.values(), *phone.values()))
    met = "met" if slowest <= GOAL_MS else "NOT met"
    out.append(
        f"goal every answer's median within {GOAL_MS:g} ms: {met} (slowest median "
        f"{slowest:.1f} ms; worst single answer {worst:.1f} ms, "
        f"the plain GET's {max(plain):.1f} ms)"
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        hub = HubProcess.configured(Path(folder), '[sound]\ndevice = "null"\n')
        try:
            answer(*send(hub.port, get(f"127.0.0.1:{hub.port}", "/api/state")))  # warm
            for text in run(args.rounds, hub.port):
                print(text)
        finally:
            hub.stop()


if __name__ == "__main__":
    main()

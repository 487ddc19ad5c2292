"""How many claims reach the claim handler when a flood writes the path another way.

Issue 33, item 5: the server's early gate compared the raw path, and Werkzeug drops a
path's leading slashes (and upper-cases its method) before it routes, so
``POST //api/claim`` reached the handler past every limit (the issue measured 1,165
claims a second). Now the server hands the gate and the app one form of the path and
the method (hub/http/targets.py), and every spelling is one limit.

A hub (``mtrain-hub run``, sim backend, sound on ``null``) is served in a subprocess.
First the baseline, ``POST /api/claim`` flooded; then each other spelling, one after
the other on the same hub (the limits, 3 a minute an address and 10 in all, are used
up by the baseline's first three). Each flood: ``--threads`` threads for ``--seconds``,
a new connection per claim. Printed for each: requests a second, and how many reached
the handler (answered 202 or 409, not the gate's 429) in all and a second; and the
goal: once the baseline has used the limits up, no other spelling reaches it at all.

    python bench/path_gate.py [--seconds 3] [--threads 8]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.http_client import HubProcess, send_raw, status_of  # noqa: E402

SPELLINGS = [
    ("POST", "/api/claim"),  # the baseline
    ("POST", "//api/claim"),
    ("POST", "//api/claim?x"),
    ("POST", "/api//claim"),
    ("POST", "/./api/claim"),
    ("POST", "/api/%63laim"),
    ("post", "/api/claim"),
]
REACHED = {202, 409}  # the handler answered: a claim started, or one waiting refused it


def claim(address: str, method: str, path: str) -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
        "Content-Length: 2\r\nConnection: close\r\n\r\n{}"
    ).encode()


def flood(address: str, request: bytes, seconds: float, threads: int) -> Counter[int]:
    """Every status the flood got, counted."""
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    until = time.monotonic() + seconds

    def one() -> None:
        while time.monotonic() < until:
            status, _ = status_of(*send_raw(address, request))
            with lock:
                statuses[status] += 1

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        hub = HubProcess.configured(Path(folder), '[sound]\ndevice = "null"\n')
        address = f"127.0.0.1:{hub.port}"
        print(
            f"claim floods, {args.threads} threads x {args.seconds:g} s each, a connection a claim"
        )
        print(f"{'spelling':<28} {'requests/s':>10} {'reached':>8} {'reached/s':>10}  statuses")
        most = 0  # reached by any spelling but the baseline
        try:
            for method, path in SPELLINGS:
                statuses = flood(address, claim(address, method, path), args.seconds, args.threads)
                total = sum(statuses.values())
                reached = sum(n for status, n in statuses.items() if status in REACHED)
                name = f"{method} {path}" + (
                    "  (baseline)" if path == "/api/claim" and method == "POST" else ""
                )
                codes = ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items()))
                if (method, path) != SPELLINGS[0]:
                    most = max(most, reached)
                print(
                    f"{name:<28} {total / args.seconds:10.0f} {reached:8d} "
                    f"{reached / args.seconds:10.1f}  {codes}"
                )
        finally:
            hub.stop()
        met = "met" if most == 0 else "NOT met"
        print(f"goal no other spelling reaches the handler once the limit is used up: {met}")


if __name__ == "__main__":
    main()

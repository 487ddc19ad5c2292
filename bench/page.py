"""The scorepad's first load, and press-to-screen latency with 50 other phones listening.

1. First load of the table view in headless Chromium (390×844) from ``mtrain-hub run``
   with a game running, a fresh browser profile: every request the page makes until
   the hub picture shows the turn, from the page's own Resource Timing entries: the
   bytes as the page uses them (decoded), the body as sent (gzip, which the hub
   prepares once at start) and the bytes on the wire (headers included), and the
   request count. The SSE stream never ends: its bytes up to the end of its first
   event (the snapshot) are counted, read by a raw client beside the page. Budget:
   under 60 KB decoded. Then the same phone reloads: what crosses the wire again
   (every file answers 304 Not Modified).
   First contentful paint (Chromium's ``performance.getEntriesByType('paint')``) of
   the first load and of the reload, beside the same browser's paint of a one-line
   page that Playwright answers without the network (the floor: a bare document, no
   CSS, no script), each in a fresh profile, alternating, medians of ``--loads``.
2. Press to DOM: in the page, ``fetch`` POSTs ``/api/sim/slots/<n>/press`` (a tap by
   the player whose turn it is) and a MutationObserver stops the clock when the hub
   picture's ``data-turn`` changes. That update arrives only over the page's SSE
   stream (the bench ignores the POST's answer). Measured with the page as the only
   SSE client, then with 50 more (raw HTTP readers in this process), then alone again;
   the baseline is both single-client runs together, so drift over the run shows.
   Goal: p99 with 50 more clients within 2× the single-client p99.

Usage: python bench/page.py [--presses 100] [--clients 50] [--loads 9]
(needs /usr/bin/chromium and the playwright package; never ``playwright install``)
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.benchstats import percentile  # noqa: E402
from tests.http_client import HubProcess, dechunked  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BUDGET = 60 * 1024
PLAYERS = ["Ann", "Bob", "Cid", "Dee"]

# One press, timed in the page: resolves with milliseconds from the POST to the DOM.
PRESS_JS = """async (slot) => {
  const svg = document.getElementById("hub"), want = String(slot % 4 + 1);
  let t0;
  const shown = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (svg.dataset.turn === want) { watch.disconnect(); resolve(performance.now() - t0); }
    });
    watch.observe(svg, {attributes: true, attributeFilter: ["data-turn"]});
  });
  t0 = performance.now();
  const posted = fetch(`/api/sim/slots/${slot}/press`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: '{"hold_ms": 0}'});
  const ms = await shown;
  await posted;
  return ms;
}"""


# The first contentful paint of this load, from the page itself.
PAINT_JS = """() => {
  const paints = performance.getEntriesByType("paint");
  const paint = paints.find((p) => p.name === "first-contentful-paint");
  return paint ? paint.startTime : null;
}"""


def row(request) -> dict:
    """One finished request: decoded bytes, the body as sent, and body plus headers."""
    sizes = request.sizes()
    response = request.response()
    try:
        decoded = len(response.body()) if response.status == 200 else 0
    except Exception:  # a 304's body is the browser's cached copy: nothing was sent
        decoded = 0
    return {
        "url": urlsplit(request.url).path,
        "type": request.resource_type,
        "status": response.status,
        "bytes": decoded,
        "body": sizes["responseBodySize"],
        "wire": sizes["responseBodySize"] + sizes["responseHeadersSize"],
    }


def settled(page) -> None:
    """Wait until the table shows the game (its JSON too) and nothing more is coming."""
    page.wait_for_selector("#hub[data-turn='1']", state="attached")
    page.wait_for_function("document.getElementById('title').textContent.startsWith('Game')")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)


def floor_paint(browser, base: str) -> float:
    """First contentful paint of a one-line page the browser gets without the network
    (answered by Playwright in its own context: routing turns the cache off)."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.route(
        base + "/floor",
        lambda route: route.fulfill(
            body="<!doctype html><p>Mexican Train</p>", content_type="text/html"
        ),
    )
    page.goto(base + "/floor")
    page.wait_for_function(PAINT_JS)
    paint = page.evaluate(PAINT_JS)
    context.close()
    return float(paint)


def one_load(browser, base: str) -> dict:
    """The first load and a reload of the table view in a fresh browser profile."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    finished: list = []
    page.on("requestfinished", lambda request: finished.append(request))
    page.goto(base + "/")
    settled(page)
    first = {"rows": [row(r) for r in finished], "fcp": page.evaluate(PAINT_JS)}
    finished.clear()
    page.reload()
    settled(page)
    again = {"rows": [row(r) for r in finished], "fcp": page.evaluate(PAINT_JS)}
    context.close()
    return {"first": first, "reload": again}


def loads(browser, base: str, count: int) -> dict:
    """``count`` rounds of (the floor's paint, a first load and its reload), alternating
    so that drift over the run hits all three alike; the last round's requests."""
    floor, first, again = [], [], []
    for _ in range(count):
        floor.append(floor_paint(browser, base))
        load = one_load(browser, base)
        first.append(load["first"]["fcp"])
        again.append(load["reload"]["fcp"])
    sse = first_event(urlsplit(base).port)
    load["first"]["rows"].append(
        {
            "url": "/api/events",
            "type": "eventsource (1st)",
            "status": 200,
            "bytes": len(sse),
            "body": len(sse),
            "wire": len(sse),
        }
    )
    return {**load, "paints": {"floor": floor, "first load": first, "reload": again}}


def first_event(port: int) -> bytes:
    """The SSE stream's body bytes up to the end of its first ``state`` event."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        seen = b""
        while True:
            seen += sock.recv(65536)
            head, _, framed = seen.partition(b"\r\n\r\n")
            body = dechunked(framed) if b"chunked" in head.lower() else framed
            event = body.find(b"event: state")
            end = body.find(b"\n\n", event) if event >= 0 else -1
            if end >= 0:
                return body[: end + 2]


class Listeners:
    """``count`` SSE clients reading ``/api/events`` in threads, discarding what comes."""

    def __init__(self, port: int, count: int) -> None:
        self.sockets = []
        self.threads = []
        ready = threading.Barrier(count + 1)
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            thread = threading.Thread(target=self._read, args=(sock, ready), daemon=True)
            thread.start()
            self.sockets.append(sock)
            self.threads.append(thread)
        ready.wait(30)  # every client has its first state event

    @staticmethod
    def _read(sock: socket.socket, ready: threading.Barrier) -> None:
        seen = b""
        while b"event: state" not in seen:
            seen += sock.recv(65536)
        ready.wait(30)
        try:
            while sock.recv(65536):
                pass
        except OSError:
            pass

    def close(self) -> None:
        for sock in self.sockets:
            sock.close()


def presses(page, count: int) -> list[float]:
    """Milliseconds from POST to DOM for ``count`` taps, round the table."""
    turn = int(page.evaluate("document.getElementById('hub').dataset.turn"))
    times = []
    for _ in range(count):
        times.append(page.evaluate(PRESS_JS, turn))
        turn = turn % 4 + 1
        page.wait_for_timeout(20)
    return times


def latencies(browser, hub: HubProcess, count: int, clients: int) -> dict[str, list[float]]:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(hub.base + "/")
    page.wait_for_selector("#hub[data-turn]:not([data-turn=''])", state="attached")
    presses(page, 10)  # warm up: JIT, connections
    result = {"1 client (before)": presses(page, count)}
    listeners = Listeners(hub.port, clients)
    try:
        result[f"{clients + 1} clients"] = presses(page, count)
    finally:
        listeners.close()
    page.wait_for_timeout(500)
    result["1 client (after)"] = presses(page, count)
    context.close()
    return result


def print_load(load: dict) -> None:
    rows = load["first"]["rows"]
    print("first load of the table view (/), game running, fresh browser profile")
    print(f"{'request':<22}{'type':<19}{'bytes':>9}{'gzip body':>11}{'on the wire':>13}")
    for row in rows:
        print(
            f"{row['url']:<22}{row['type']:<19}{row['bytes']:>9}{row['body']:>11}{row['wire']:>13}"
        )
    total, body, wire = (sum(r[k] for r in rows) for k in ("bytes", "body", "wire"))
    print(f"{'total, ' + str(len(rows)) + ' requests':<41}{total:>9}{body:>11}{wire:>13}")
    print(
        f"budget 60 KB ({BUDGET} bytes) decoded: {'met' if total < BUDGET else 'NOT met'} "
        f"({total / BUDGET:.0%} of it); on the wire {wire / total:.0%} of the bytes"
    )
    again = load["reload"]["rows"]
    fresh = [r for r in again if r["body"] > 0]
    sent = ", ".join(f"{r['url']} ({r['body']} B)" for r in fresh) or "nothing"
    print(
        f"reload: {len(again)} requests (and a new SSE stream), "
        f"{sum(r['wire'] for r in again)} bytes on the wire; "
        f"{len(again) - len(fresh)} answered with headers only (304); bodies sent again: {sent}"
    )
    paints = load["paints"]
    base = statistics.median(paints["floor"])
    print(
        f"first contentful paint, ms, {len(paints['floor'])} fresh profiles each "
        "(floor: a one-line page, same browser, same run)"
    )
    print(f"{'page':<14}{'median':>9}{'min':>9}{'max':>9}{'median/floor':>14}")
    for name, times in paints.items():
        median = statistics.median(times)
        print(f"{name:<14}{median:>9.1f}{min(times):>9.1f}{max(times):>9.1f}{median / base:>14.2f}")
    print()


def print_latency(runs: dict[str, list[float]], clients: int) -> None:
    base = [t for name, ts in runs.items() if name.startswith("1 client") for t in ts]
    b50, b99 = percentile(base, 50), percentile(base, 99)
    print("press (POST /api/sim/.../press) to DOM update over SSE, milliseconds")
    print(
        f"{'SSE clients':<26}{'n':>5}{'median':>9}{'p99':>9}{'max':>9}"
        f"{'median/base':>13}{'p99/base':>10}"
    )
    for name, times in [*runs.items(), ("baseline: 1 client, both", base)]:
        m, p = percentile(times, 50), percentile(times, 99)
        print(
            f"{name:<26}{len(times):>5}{m:>9.1f}{p:>9.1f}{max(times):>9.1f}"
            f"{m / b50:>13.2f}{p / b99:>10.2f}"
        )
    loaded = runs[f"{clients + 1} clients"]
    ratio = percentile(loaded, 99) / b99
    print(
        f"mean with {clients + 1} clients {statistics.mean(loaded):.1f} ms, "
        f"alone {statistics.mean(base):.1f} ms"
    )
    print(
        f"goal p99 with {clients} more clients within 2x the single-client p99: "
        f"{'met' if ratio <= 2 else 'NOT met'} ({ratio:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--loads", type=int, default=9, help="first loads (and floors) timed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        hub = HubProcess(Path(tmp) / "state")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            hub.post("/api/games", {"players": PLAYERS, "rules": "consensus", "first": 1})
            load = loads(browser, hub.base, args.loads)
            runs = latencies(browser, hub, args.presses, args.clients)
        finally:
            browser.close()
            hub.stop()
    print_load(load)
    print_latency(runs, args.clients)


if __name__ == "__main__":
    main()

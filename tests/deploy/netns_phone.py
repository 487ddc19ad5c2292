"""The phone of tests/deploy/test_hotspot_netns.py, run inside its network namespace
(``ip netns exec <phone> python netns_phone.py <interface> <dhcp script> <players…>``).

Its browser is already running when it joins the hub's network, as a phone's is: it
takes an address by DHCP (busybox's udhcpc), resolves a connectivity check's name,
opens a plain-HTTP address in headless Chromium and waits for the scorepad showing the
running game; then it asks each operating system's connectivity check and the API on a
foreign Host. It prints one JSON object with what it saw and the times it took.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",
]
CHECKS = {
    "android": ("connectivitycheck.gstatic.com", "/generate_204"),
    "apple": ("captive.apple.com", "/hotspot-detect.html"),
    "windows": ("www.msftconnecttest.com", "/connecttest.txt"),
    "firefox": ("detectportal.firefox.com", "/success.txt"),
    "api": ("connectivitycheck.gstatic.com", "/api/state"),
}
# The scorepad shows the running game: every player's name in the hub's picture.
SHOWS_GAME = """(names) => {
  const hub = document.querySelector('#hub');
  return !!hub && names.every((name) => hub.textContent.includes(name));
}"""


def ask(host: str, path: str) -> dict[str, object]:
    """GET ``path`` from ``host`` by name, as the operating system's check does."""
    connection = http.client.HTTPConnection(host, 80, timeout=10)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        body = answer.read()
        return {
            "status": answer.status,
            "location": answer.getheader("Location"),
            "body": body[:200].decode(errors="replace"),
        }
    finally:
        connection.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    interface, script, *players = sys.argv[1:]
    seen: dict[str, object] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        start = time.monotonic()
        subprocess.run(
            [
                "busybox",
                "udhcpc",
                "-i",
                interface,
                "-f",
                "-q",
                "-n",
                "-t",
                "10",
                "-T",
                "1",
                "-s",
                script,
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        seen["dhcp_s"] = time.monotonic() - start
        seen["resolved"] = socket.gethostbyname("connectivitycheck.gstatic.com")
        page.goto("http://example.com/", timeout=10000)
        page.wait_for_function(SHOWS_GAME, arg=players, timeout=10000)
        seen["scorepad_s"] = time.monotonic() - start
        seen["url"] = page.url
        seen["title"] = page.title()
        browser.close()
    seen["checks"] = {name: ask(host, path) for name, (host, path) in CHECKS.items()}
    print(json.dumps(seen))


if __name__ == "__main__":
    main()

"""``selftest --check``'s look at the serial link: does the hub box answer, and with what.

Opens the link (:mod:`firmware_bridge.link`) with the inputs ignored, waits for the
handshake (hello, then the box's IDENTIFY with its name, protocol version and pixel
count: hardware/PROTOCOL.md) and closes it again.
"""

from __future__ import annotations

import threading
from typing import Any

from hub.runtime.clock import SystemClock
from hub.selftest.check import FAIL, PASS, SKIP, Check

WAIT_S = 5.0


def check_link(config: dict[str, Any], backend: str, wait: float = WAIT_S) -> Check:
    """The hub box on ``[serial] port`` (empty: found by USB id) answers hello with
    its protocol version, and drives as many pixels as the config says."""
    cfg = config["serial"]
    if not cfg["port"] and backend != "serial":
        return Check(
            "serial link", SKIP, "no [serial] port configured: no hub box, the ring stays dark"
        )
    from firmware_bridge.firmware import proto
    from firmware_bridge.link import SerialLink

    up = threading.Event()

    def status(value: dict[str, object]) -> None:
        if value["connected"]:
            up.set()

    link = SerialLink(
        cfg["port"],
        cfg["baud"],
        SystemClock().now,
        lambda event: None,
        inputs=False,
        on_status=status,
    )
    link.start()
    try:
        answered = up.wait(wait)
        identity, errors, path = link.session.identity, list(link.session.errors), link.path
    finally:
        link.close()
    where = path or cfg["port"] or "USB (no Pico found by its USB id)"
    if not answered:
        why = f": {errors[-1]}" if errors else ""
        return Check("serial link", FAIL, f"{where}: no answer to hello within {wait:g} s{why}")
    assert identity is not None
    if identity.pixels != config["leds"]["pixels"]:
        return Check(
            "serial link",
            FAIL,
            f"{where}: the hub box drives {identity.pixels} "
            f"pixels, leds.pixels says {config['leds']['pixels']}",
        )
    return Check(
        "serial link",
        PASS,
        f"{where}: {identity.name}, protocol {identity.version} "
        f"(the hub's: {proto.VERSION}), {identity.pixels} pixels",
    )

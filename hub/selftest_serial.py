"""The self-test's side of the serial link to the Pico (the firmware bridge).

``check_link`` asks the Pico for hello and its versions; ``open_serial_inputs`` makes
the Pico's input edges reach a walk-through and its ring show the walk-through's lights.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hub.config import ConfigError
from hub.selftest_check import FAIL, SKIP, Check


def check_link(config: dict[str, Any], backend: str) -> Check:
    """The Pico on ``[serial] port`` answers hello with its firmware and protocol version."""
    port = config["serial"]["port"]
    if not port and backend != "serial":
        return Check("serial link", SKIP, "no [serial] port configured: the ring stays dark")
    return Check("serial link", FAIL, "the firmware bridge is not part of this build yet")


@contextmanager
def open_serial_inputs(config: dict[str, Any], parts: Any) -> Iterator[None]:
    """The Pico's inputs as the walk-through's (needs the firmware bridge)."""
    raise ConfigError("hub.backend: 'serial': the firmware bridge is not part of this build yet")
    yield

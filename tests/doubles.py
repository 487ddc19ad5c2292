"""Test doubles of the hub's ports that the product itself never runs (issue 21): the
journal kept in memory, a broker link that records, timers that run at once, an LED
driver that records its frames, and the server's takeover for Flask's test client.
Doubles the product does run live beside their port, each saying why (``FakeClock``
and ``RecordingPlayer`` drive the soak's virtual time in ``tablesim``).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from hub.io.leds import Pixel
from hub.io.mqtt import LinkHandlers, Will
from hub.persist.journal import Record
from hub.runtime.timers import TimedCall


class RecordingLeds:
    """No ring attached: keeps the last ``keep`` frames it was shown (bounded)."""

    def __init__(self, keep: int = 50) -> None:
        self.frames: deque[list[Pixel]] = deque(maxlen=keep)

    def show(self, pixels: list[Pixel]) -> None:
        """Record the frame."""
        self.frames.append(list(pixels))

    def connected(self) -> bool | None:
        """No controller: None."""
        return None

    @property
    def pixels(self) -> list[Pixel]:
        """The last frame shown (empty before any)."""
        return self.frames[-1] if self.frames else []


class MemoryJournal:
    """The fake journal: records in memory. :meth:`power_cut` forgets what was not
    synced (a crash of the process alone keeps it, as the OS would)."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.synced = 0
        self.syncs = 0
        self.fail: OSError | None = None  # raised by the next writes while set

    def load(self) -> list[Record]:
        """Every record written."""
        return [dict(r) for r in self.records]

    def begin(self, records: list[Record]) -> None:
        """Start a new segment (durable at once, like the file's rename)."""
        self._check()
        self.records = [json.loads(json.dumps(r)) for r in records]
        self.synced = len(self.records)

    def append(self, records: list[Record]) -> None:
        """Add records, not yet synced."""
        self._check()
        self.records += [json.loads(json.dumps(r)) for r in records]

    def sync(self) -> None:
        """Everything written is durable."""
        self._check()
        self.synced = len(self.records)
        self.syncs += 1

    def close(self) -> None:
        """Nothing to release."""

    def power_cut(self) -> None:
        """Lose every record not synced."""
        del self.records[self.synced :]

    def _check(self) -> None:
        if self.fail is not None:
            raise self.fail


@dataclass
class RecordingLink:
    """A fake :class:`PahoLink`: records what would be sent; tests flip ``connected``."""

    handlers: LinkHandlers = field(default_factory=LinkHandlers)
    connected: bool = False
    protocol: str = "5"
    sent: list[tuple[str, str | bytes, bool]] = field(default_factory=list)
    qos: dict[str, int] = field(default_factory=dict)  # each topic's last QoS
    farewell: Will | None = None

    def start(self) -> None:
        """Nothing to start."""

    def publish(
        self,
        topic: str,
        payload: str | bytes,
        *,
        retain: bool = False,
        qos: int = 1,
        json: bool = False,
    ) -> bool:
        """Record the message when 'connected'."""
        if not self.connected:
            return False
        self.sent.append((topic, payload, retain))
        self.qos[topic] = qos
        return True

    def connect(self) -> None:
        """Pretend the broker accepted us."""
        self.connected = True
        self.handlers.connected()

    def drop(self) -> None:
        """Pretend the broker went away."""
        self.connected = False
        self.handlers.disconnected()

    def stop(self, farewell: Will | None = None, timeout: float = 3.0) -> None:
        """Remember the farewell."""
        self.farewell = farewell
        self.connected = False


class InlineTimers:
    """The fake of :class:`Timers`: waits with ``sleep`` (a virtual clock's advance)
    and runs the call at once, on the caller's thread."""

    def __init__(self, sleep: Callable[[float], None]) -> None:
        self._sleep = sleep

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> TimedCall:
        """Sleep ``delay_s``, then run ``fn()``; the call returned is made already."""
        self._sleep(delay_s)
        fn()
        return TimedCall(fn)


class InlineTakeover:
    """What the hub's server offers a handler (``hub.wire.serving.ServerTakeover``), for
    Flask's test client: a stream is taken (and ``streams`` records its kinds, but
    nothing is written), an answer is waited for at once on the request's thread (its
    error raised there)."""

    def __init__(self) -> None:
        self.streams: list[tuple[str, ...]] = []

    def stream(self, kinds: Iterable[str]) -> bool:
        """Take the stream over."""
        self.streams.append(tuple(kinds))
        return True

    def answer_later(self, future: Future[Any]) -> None:
        """Wait for the answer now (a failed one raises, as the server would log it)."""
        future.result(timeout=30)

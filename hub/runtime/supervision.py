"""The hub as a supervised service: what ``mtrain-hub run`` tells systemd and the log.

:class:`Supervision` is handed the loop's ``call`` and the start line: it starts the
watchdog feeder (pings run by the loop thread, see :mod:`hub.runtime.notify`), says
``READY=1`` once the scorepad listens, logs the one start line (version, backend,
devices, broker, address; :func:`start_line`) and says ``STOPPING=1`` on the way out.
Without systemd only the start line remains.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from hub.runtime.notify import LoopBeat, LoopCall, Notifier, WatchdogFeeder

log = logging.getLogger("hub")


def _sound(config: dict[str, Any], status: dict[str, Any]) -> str:
    device = config["sound"]["device"] if config["sound"]["enabled"] else "off"
    if status.get("available"):
        return f"sound {device}"
    return f"sound {device} (unavailable: {status.get('reason') or 'starting'})"


def _broker(config: dict[str, Any]) -> str:
    """``mqtt off`` or the broker's address (never the credentials a URL may carry)."""
    mqtt = config.get("mqtt", {})
    if mqtt.get("url"):
        try:
            url = urlsplit(mqtt["url"])
            port = f":{url.port}" if url.port else ""
        except ValueError:
            return "mqtt (a URL that does not parse)"
        return f"mqtt {url.scheme}://{url.hostname}{port}"
    if not mqtt.get("host"):
        return "mqtt off"
    return f"mqtt {mqtt['host']}:{mqtt.get('port', 1883)}"


def start_line(
    config: dict[str, Any],
    backend: str,
    sound: dict[str, Any],
    leds: str,
    host: str,
    port: int,
    version: str,
) -> str:
    """The one line each start logs: ``version`` (:func:`hub.version`), ``backend``,
    devices (``sound``, the player's status; ``leds``, the LED driver's name), broker
    and address."""
    serial = config.get("serial", {}).get("port") or (
        "found by USB id" if backend == "serial" else "none"
    )
    address = f"http://{'0.0.0.0' if host in ('', '0.0.0.0') else host}:{port}/"
    return (
        f"mtrain-hub {version}: backend {backend}; {_sound(config, sound)}; "
        f"serial {serial}; leds {leds}; {_broker(config)}; scorepad on {address}"
    )


class Supervision:
    """systemd's side of a running hub: readiness, status and the watchdog.

    ``loop_call`` and ``loop_beat`` are :meth:`hub.runtime.loop.HubLoop.call` and
    :meth:`~hub.runtime.loop.HubLoop.beat` (the loop's thread sends the watchdog
    pings); ``describe(host, port)`` gives the start line (:func:`start_line`);
    ``notifier`` defaults to the socket in ``NOTIFY_SOCKET``.
    """

    def __init__(
        self,
        loop_call: LoopCall,
        loop_beat: LoopBeat,
        describe: Callable[[str, int], str],
        notifier: Notifier | None = None,
    ) -> None:
        self.describe = describe
        self.notifier = notifier or Notifier()
        self.feeder = WatchdogFeeder(self.notifier, loop_call, loop_beat)

    def start(self) -> None:
        """After ``hub.start()``: feed the watchdog."""
        self.notifier.status("starting: the loop runs, opening the scorepad")
        self.feeder.start()

    def listening(self, host: str, port: int) -> None:
        """The scorepad listens: log the start line, tell systemd READY=1."""
        line = self.describe(host, port)
        log.info("%s", line)
        self.notifier.ready(line.split(": ", 1)[1])

    def stopping(self) -> None:
        """A stop was asked for: tell systemd."""
        self.notifier.stopping()

    def stop(self) -> None:
        """Stop feeding the watchdog (before the loop stops)."""
        self.feeder.stop()
        self.notifier.close()

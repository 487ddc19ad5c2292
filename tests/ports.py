"""Ports from the OS, for the servers the tests start (several test processes at once).

A server the test runs in its own process binds port 0 and says which port it got
(``Hub.serve(..., on_listening=...)``, ``make_server(app, host, 0, ...)``). A server in
another process that cannot be told port 0 (``mtrain-hub run`` and ``board`` refuse it,
mosquitto cannot report it) is started on a port the OS just handed out and released;
another test's server may take that port first, so the launcher reads the server's own
answer (its start line, or its "in use" error) and, when the port was taken, raises
:class:`PortTaken` so :func:`on_a_free_port` starts it again on another port.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
TRIES = 8


class PortTaken(Exception):
    """The server could not bind its port: another server holds it."""


def os_port() -> int:
    """A port the OS picks on 127.0.0.1, released at once: a candidate for a server that
    cannot bind port 0 itself (it must raise :class:`PortTaken` when it finds it taken)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def on_a_free_port(start: Callable[[int], T], tries: int = TRIES) -> T:
    """``start(port)`` on a port from :func:`os_port`, again on another while the one
    tried was taken (``start`` raised :class:`PortTaken`)."""
    taken: list[str] = []
    for _ in range(tries):
        try:
            return start(os_port())
        except PortTaken as exc:
            taken.append(str(exc))
    raise AssertionError(f"every port tried was taken: {taken}")


def closed_port() -> socket.socket:
    """A socket bound to a port of 127.0.0.1 that does not listen: while it stays open no
    server can take the port, and a connection to it is refused. Close it when done."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    return holder

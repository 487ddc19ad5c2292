"""The names a web app of ours answers to: one rule for the hub's (web/guard.py) and
the tournament board's (hub/board/app.py), docs/security.md ("DNS rebinding").

A request must name the server in its ``Host``: an address (any IP literal: no DNS
answer is involved), ``localhost``, the machine's own name (and ``<name>.local``), or
a name configured for it; anything else is refused (421) before any handler runs, so
a page on a name an attacker controls that re-resolves to the server (DNS rebinding)
can read nothing. Each app words its own refusal; the rule is here, once.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable


def own_names(extra: Iterable[str] | None = ()) -> frozenset[str]:
    """The names the server answers to: ``localhost``, this machine's name and
    ``<name>.local``, and ``extra``."""
    machine = socket.gethostname().lower()
    names = {"localhost", machine, f"{machine.split('.')[0]}.local"}
    return frozenset(names | {str(n).lower().rstrip(".") for n in extra or ()})


def own_host(host: str | None, names: frozenset[str]) -> bool:
    """Whether a ``Host`` header names the server: an IP address or one of ``names``."""
    if not host:
        return False
    name = host.rsplit(":", 1)[0] if host.rsplit("]", 1)[-1].count(":") == 1 else host
    name = name.strip("[]").lower().rstrip(".")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name in names

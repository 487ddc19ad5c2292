"""The scorepad's join QR code: the hub's own address, drawn on the hub with segno.

Phones at the table scan it to open the scorepad; nothing leaves the local network.
The address is the one the scanning phone's neighbour used (the request's ``Host``
header), except when that is a loopback name (a browser on the Pi itself), which no
other phone could reach: then the Pi's LAN address takes its place. When the hub's
mDNS name (``mtrain.local``, announced by avahi; see docs/deploy.md) resolves to the
hub itself, it replaces an address in the code: easier to read, and it survives a
new DHCP lease.
"""

from __future__ import annotations

import io
import ipaddress
import re
import socket
import threading
import time
from collections.abc import Callable

# A host[:port] we are willing to put in a QR code: a name, IPv4, or a bracketed IPv6.
_HOST = re.compile(r"^(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253})(?::(?P<port>\d{1,5}))?$")
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(name: str) -> bool:
    """True for names and addresses only this machine can reach (``127.0.0.1``, ``::1``)."""
    if name.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_ip() -> str | None:
    """The address this machine uses on its LAN, or ``None`` without a network.

    Connecting a UDP socket only picks a route; it sends no packet.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def hub_url(
    host_header: str | None, server_port: int, lan_address: str | None, mdns_name: str | None = None
) -> str:
    """The scorepad's address for other phones, e.g. ``http://192.168.1.20:8080/``.

    ``host_header`` is the request's ``Host``; ``server_port`` the port the hub
    listens on; ``lan_address`` what :func:`lan_ip` found (replaces a loopback host);
    ``mdns_name`` what :meth:`LocalName.get` found (replaces an address or a loopback
    name; a name the phone used, such as a DNS name, is kept).
    """
    match = _HOST.match((host_header or "").strip())
    name = match["name"] if match else None
    port = int(match["port"]) if match and match["port"] else None
    if name is None or is_loopback(name):
        port = port or server_port
        name = mdns_name or lan_address or name or "localhost"
    elif mdns_name and _is_address(name):
        name = mdns_name
    return f"http://{name}:{port}/" if port and port != 80 else f"http://{name}/"


WILDCARDS = ("", "0.0.0.0", "::", "[::]")


def advertised(
    listen_host: str | None,
    host_header: str | None,
    server_port: int,
    lan_address: str | None,
    mdns_name: str | None = None,
) -> tuple[str, bool]:
    """``(url, local_only)``: the address to give other phones, where the hub listens.

    ``listen_host`` is what the server is bound to (None or a wildcard: every
    address, so :func:`hub_url` chooses). Bound to a loopback address the hub is
    reachable from this machine only: the address is that one and ``local_only`` says
    so (the page tells how to let phones in). Bound to one address, that address
    (or the mDNS name, when it leads there).
    """
    if listen_host is None or listen_host in WILDCARDS:
        return hub_url(host_header, server_port, lan_address, mdns_name), False
    if is_loopback(listen_host):
        match = _HOST.match((host_header or "").strip())
        port = int(match["port"]) if match and match["port"] else server_port
        name = match["name"] if match and is_loopback(match["name"]) else listen_host
        if ":" in name and not name.startswith("["):
            name = f"[{name}]"
        return (f"http://{name}:{port}/" if port != 80 else f"http://{name}/"), True
    mdns = mdns_name if listen_host == lan_address else None
    match = _HOST.match((host_header or "").strip())
    used = match["name"] if match else None
    # The name the phone used leads here; an address other than the bound one cannot.
    host = host_header if used and not _is_address(used) and not is_loopback(used) else None
    return hub_url(host, server_port, listen_host, mdns), False


def _ipv4_addresses(name: str) -> set[str]:
    """The IPv4 addresses ``name`` resolves to (nss-mdns asks avahi for ``.local``)."""
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(name, None, socket.AF_INET)}
    except (OSError, UnicodeError):
        return set()


class LocalName:
    """This hub's mDNS name, ``<hostname>.local``, while it resolves to the hub's own
    LAN address (two hubs both called ``mtrain``: avahi renames one, and the name then
    leads to the other, so it is not used).

    A lookup may take seconds when no one answers: it runs on its own thread, a page
    waits at most ``wait_s`` for it, and the answer is kept for ``ttl_s``.
    """

    def __init__(
        self,
        hostname: Callable[[], str] = socket.gethostname,
        resolve: Callable[[str], set[str]] = _ipv4_addresses,
        ttl_s: float = 60.0,
        wait_s: float = 0.3,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._hostname = hostname
        self._resolve = resolve
        self._ttl_s = ttl_s
        self._wait_s = wait_s
        self._clock = clock
        self._lock = threading.Lock()
        self._answer: tuple[float, str | None, str | None] | None = None  # at, lan, name
        self._lookup: threading.Thread | None = None

    def get(self, lan_address: str | None) -> str | None:
        """``<hostname>.local`` if it resolves to ``lan_address``, else None."""
        if lan_address is None:
            return None
        with self._lock:
            answer = self._answer
            fresh = (
                answer is not None
                and answer[1] == lan_address
                and self._clock() - answer[0] < self._ttl_s
            )
            if fresh:
                return answer[2] if answer else None
            lookup = self._lookup
            if lookup is None or not lookup.is_alive():
                lookup = threading.Thread(
                    target=self._look_up, args=(lan_address,), name="mdns-lookup", daemon=True
                )
                self._lookup = lookup
                lookup.start()
        lookup.join(self._wait_s)
        with self._lock:
            answer = self._answer
            return answer[2] if answer is not None and answer[1] == lan_address else None

    def _look_up(self, lan_address: str) -> None:
        host = self._hostname().split(".")[0].lower()
        name = f"{host}.local" if host and not is_loopback(host) else None
        found = name if name and lan_address in self._resolve(name) else None
        with self._lock:
            self._answer = (self._clock(), lan_address, found)


def qr_svg(text: str, title: str) -> str:
    """``text`` as a QR code, an SVG document that scales to its box (dark on white,
    so it scans from a phone in dark mode too)."""
    import segno  # here, not at start: most hubs never draw a code (1.2 MB resident)

    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=1,
        border=3,
        dark="#000",
        light="#fff",
        xmldecl=False,
        omitsize=True,
        title=title,
        svgclass="qr",
    )
    return out.getvalue().decode()

"""The scorepad's join QR code: the hub's own address, drawn on the hub with segno.

Phones at the table scan it to open the scorepad; nothing leaves the local network.
The address is the one the scanning phone's neighbour used (the request's ``Host``
header), except when that is a loopback name (a browser on the Pi itself), which no
other phone could reach: then the Pi's LAN address takes its place.
"""

from __future__ import annotations

import io
import ipaddress
import re
import socket

import segno

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


def hub_url(host_header: str | None, server_port: int, lan_address: str | None) -> str:
    """The scorepad's address for other phones, e.g. ``http://192.168.1.20:8080/``.

    ``host_header`` is the request's ``Host``; ``server_port`` the port the hub
    listens on; ``lan_address`` what :func:`lan_ip` found (replaces a loopback host).
    """
    match = _HOST.match((host_header or "").strip())
    name = match["name"] if match else None
    port = int(match["port"]) if match and match["port"] else None
    if name is None:
        name, port = lan_address or "localhost", server_port
    elif is_loopback(name) and lan_address:
        name, port = lan_address, port or server_port
    return f"http://{name}:{port}/" if port else f"http://{name}/"


def qr_svg(text: str, title: str) -> str:
    """``text`` as a QR code, an SVG document that scales to its box (dark on white,
    so it scans from a phone in dark mode too)."""
    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="svg", scale=1, border=3, dark="#000", light="#fff",
              xmldecl=False, omitsize=True, title=title, svgclass="qr")
    return out.getvalue().decode()

"""The web server's listening sockets, and why it could not listen, as a config error
naming ``web.host`` or ``web.port``.

Binding the scorepad's socket is the first time the host and port meet the machine:
a name that does not resolve, an address this machine does not have, a port another
program holds or one below 1024 without the right. Each is a mistake in the config
(``mtrain-hub run`` exits 2, see ``hub/cli/main.py``), never a traceback.
"""

from __future__ import annotations

import errno
import socket


def bind_problem(exc: Exception, host: str, port: int) -> str:
    """The config error message (``"<key>: ..."``) for ``exc``, raised binding ``host:port``."""
    if isinstance(exc, socket.gaierror) or isinstance(exc, ValueError):
        return (
            f"web.host: {host!r} is not an IP address or a name this machine can "
            "resolve (use 0.0.0.0 for every network, 127.0.0.1 for this machine only)"
        )
    code = getattr(exc, "errno", None)
    if code == errno.EADDRINUSE:
        return (
            f"web.port: port {port} on {host} is already in use by another program "
            "(another hub?): stop it or choose another port"
        )
    if code == errno.EADDRNOTAVAIL:
        return f"web.host: {host} is not an address of this machine"
    if code == errno.EACCES:
        return (
            f"web.port: port {port} needs privileges the hub does not have "
            "(use a port from 1024 up, e.g. 8080)"
        )
    return f"web.host: cannot listen on {host} port {port}: {exc}"


def listening_sockets(host: str, port: int, backlog: int = 1024) -> list[socket.socket]:
    """Listening sockets for ``host:port``, one per address the name resolves to (with
    port 0, all on the port the first was given). On any error every socket made so far
    is closed before it is raised (:func:`bind_problem` words it)."""
    made: list[socket.socket] = []
    try:
        infos = socket.getaddrinfo(
            host or None, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE
        )
        for family, kind, proto, _, address in dict.fromkeys(infos):
            if made and port == 0:  # the same port on every address
                address = (address[0], made[0].getsockname()[1], *address[2:])
            sock = socket.socket(family, kind, proto)
            made.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(backlog)
            sock.setblocking(False)
    except BaseException:
        for sock in made:
            sock.close()
        raise
    return made

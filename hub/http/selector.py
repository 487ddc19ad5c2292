"""Waitress's selector loop on one lasting epoll, asking only what may have changed.

Waitress's own loop asks every connection ``readable()`` / ``writable()`` on every
round and registers each anew. With a crowd of idle keep-alive connections that is
about 1 µs per connection and round, several rounds per request, all while holding
the GIL the request's worker thread waits for. Here a connection *resting* (a waitress
channel with no request in service, waiting only to read) stays registered for reading
and is not asked again until something can have changed it:

- a byte, a close or an error on its socket (the kernel tells);
- a worker finished serving it, or the server marked it for closing (it is
  :meth:`SocketMap.touch`-ed);
- a full round every :data:`RESCAN_S` anyway, a cheap backstop.

Everything else (the listening socket, waitress's trigger, a connection being served,
writing or closing) is asked every round, as waitress does. The socket map notes which
descriptors came and went, so the loop never compares the whole map either.
"""

from __future__ import annotations

import select
import threading
import time
from collections.abc import Set as AbstractSet
from typing import Any

from waitress import wasyncore
from waitress.channel import HTTPChannel

RESCAN_S = 1.0  # every resting connection is asked again at least this often
_READING, _WRITING = select.EPOLLIN | select.EPOLLPRI, select.EPOLLOUT
_NOTHING: frozenset[int] = frozenset()  # what take() returns when nothing happened


class SocketMap(dict[int, Any]):
    """Waitress's socket map (fd: dispatcher) noting what came, went and was touched."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._came: set[int] = set()
        self._went: set[int] = set()
        self._touched: set[int] = set()

    def __setitem__(self, fd: int, obj: Any) -> None:
        with self._lock:
            super().__setitem__(fd, obj)
            self._came.add(fd)

    def __delitem__(self, fd: int) -> None:
        with self._lock:
            super().__delitem__(fd)
            self._went.add(fd)

    def touch(self, fd: int | None) -> None:
        """Ask connection ``fd`` what it waits for on the next round (any thread)."""
        if fd is not None:
            with self._lock:
                self._touched.add(fd)

    def changed(self) -> bool:
        """Whether anything came, went or was touched since the last :meth:`take`."""
        return bool(self._came or self._went or self._touched)

    def take(self) -> tuple[AbstractSet[int], AbstractSet[int]]:
        """What went, and what came or was touched, since the last call."""
        if not self.changed():  # the usual round: nothing to allocate
            return _NOTHING, _NOTHING
        with self._lock:
            went, came = self._went, self._came | self._touched
            self._went, self._came, self._touched = set(), set(), set()
        return went, came


def touch(obj: Any) -> None:
    """Touch waitress dispatcher ``obj`` in its socket map (if the map is a SocketMap)."""
    socket_map = getattr(obj, "_map", None)
    if isinstance(socket_map, SocketMap):
        socket_map.touch(obj._fileno)


def resting(obj: Any, flags: int) -> bool:
    """Whether ``obj`` only waits to read, with nothing in service for it (or waits out
    a pause: a connection the early gate refused is asked again in the next full round)."""
    reading = flags == _READING or (flags == 0 and getattr(obj, "paused_until", 0.0) > 0)
    return reading and isinstance(obj, HTTPChannel) and not obj.requests


class EpollLoop:
    """The loop over ``socket_map`` until it is empty; ``timeout``: poll's, seconds."""

    def __init__(self, socket_map: SocketMap, timeout: float) -> None:
        self.map = socket_map
        self.timeout = timeout
        self.poller = select.epoll()
        self.known: dict[int, tuple[Any, int]] = {}  # fd: (the connection, its flags)
        self.busy: set[int] = set()  # asked every round: not resting
        self.asked = 0  # connections asked so far (for tests and the curious)

    def run(self) -> None:
        """Serve until the map is empty (waitress's ``close_all`` empties it)."""
        woken: set[int] = set(self.map)
        next_full = time.monotonic() + RESCAN_S
        try:
            while self.map:
                ask = self.busy | woken
                now = time.monotonic()
                if now >= next_full:
                    ask, next_full = set(self.map), now + RESCAN_S
                while ask or self.map.changed():  # asking may touch others (room made)
                    went, came = self.map.take()
                    self._forget_gone(went)
                    self._ask(ask | came)
                    ask = set()
                woken = self._poll()
        finally:
            self.poller.close()

    def _forget_gone(self, went: AbstractSet[int]) -> None:
        for fd in went:
            entry = self.known.get(fd)
            if entry is not None and self.map.get(fd) is not entry[0]:
                _unregister(self.poller, fd)
                del self.known[fd]
            self.busy.discard(fd)

    def _ask(self, fds: set[int]) -> None:
        get, known, poller = self.map.get, self.known, self.poller
        for fd in fds:
            obj = get(fd)
            if obj is None:
                continue
            flags = _READING if obj.readable() else 0
            if obj.writable() and not obj.accepting:
                flags |= _WRITING
            entry = known.get(fd)
            if entry is None or entry[0] is not obj:  # new, or a reused number
                _unregister(poller, fd)
                poller.register(fd, flags)
                known[fd] = (obj, flags)
            elif entry[1] != flags:
                poller.modify(fd, flags)
                known[fd] = (obj, flags)
            if resting(obj, flags):
                self.busy.discard(fd)
            else:
                self.busy.add(fd)
        self.asked += len(fds)

    def _poll(self) -> set[int]:
        """Wait for events and handle them; the descriptors that had one."""
        woken = set()
        for fd, flags in self.poller.poll(self.timeout):
            obj = self.map.get(fd)
            if obj is not None:
                wasyncore.readwrite(obj, flags)
                woken.add(fd)
        return woken


def _unregister(poller: Any, fd: int) -> None:
    try:
        poller.unregister(fd)
    except OSError:  # closed already (the kernel forgot it) or never registered
        pass

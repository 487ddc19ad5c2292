"""Talking to systemd: ``sd_notify`` readiness, status and the watchdog, on the stdlib.

Under ``Type=notify`` systemd sets ``NOTIFY_SOCKET`` (an ``AF_UNIX`` datagram socket,
``@`` meaning the abstract namespace); with ``WatchdogSec=`` it also sets
``WATCHDOG_USEC`` (and ``WATCHDOG_PID``). The hub says ``READY=1`` once it serves,
``STATUS=...`` lines people read in ``systemctl status``, and ``WATCHDOG=1`` every half
watchdog period. The pings are sent *by the hub loop's thread* (the loop's beat,
:meth:`hub.runtime.loop.HubLoop.beat`), so a loop that hangs stops the pings and systemd
restarts the hub; before that happens a :class:`WatchdogFeeder` thread that watches the
pings logs every thread's stack, so the journal says where the loop hung. Without
``NOTIFY_SOCKET`` (a terminal, the tests) nothing is sent. (The test that freezes the
loop to see the pings stop brings its own hook: ``tests/freezable_hub.py``.)
"""

from __future__ import annotations

import faulthandler
import logging
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Mapping

log = logging.getLogger("hub.runtime.notify")

# Runs ``fn(table)`` on the loop thread, waits at most ``timeout`` s (HubLoop.call).
LoopCall = Callable[..., object]
# Has the loop thread call ``fn()`` every ``every_s`` s; None stops it (HubLoop.beat).
LoopBeat = Callable[[Callable[[], None] | None, float], None]


class Notifier:
    """The systemd notification socket named in ``environ`` (``os.environ`` by default).

    Every method is a no-op when the hub was not started by systemd. A failed send is
    logged once and never raised: systemd going away must not stop the table.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = _address(env.get("NOTIFY_SOCKET", ""))
        self.watchdog_s = _watchdog_seconds(env)
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._failed = False

    @property
    def enabled(self) -> bool:
        """True when systemd listens (``NOTIFY_SOCKET`` is set)."""
        return self.address is not None

    def send(self, *lines: str) -> None:
        """Send ``KEY=value`` lines in one datagram."""
        if self.address is None:
            return
        message = "\n".join(lines).encode("utf-8", "replace")
        with self._lock:
            try:
                if self._socket is None:
                    self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                    self._socket.setblocking(False)
                self._socket.sendto(message, self.address)
            except OSError as exc:
                if not self._failed:
                    log.warning("cannot notify systemd at %r: %s", self.address, exc)
                self._failed = True

    def ready(self, status: str) -> None:
        """The hub serves: ``READY=1`` with a status line."""
        self.send("READY=1", f"STATUS={_one_line(status)}")

    def status(self, status: str) -> None:
        """A status line for ``systemctl status``."""
        self.send(f"STATUS={_one_line(status)}")

    def stopping(self) -> None:
        """The hub is stopping in order."""
        self.send("STOPPING=1", "STATUS=stopping")

    def failed(self, status: str, exit_status: int) -> None:
        """Start-up failed: say why (``systemctl status`` shows it) with the exit status."""
        self.send(f"STATUS={_one_line(status)}", f"ERRNO={exit_status}")

    def watchdog(self) -> None:
        """One watchdog ping: the loop is alive."""
        self.send("WATCHDOG=1")

    def close(self) -> None:
        """Close the socket (a later send opens it again)."""
        with self._lock:
            if self._socket is not None:
                self._socket.close()
                self._socket = None


def _address(value: str) -> str | bytes | None:
    if not value:
        return None
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    log.warning("NOTIFY_SOCKET=%r: neither a path nor @abstract; not notifying", value)
    return None


def _watchdog_seconds(env: Mapping[str, str]) -> float | None:
    """The watchdog period systemd asks for, or None (unset, bad, or meant for another pid)."""
    pid = env.get("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 1e6 if usec > 0 else None


def _one_line(text: str) -> str:
    return " ".join(text.split())


LOOP_THREAD_NAME = "hub-loop"


def name_os_thread(name: str) -> None:
    """Give the calling thread ``name`` in the kernel too (``ps -T``, ``top -H``,
    ``/proc/PID/task/TID/comm``; at most 15 bytes): CPython 3.11 names only its own
    Thread objects. Where the kernel has no such file, the thread keeps the process's name."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as comm:
            comm.write(name.encode()[:15].decode(errors="ignore"))
    except OSError:  # not Linux, or /proc not mounted
        pass


def thread_stacks() -> str:
    """Every thread's stack, as :mod:`faulthandler` writes it (most recent call first),
    after a line naming each thread by its id (faulthandler shows only the ids)."""
    names = ", ".join(
        f"{thread.name} 0x{thread.ident:016x}"
        for thread in threading.enumerate()
        if thread.ident is not None
    )
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out:
        faulthandler.dump_traceback(out, all_threads=True)
        out.seek(0)
        return f"threads: {names}\n{out.read().rstrip()}"


class WatchdogFeeder:
    """Pings the watchdog every half period from the loop's thread (its beat), and
    watches that the pings go out.

    ``loop_call(fn, timeout)`` is :meth:`hub.runtime.loop.HubLoop.call` (it names the
    loop's thread), ``loop_beat(fn, every_s)`` :meth:`hub.runtime.loop.HubLoop.beat`. A
    ping a quarter period late, and at least ``hang_s`` (1 s), is a hang: a warning
    with every thread's stack is logged (with ``WatchdogSec=20``, 5 s before systemd's
    kill, which comes when the period runs out), and another when the pings come
    again. A shorter hiccup is no hang worth a dump of every stack (a watchdog of a few
    ms, as the Pi budget bench's probe, would otherwise log one at every busy moment).
    The feeder's own thread only reads the time of the last ping: a ping costs the
    loop a ``sendto`` and no other thread anything (the bench's probe asks for one
    every 10 ms, docs/performance.md).
    """

    def __init__(
        self, notifier: Notifier, loop_call: LoopCall, loop_beat: LoopBeat, hang_s: float = 1.0
    ) -> None:
        self._notifier = notifier
        self._hang_s = hang_s
        self._loop_call = loop_call
        self._loop_beat = loop_beat
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pinged = 0.0  # time.monotonic() of the last ping (written by the loop thread)

    @property
    def interval_s(self) -> float | None:
        """Seconds between pings (half the watchdog period), or None when off."""
        period = self._notifier.watchdog_s
        return None if period is None or not self._notifier.enabled else period / 2

    def start(self) -> None:
        """Start pinging (nothing happens without a watchdog period). The loop's thread
        is named ``hub-loop`` in the kernel first, so the thread the watchdog watches can
        be told from outside (``ps -T``; the rehearsal freezes it by that name)."""
        interval = self.interval_s
        if interval is None:
            return
        try:
            self._loop_call(lambda _table: name_os_thread(LOOP_THREAD_NAME), 5.0)
        except TimeoutError:
            log.warning("the hub loop did not answer within 5 s of the start")
        self._pinged = time.monotonic()  # the first ping is due from now
        self._loop_beat(self._ping, interval)
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop pinging."""
        if self._thread is None:
            return
        self._loop_beat(None, 0.0)
        self._stop.set()
        self._thread.join(5.0)
        self._thread = None

    @property
    def grace_s(self) -> float | None:
        """How late a ping may be before the loop counts as hung: a quarter period, and
        at least ``hang_s``."""
        interval = self.interval_s
        return None if interval is None else max(interval / 2, self._hang_s)

    def _run(self) -> None:
        interval, grace = self.interval_s, self.grace_s
        assert interval is not None and grace is not None
        hung_since: float | None = None  # the last ping before a hang
        wait = interval + grace
        while not self._stop.wait(wait):
            pinged = self._pinged
            silent = time.monotonic() - pinged
            late = silent - interval  # past the ping's due time
            if hung_since is not None and pinged != hung_since:
                log.warning(
                    "the hub loop answers again (after about %.1f s)",
                    pinged - hung_since - interval,
                )
                hung_since = None
            if late >= grace and hung_since is None:
                hung_since = pinged  # once per hang: the journal is not flooded
                log.warning(
                    "the hub loop has not answered for %.1f s; no watchdog ping until it "
                    "does (systemd restarts the hub %.1f s later); every thread's stack:\n%s",
                    silent,
                    max(0.0, 2 * interval - silent),  # the period runs out
                    thread_stacks(),
                )
            # Next look: when this ping would be late (one interval on, during a hang).
            wait = interval if hung_since is not None else max(grace / 2, grace - late)

    def _ping(self) -> None:
        """Runs on the loop thread."""
        self._notifier.watchdog()
        self._pinged = time.monotonic()

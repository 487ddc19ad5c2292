"""Talking to systemd: ``sd_notify`` readiness, status and the watchdog, on the stdlib.

Under ``Type=notify`` systemd sets ``NOTIFY_SOCKET`` (an ``AF_UNIX`` datagram socket,
``@`` meaning the abstract namespace); with ``WatchdogSec=`` it also sets
``WATCHDOG_USEC`` (and ``WATCHDOG_PID``). The hub says ``READY=1`` once it serves,
``STATUS=...`` lines people read in ``systemctl status``, and ``WATCHDOG=1`` every half
watchdog period. The pings are sent *by the hub loop's thread*: a :class:`WatchdogFeeder`
thread asks the loop to run the ping, so a loop that hangs stops the pings and systemd
restarts the hub; before that happens the feeder logs every thread's stack, so the
journal says where the loop hung. Without ``NOTIFY_SOCKET`` (a terminal, the tests)
nothing is sent. (The test that freezes the loop to see the pings stop brings its own
hook: ``tests/freezable_hub.py``.)
"""

from __future__ import annotations

import faulthandler
import logging
import os
import socket
import tempfile
import threading
from collections.abc import Callable, Mapping

log = logging.getLogger("hub.runtime.notify")

# Runs ``fn(table)`` on the loop thread, waits at most ``timeout`` s (HubLoop.call).
LoopCall = Callable[..., object]


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
    """Pings the watchdog every half period, the ping itself run by the loop thread.

    ``loop_call(fn, timeout)`` is :meth:`hub.runtime.loop.HubLoop.call`. A ping the loop
    has not run a quarter period after it was asked for is a hang: no ping goes out, and a
    warning with every thread's stack is logged (a quarter period before systemd's kill,
    which comes when the period runs out). At most one request waits in the loop's queue.
    """

    def __init__(self, notifier: Notifier, loop_call: LoopCall) -> None:
        self._notifier = notifier
        self._loop_call = loop_call
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._answered = threading.Event()
        self._answered.set()

    @property
    def interval_s(self) -> float | None:
        """Seconds between pings (half the watchdog period), or None when off."""
        period = self._notifier.watchdog_s
        return None if period is None or not self._notifier.enabled else period / 2

    def start(self) -> None:
        """Start pinging (nothing happens without a watchdog period). The loop's thread
        is named ``hub-loop`` in the kernel first, so the thread the watchdog watches can
        be told from outside (``ps -T``; the rehearsal freezes it by that name)."""
        if self.interval_s is None:
            return
        try:
            self._loop_call(lambda _table: name_os_thread(LOOP_THREAD_NAME), 5.0)
        except TimeoutError:
            log.warning("the hub loop did not answer within 5 s of the start")
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop pinging."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None

    @property
    def grace_s(self) -> float | None:
        """How long an asked-for ping may take before the loop counts as hung."""
        interval = self.interval_s
        return None if interval is None else interval / 2

    def _run(self) -> None:
        interval, grace = self.interval_s, self.grace_s
        assert interval is not None and grace is not None
        missed = 0
        while not self._stop.wait(interval):
            if self._answered.is_set():
                if missed:
                    log.warning(
                        "the hub loop answers again (after about %.1f s)",
                        grace + (missed - 1) * (interval + grace),
                    )
                    missed = 0
                self._answered.clear()
                try:
                    self._loop_call(self._ping, 0)
                except TimeoutError:
                    pass  # the ping stays queued; ``_answered`` tells when it ran
            if self._answered.wait(grace) or self._stop.is_set():
                continue
            missed += 1
            if missed == 1:  # once per hang: the journal is not flooded
                log.warning(
                    "the hub loop has not answered for %.1f s; no watchdog ping until it "
                    "does (systemd restarts the hub %.1f s later); every thread's stack:\n%s",
                    grace,
                    grace,
                    thread_stacks(),
                )

    def _ping(self, _table: object) -> None:
        """Runs on the loop thread."""
        self._notifier.watchdog()
        self._answered.set()

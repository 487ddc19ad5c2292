"""sd_notify for real: ``mtrain-hub run`` talks to a datagram socket the test binds.

The hub runs as its unit runs it (``NOTIFY_SOCKET``, ``WATCHDOG_USEC``, no new
privileges, no writable-and-executable memory) and must say ``READY=1`` with a
``STATUS=`` line, ping ``WATCHDOG=1`` every half period, stop pinging while its loop
thread is frozen and resume after. The freeze is the test's own hook
(``tests/freezable_hub.py``: ``SIGUSR2`` freezes the loop thread); the hub ships none.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hub.cli import EXIT_CONFIG
from hub.runtime.notify import Notifier, WatchdogFeeder
from tests.helpers import eventually, until
from tests.ports import PortTaken, on_a_free_port

PERIOD_S = 0.4  # WATCHDOG_USEC: pings every 0.2 s
ROOT = Path(__file__).resolve().parents[2]
PR_SET_NO_NEW_PRIVS = 38
PR_SET_MDWE = 65  # Linux 6.3+: what MemoryDenyWriteExecute= enforces with seccomp


def _confine() -> None:
    """In the child: what NoNewPrivileges= and MemoryDenyWriteExecute= impose."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    libc.prctl(PR_SET_MDWE, 1, 0, 0, 0)  # older kernels refuse: then only NNP applies


class Listener:
    """The test's side of NOTIFY_SOCKET: every datagram, with the time it came."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.process: subprocess.Popen[str] | None = None
        self.before_ready: list[str] = []

    def next(self, timeout: float) -> str | None:
        """The next datagram, or None when none comes within ``timeout`` s."""
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(4096).decode()
        except TimeoutError:
            return None

    def until(self, wanted: str, timeout: float) -> list[str]:
        """Every datagram up to the first containing ``wanted`` (fails after ``timeout``)."""
        seen: list[str] = []

        def heard() -> bool:
            message = self.next(0.5)
            if message is None:  # the hub gone: nothing more will come
                gone = self.process is not None and self.process.poll() is not None
                if gone:
                    raise AssertionError(f"the hub exited before {wanted!r}; got {seen!r}")
                return False
            seen.append(message)
            return wanted in message.splitlines()

        until(heard, lambda: f"{wanted!r}; got {seen!r}", timeout)
        return seen

    def pings_within(self, seconds: float) -> int:
        """How many WATCHDOG=1 arrive in the next ``seconds``."""
        count = 0
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            message = self.next(left)
            if message is not None and "WATCHDOG=1" in message.splitlines():
                count += 1
        return count


@pytest.fixture
def hub_process(tmp_path):
    """``mtrain-hub run`` as its unit runs it, on a port from the OS; ready (its messages
    up to ``READY=1`` are the listener's ``before_ready``)."""
    listener = Listener(tmp_path / "notify.sock")
    config = tmp_path / "hub.toml"
    config.write_text('[sound]\ndevice = "null"\n')
    # stderr is a file standing in for the journal's stream: JOURNAL_STREAM names it.
    journal = (tmp_path / "journal").open("w+")
    info = os.fstat(journal.fileno())
    env = {
        **os.environ,
        "NOTIFY_SOCKET": str(tmp_path / "notify.sock"),
        "WATCHDOG_USEC": str(int(PERIOD_S * 1e6)),
        "JOURNAL_STREAM": f"{info.st_dev}:{info.st_ino}",
    }
    env.pop("WATCHDOG_PID", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))

    def launch(port: int) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.freezable_hub",  # mtrain-hub, with the test's freeze hook
                "run",
                "--backend",
                "sim",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--state-dir",
                str(tmp_path / "state"),
                "--config",
                str(config),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=journal,
            text=True,
            preexec_fn=_confine,
        )
        listener.process = process
        try:
            listener.before_ready = listener.until("READY=1", timeout=30)
        except AssertionError:
            if (
                process.wait(timeout=10) == EXIT_CONFIG
                and "already in use" in (tmp_path / "journal").read_text()
            ):
                journal.seek(0)  # the next try's journal starts empty
                journal.truncate()
                raise PortTaken(port) from None
            raise
        return process

    process = on_a_free_port(launch)
    yield process, listener, tmp_path / "journal"
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)
    listener.sock.close()
    journal.close()


def test_ready_status_watchdog_and_a_frozen_loop(hub_process):
    process, listener, journal = hub_process
    seen = listener.before_ready
    ready = seen[-1].splitlines()
    status = next(line for line in ready if line.startswith("STATUS="))
    assert "backend sim" in status and "scorepad on http://127.0.0.1:" in status
    assert any(line.startswith("STATUS=starting") for m in seen for line in m.splitlines())
    assert listener.pings_within(1.2) >= 3  # every 0.2 s

    process.send_signal(signal.SIGUSR2)  # freeze the loop thread
    listener.pings_within(0.5)  # a ping already on its way may still come
    assert listener.pings_within(1.5) == 0, "the watchdog was fed by a frozen loop"

    process.send_signal(signal.SIGUSR2)  # thaw
    assert listener.pings_within(1.2) >= 2

    process.send_signal(signal.SIGTERM)
    listener.until("STOPPING=1", timeout=10)
    assert process.wait(timeout=15) == 0, journal.read_text()
    lines = journal.read_text().splitlines()
    # The journal's form: a syslog priority first, no timestamp (journald adds its own).
    assert lines and all(line[:3] in {"<3>", "<4>", "<6>", "<7>"} for line in lines), lines
    hang = "<4>hub.runtime.notify: the hub loop has not answered"
    assert any(line.startswith(hang) for line in lines)
    assert any(line.startswith("<4>tests.freezer: SIGUSR2: freezing") for line in lines)
    # Where the loop hung, before systemd's kill: every thread's stack, the loop's frozen
    # in the freeze hook (faulthandler's lines, each with the warning's prefix).
    assert any(line.startswith("<4>threads: ") and "hub-loop" in line for line in lines), lines
    assert any(line.startswith("<4>Thread 0x") for line in lines), lines
    assert any(line.startswith('<4>  File "') and "freez" in line for line in lines), lines
    start_lines = [line for line in lines if ": backend sim;" in line]
    assert len(start_lines) == 1, lines
    assert start_lines[0].startswith("<6>hub: mtrain-hub ") and "mqtt off" in start_lines[0]


def test_no_socket_no_messages_no_watchdog():
    notifier = Notifier({})
    assert not notifier.enabled and notifier.watchdog_s is None
    notifier.ready("fine")  # nothing to send to, nothing raised
    feeder = WatchdogFeeder(notifier, lambda fn, timeout: fn(None), lambda fn, every: None)
    assert feeder.interval_s is None
    feeder.start()
    feeder.stop()


def test_environment_is_read_like_sd_notify():
    abstract = Notifier({"NOTIFY_SOCKET": "@hub/notify", "WATCHDOG_USEC": "20000000"})
    assert abstract.address == b"\0hub/notify" and abstract.watchdog_s == 20.0
    other_pid = Notifier(
        {
            "NOTIFY_SOCKET": "/run/x",
            "WATCHDOG_USEC": "20000000",
            "WATCHDOG_PID": str(os.getpid() + 1),
        }
    )
    assert other_pid.watchdog_s is None
    assert Notifier({"NOTIFY_SOCKET": "relative"}).address is None
    assert Notifier({"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "soon"}).watchdog_s is None


def test_a_vanished_socket_never_raises(tmp_path):
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone.sock")})
    notifier.ready("serving")
    notifier.watchdog()
    notifier.close()


def test_abstract_socket_receives(tmp_path):
    name = f"mtrain-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name.encode())
        sock.settimeout(5)
        notifier = Notifier({"NOTIFY_SOCKET": "@" + name})
        notifier.status("two\nlines")
        assert sock.recv(100) == b"STATUS=two lines"
        notifier.close()


def test_the_watchdogs_kill_dumps_every_threads_stack(hub_process):
    """SIGABRT is what systemd sends when the watchdog period runs out: the hub's last
    words are every thread's stack (faulthandler), unprefixed (the unit's
    SyslogLevel=warning files them as warnings)."""
    process, listener, journal = hub_process
    assert "READY=1" in listener.before_ready[-1].splitlines()
    process.send_signal(signal.SIGABRT)
    assert process.wait(timeout=15) == -signal.SIGABRT
    text = journal.read_text()
    assert "Fatal Python error: Aborted" in text, text
    assert "Current thread 0x" in text and "\nThread 0x" in text, text


def test_a_hang_is_noticed_and_dumped_before_the_period_runs_out(caplog):
    """The loop never runs the ping: a quarter period after it was due, the feeder logs
    the hang with every thread's stack; systemd would kill at the full period."""
    notifier = Notifier({"NOTIFY_SOCKET": "@mtrain-test-none", "WATCHDOG_USEC": "200000"})
    asked = []
    feeder = WatchdogFeeder(
        notifier, lambda fn, timeout: None, lambda fn, every: asked.append((fn, every)), 0.0
    )
    assert feeder.interval_s == 0.1 and feeder.grace_s == 0.05
    # From the last ping: the next due an interval on, the hang a grace later (the
    # feeder looks within half a grace more).
    assert feeder.interval_s + 1.5 * feeder.grace_s < notifier.watchdog_s
    with caplog.at_level(logging.WARNING, logger="hub.runtime.notify"):
        feeder.start()
        try:
            assert eventually(lambda: "has not answered" in caplog.text)
        finally:
            feeder.stop()
            notifier.close()
    assert asked[0][1] == 0.1, "the feeder asked the loop for a ping every interval"
    assert asked[-1] == (None, 0.0), "and stopped it when it stopped"
    record = next(r for r in caplog.records if "has not answered" in r.getMessage())
    message = record.getMessage()
    assert "every thread's stack" in message and "threads: MainThread 0x" in message
    assert "Current thread 0x" in message  # faulthandler's dump, the feeder's own thread
    assert caplog.text.count("has not answered") == 1  # once per hang


def test_the_loops_thread_is_named_in_the_kernel(hub_process):
    """``hub-loop`` in /proc/PID/task/*/comm: ``ps -T`` shows it, and the rehearsal
    (tools/rehearse.sh) finds the thread to freeze by that name."""
    process, listener, _ = hub_process
    assert "READY=1" in listener.before_ready[-1].splitlines()
    tasks = Path(f"/proc/{process.pid}/task")
    names = [(task / "comm").read_text().strip() for task in tasks.iterdir()]
    assert names.count("hub-loop") == 1, names


# --- the loop's beat: the pings' clock ------------------------------------------------


def _beating_loop():
    from hub import core
    from hub.runtime.clock import SystemClock
    from hub.runtime.loop import HubLoop

    loop = HubLoop(core.new_table(), SystemClock(), "sim")
    loop.start()
    return loop


def test_the_loop_beats_when_idle_and_between_items_when_busy(caplog):
    """An idle loop wakes for its beat; a loop busy with a long line of items beats
    between two of them; a beat that raises is logged and the loop goes on; None stops."""
    loop = _beating_loop()
    beats: list[float] = []
    try:
        loop.beat(lambda: beats.append(time.monotonic()), 0.02)
        assert eventually(lambda: len(beats) >= 5)  # idle: nothing queued but the beat
        gaps = [b - a for a, b in zip(beats, beats[1:], strict=False)]
        assert all(gap >= 0.019 for gap in gaps), gaps  # not more often than asked
        # Busy: 60 items of 5 ms each queued behind a held one, so the queue is never
        # empty for the 0.3 s they take: the beats come between items.
        release = threading.Event()
        held = threading.Thread(target=loop.call, args=(lambda _t: release.wait(5), 6.0))
        held.start()
        calls = [
            threading.Thread(target=loop.call, args=(lambda _t: time.sleep(0.005), 5.0))
            for _ in range(60)
        ]
        for call in calls:
            call.start()
        assert eventually(lambda: loop._queue.qsize() >= 60)
        beats.clear()
        release.set()
        for call in [held, *calls]:
            call.join()
        assert len(beats) >= 5, "a busy loop beats between items"
        with caplog.at_level(logging.ERROR, logger="hub.runtime.loop"):
            loop.beat(lambda: 1 / 0, 0.01)
            assert eventually(lambda: "the loop's beat failed" in caplog.text)
        assert loop.call(lambda _t: "still here") == "still here"
        loop.beat(None)
        beats.clear()
        loop.beat(lambda: beats.append(time.monotonic()), 0.01)
        loop.beat(None)
        loop.call(lambda _t: None)
        count = len(beats)
        time.sleep(0.05)  # a negative check: no beat in five of its periods
        assert len(beats) == count
    finally:
        loop.stop()


def test_a_hang_that_ends_is_said_to_end(caplog):
    """A loop held longer than the grace: the feeder logs the hang once (however long
    it lasts), and that the loop answers again once it pings; the pings go on."""
    loop = _beating_loop()
    notifier = Notifier({"NOTIFY_SOCKET": "@mtrain-test-none", "WATCHDOG_USEC": "200000"})
    feeder = WatchdogFeeder(notifier, loop.call, loop.beat, hang_s=0.0)
    release = threading.Event()

    def said(text: str, since: int) -> int:
        return sum(text in r.getMessage() for r in caplog.records[since:])

    try:
        with caplog.at_level(logging.WARNING, logger="hub.runtime.notify"):
            feeder.start()
            held = len(caplog.records)  # a hiccup of a busy machine before may log too
            holder = threading.Thread(target=loop.call, args=(lambda _t: release.wait(5), 6))
            holder.start()
            assert eventually(lambda: said("has not answered", held))
            time.sleep(0.3)  # still held for three more looks of the feeder: no new warning
            release.set()
            holder.join()
            assert eventually(lambda: said("answers again", held))
            assert said("has not answered", held) == 1
            pinged = feeder._pinged
            assert eventually(lambda: feeder._pinged > pinged)
    finally:
        release.set()
        feeder.stop()
        notifier.close()
        loop.stop()


def test_a_hiccup_shorter_than_a_second_is_no_hang(caplog):
    """With a watchdog of a few milliseconds (the bench's probe) a loop busy for 0.3 s
    is late, but no hang: nothing is logged, no stack is dumped."""
    loop = _beating_loop()
    notifier = Notifier({"NOTIFY_SOCKET": "@mtrain-test-none", "WATCHDOG_USEC": "20000"})
    feeder = WatchdogFeeder(notifier, loop.call, loop.beat)
    assert feeder.grace_s == 1.0
    try:
        with caplog.at_level(logging.WARNING, logger="hub.runtime.notify"):
            feeder.start()
            loop.call(lambda _t: time.sleep(0.3), 5)
            beats = feeder._pinged
            assert eventually(lambda: feeder._pinged > beats)  # pinging again
        assert "has not answered" not in caplog.text
    finally:
        feeder.stop()
        notifier.close()
        loop.stop()

"""A real mosquitto on a loopback port from the OS, and a listening MQTT client, for the tests
and the MQTT bench. The listener is the hub's own paho adapter (``PahoLink``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hub.io.mqtt import Broker, LinkHandlers, PahoLink
from tests.helpers import until
from tests.ports import PortTaken, on_a_free_port

MOSQUITTO = "/usr/sbin/mosquitto"


def mosquitto_path() -> str | None:
    """The broker's executable, if installed."""
    if os.access(MOSQUITTO, os.X_OK):
        return MOSQUITTO
    return shutil.which("mosquitto")


class Mosquitto:
    """mosquitto with its own config on 127.0.0.1:``port`` (no persistence: a restart
    forgets every retained message, as a replaced broker would). Without ``port``, on a
    port from the OS: mosquitto cannot say which port 0 gave it, so when another server
    took the port first (its log says so) it starts again on another."""

    def __init__(self, workdir: Path, port: int | None = None, extra: str = "") -> None:
        path = mosquitto_path()
        if path is None:
            raise FileNotFoundError("mosquitto is not installed")
        self.path = path
        self.workdir = workdir
        self.extra = extra
        workdir.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "mosquitto.conf"
        self.log_path = workdir / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None
        if port is None:
            on_a_free_port(self._start_on)
        else:
            self._start_on(port)

    def _start_on(self, port: int) -> Mosquitto:
        self.port = port
        self.url = f"mqtt://127.0.0.1:{port}"
        self.config.write_text(
            f"listener {port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence false\nmax_queued_messages 10000\n{self.extra}"
        )
        self.start()
        return self

    def start(self, timeout: float = 10.0) -> None:
        """Start the broker (again, on the same port) and wait until it listens."""
        with open(self.log_path, "ab") as log:
            begun = log.tell()
            self.proc = subprocess.Popen(
                [self.path, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT
            )
        proc = self.proc

        def said() -> str:
            with open(self.log_path, "rb") as log:
                log.seek(begun)
                return log.read().decode(errors="replace")

        until(
            lambda: " running" in said() or proc.poll() is not None,
            f"mosquitto to listen on port {self.port}",
            timeout,
        )
        if proc.poll() is not None:
            self.proc = None
            if "Address already in use" in said():
                raise PortTaken(said())
            raise RuntimeError(f"mosquitto exited with {proc.returncode}: {said()}")

    def kill(self) -> None:
        """SIGKILL the broker (a crash: no goodbyes) and wait for it to go."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        """Stop the broker."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


class Listener:
    """Subscribes to ``topics`` and keeps every message; tests wait on conditions."""

    def __init__(self, port: int, topics: tuple[str, ...] = ("#",), client_id: str = "") -> None:
        self.messages: list[tuple[str, bytes, float]] = []
        self.latest: dict[str, bytes] = {}
        self._cond = threading.Condition()
        handlers = LinkHandlers(message=self._message)
        self.client_id = client_id or f"listener-{id(self)}"
        self.probe = f"probe/{self.client_id}"
        self.link = PahoLink(
            Broker("127.0.0.1", port),
            self.client_id,
            handlers,
            subscriptions=(*topics, self.probe),
            backoff=1,
            max_backoff=2,
        )
        self.link.start()

    def _message(self, topic: str, payload: bytes) -> None:
        with self._cond:
            self.messages.append((topic, payload, time.perf_counter()))
            self.latest[topic] = payload
            self._cond.notify_all()

    def wait_for(self, check: Callable[[], object], timeout: float = 10.0) -> object:
        """Wait until ``check()`` is truthy (re-checked on every message); return it."""
        return until(
            check,
            lambda: f"such a message; last: {self.messages[-5:]}",
            timeout,
            condition=self._cond,
        )

    def json(self, topic: str) -> object:
        """The latest payload on ``topic`` as JSON (None if none)."""
        raw = self.latest.get(topic)
        return None if raw is None else json.loads(raw or b"null")

    def on(self, topic: str) -> list[bytes]:
        """Every payload seen on ``topic``, in order."""
        return [payload for t, payload, _ in self.messages if t == topic]

    def wait_connected(self, timeout: float = 10.0) -> None:
        """Wait until the listener is subscribed (it hears its own probe)."""
        self.wait_for(lambda: self.link.connected, timeout)

        def probed() -> bool:
            if self.on(self.probe):
                return True
            self.link.publish(self.probe, "probe", qos=0)  # again, until one comes back
            return False

        self.wait_for(probed, timeout)

    def close(self) -> None:
        """Disconnect."""
        self.link.stop()

"""A real mosquitto on a free loopback port, and a listening MQTT client, for the tests
and the MQTT bench. The listener is the hub's own paho adapter (``PahoLink``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hub.io.mqtt import Broker, LinkHandlers, PahoLink

MOSQUITTO = "/usr/sbin/mosquitto"


def mosquitto_path() -> str | None:
    """The broker's executable, if installed."""
    if os.access(MOSQUITTO, os.X_OK):
        return MOSQUITTO
    return shutil.which("mosquitto")


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """mosquitto with its own config on 127.0.0.1:``port`` (no persistence: a restart
    forgets every retained message, as a replaced broker would)."""

    def __init__(self, workdir: Path, port: int | None = None, extra: str = "") -> None:
        path = mosquitto_path()
        if path is None:
            raise FileNotFoundError("mosquitto is not installed")
        self.path = path
        self.port = port or free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence false\nmax_queued_messages 10000\n{extra}"
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self, timeout: float = 10.0) -> None:
        """Start the broker and wait until it accepts connections."""
        log = open(self.workdir / "mosquitto.log", "ab")
        self.proc = subprocess.Popen(
            [self.path, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.02)
        raise TimeoutError("mosquitto did not start")

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
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                result = check()
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"no such message within {timeout} s; last: {self.messages[-5:]}"
                    )
                self._cond.wait(min(left, 0.2))

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
        deadline = time.monotonic() + timeout
        while not self.on(self.probe):
            self.link.publish(self.probe, "probe", qos=0)
            try:
                self.wait_for(lambda: self.on(self.probe), 0.5)
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise

    def close(self) -> None:
        """Disconnect."""
        self.link.stop()

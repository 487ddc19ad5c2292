"""A tiny JSON-over-HTTP client and our servers as subprocesses, for the end-to-end tests."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.helpers import until
from tests.ports import PortTaken, on_a_free_port

# --- one request on a raw socket: what a hostile phone sends, timed ----------------------


def raw_post(address: str, headers: str, body: bytes, path: str = "/api/games") -> bytes:
    """A whole ``POST`` with a JSON body and extra ``headers`` (each line ends ``\\r\\n``)."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n{headers}Connection: close\r\n\r\n"
    )
    return head.encode() + body


def raw_get(address: str, path: str) -> bytes:
    """A whole ``GET`` of ``path``."""
    return f"GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n".encode()


def send_raw(address: str, request: bytes) -> tuple[socket.socket, float]:
    """``request`` sent whole on a new connection to ``host:port``; the socket and when
    it was sent (``time.perf_counter``)."""
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=60)
    try:
        sock.sendall(request)
    except (BrokenPipeError, ConnectionResetError):
        pass  # a server may answer a huge head early and close: the answer counts
    return sock, time.perf_counter()


def status_of(sock: socket.socket, sent: float) -> tuple[int, float]:
    """The status of the answer on ``sock`` (closing it), and the seconds from ``sent``
    to its first line."""
    with sock:
        head = b""
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
        took = time.perf_counter() - sent
    return int(head.split(b" ", 2)[1]), took


def dechunked(data: bytes) -> bytes:
    """The body of a chunked HTTP/1.1 answer, as far as it has come whole."""
    body = b""
    while b"\r\n" in data:
        size, _, rest = data.partition(b"\r\n")
        length = int(size, 16)
        if len(rest) < length + 2:
            break
        body, data = body + rest[:length], rest[length + 2 :]
    return body


class EventStream:
    """The events of ``GET /api/events`` read off a raw socket: the answer's head, then
    its body de-framed (HTTP/1.1 chunks, as the hub's server sends a stream, or plain
    bytes to the close) and cut into Server-Sent Events, each a dict of its fields.
    One home for the benches' and tests' raw readers."""

    def __init__(self) -> None:
        self.head: bytes | None = None
        self._body = b""  # de-framed, not yet cut into events
        self._raw = b""
        self._chunked = False

    def feed(self, data: bytes) -> list[dict[bytes, bytes]]:
        """Take ``data`` off the socket; the events it completes, in order."""
        self._raw += data
        if self.head is None:
            if b"\r\n\r\n" not in self._raw:
                return []
            self.head, self._raw = self._raw.split(b"\r\n\r\n", 1)
            self._chunked = b"transfer-encoding: chunked" in self.head.lower()
        if self._chunked:
            while b"\r\n" in self._raw:
                size, _, rest = self._raw.partition(b"\r\n")
                length = int(size, 16)
                if len(rest) < length + 2:
                    break
                self._body, self._raw = self._body + rest[:length], rest[length + 2 :]
        else:
            self._body, self._raw = self._body + self._raw, b""
        events = []
        while b"\n\n" in self._body:
            event, self._body = self._body.split(b"\n\n", 1)
            fields = dict(
                line.split(b": ", 1)
                for line in event.split(b"\n")
                if b": " in line and not line.startswith(b":")
            )
            if fields:
                events.append(fields)
        return events


def call(base: str, method: str, path: str, body=None, token=None):
    """Send ``body`` as JSON; return ``(status, parsed JSON)``."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


class ServerProcess:
    """One of our servers as a subprocess on 127.0.0.1, on a port from the OS (or on
    ``port``: a restart that must keep its address); ``command(port)`` is its command
    line, and its output goes to ``log_path`` (appended); it must listen within
    ``ready_s`` s. ``popen`` are more arguments for ``subprocess.Popen`` (``env``, ...)."""

    def __init__(
        self,
        name: str,
        command,
        log_path: Path,
        port: int | None = None,
        ready_s: float = 30.0,
        **popen,
    ) -> None:
        self.name = name
        self.ready_s = ready_s
        self.command = command
        self.log_path = log_path
        self.popen = popen
        if port is None:
            on_a_free_port(self._launch)
        else:
            self._launch(port)

    def _launch(self, port: int) -> ServerProcess:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.log = open(self.log_path, "ab")
        start = self.log.tell()
        self.proc = subprocess.Popen(
            self.command(port), stdout=self.log, stderr=subprocess.STDOUT, **self.popen
        )
        try:
            self.wait_ready(start, self.ready_s)
        except PortTaken:
            self.proc.wait(timeout=20)
            self.log.close()
            raise
        return self

    def wait_ready(self, start: int, timeout: float = 30) -> None:
        """Until the log (from offset ``start``) says the server listens at its address
        (every server of ours logs it once its socket listens); :class:`PortTaken` when
        it found the port taken, RuntimeError when it stopped for another reason."""
        address = f"http://127.0.0.1:{self.port}/"

        def said() -> str:
            return self.said(start)

        until(
            lambda: address in said() or self.proc.poll() is not None,
            f"{self.name} to listen on {address}",
            timeout,
        )
        text = said()
        if address not in text:
            if "already in use" in text:
                raise PortTaken(text)
            raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{text}")

    def said(self, start: int = 0) -> str:
        """What the server wrote to its log (from offset ``start``)."""
        with open(self.log_path, "rb") as log:
            log.seek(start)
            return log.read().decode(errors="replace")

    def stop(self, sig=signal.SIGTERM) -> int:
        """Stop the server (SIGTERM: an orderly stop; SIGKILL: a power cut)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=20)
        self.log.close()
        return code


class HubProcess(ServerProcess):
    """``mtrain-hub run --backend sim`` (and ``extra``) as a subprocess, its state in
    ``state_dir`` and its log in ``<state_dir>.log``."""

    def __init__(self, state_dir, *extra: str, port: int | None = None) -> None:
        self.state_dir = state_dir
        self.extra = extra
        super().__init__("mtrain-hub run", self._command, Path(str(state_dir) + ".log"), port)

    @classmethod
    def configured(cls, folder: Path, toml: str) -> HubProcess:
        """A hub whose config file (``folder/hub.toml``) holds ``toml``, its state in
        ``folder/state``."""
        config = folder / "hub.toml"
        config.write_text(toml)
        return cls(folder / "state", "--config", str(config))

    def _command(self, port: int) -> list[str]:
        return [
            sys.executable,
            "-m",
            "hub.cli",
            "run",
            "--backend",
            "sim",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--state-dir",
            str(self.state_dir),
            *self.extra,
        ]

    def get(self, path):
        return call(self.base, "GET", path)

    def post(self, path, body=None, token=None):
        return call(self.base, "POST", path, {} if body is None else body, token)

"""A tiny JSON-over-HTTP client and a hub subprocess, for the end-to-end tests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


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


class HubProcess:
    """``mtrain-hub run`` as a subprocess on 127.0.0.1:``port``."""

    def __init__(self, port: int, state_dir, *extra: str) -> None:
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        args = [
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
            str(state_dir),
            *extra,
        ]
        self.log = open(os.path.join(str(state_dir) + ".log"), "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        self.wait_ready()

    @classmethod
    def configured(cls, port: int, folder: Path, toml: str) -> HubProcess:
        """A hub whose config file (``folder/hub.toml``) holds ``toml``, its state in
        ``folder/state``."""
        config = folder / "hub.toml"
        config.write_text(toml)
        return cls(port, folder / "state", "--config", str(config))

    def wait_ready(self, timeout: float = 30) -> None:
        """Poll ``/api/state`` until the hub answers."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hub exited with {self.proc.returncode}")
            try:
                call(self.base, "GET", "/api/state")
                return
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.05)
        raise TimeoutError("hub did not start")

    def get(self, path):
        return call(self.base, "GET", path)

    def post(self, path, body=None, token=None):
        return call(self.base, "POST", path, {} if body is None else body, token)

    def stop(self, sig=signal.SIGTERM) -> int:
        """Stop the hub (SIGTERM: an orderly stop; SIGKILL: a power cut)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=20)
        self.log.close()
        return code

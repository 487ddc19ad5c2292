"""``mtrain-hub run`` stops on SIGTERM whatever its server's loop is doing.

The SIGTERM handler raised SystemExit on the loop's thread; landing while the loop ran
a request's callback (the early gate, a write), Tornado took it for that request's
error, logged "Uncaught exception" and served on: systemd's stop waited for its
SIGKILL. Found flooding claims (bench/path_gate.py: 2 stops in 7 hung). Now the
handler asks the loop to end once the callback returns. Here the gate is made to
take a while on one path, so the signal lands inside it every time."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.helpers import until
from tests.ports import PortTaken, on_a_free_port

ROOT = Path(__file__).resolve().parents[2]
# The hub as `mtrain-hub run` starts it, its early gate slow on /slow (it says when).
SCRIPT = """
import sys, time
import web.trust_api as trust

real = trust.early_gate

def slow_gate(app):
    gate = real(app)
    def checked(method, path, client):
        if path == "/slow":
            print("in the gate", flush=True)
            time.sleep(5)
        return gate(method, path, client)
    return checked

trust.early_gate = slow_gate
from hub.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def start(tmp_path: Path, port: int) -> tuple[subprocess.Popen[bytes], Path]:
    """The hub on ``port`` once it listens, and its log (:class:`PortTaken` if taken)."""
    log = tmp_path / f"hub-{port}.log"
    command = [sys.executable, "-c", SCRIPT, "run", "--backend", "sim", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--state-dir", str(tmp_path / "state")]
    with open(log, "wb") as out:
        hub = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
    listening = f"http://127.0.0.1:{port}/"
    until(lambda: listening in log.read_text() or hub.poll() is not None, "the hub to listen", 60)
    if listening not in log.read_text():
        hub.wait()
        if "already in use" in log.read_text():
            raise PortTaken(log.read_text())
        raise AssertionError(log.read_text())
    return hub, log


def test_sigterm_while_the_loop_runs_a_request_stops_the_hub(tmp_path: Path) -> None:
    hub, log = on_a_free_port(lambda port: start(tmp_path, port))
    port = int(log.name.removeprefix("hub-").removesuffix(".log"))
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            until(lambda: "in the gate" in log.read_text(), "the request in the gate", 30)
            hub.send_signal(signal.SIGTERM)
            status = hub.wait(timeout=30)  # a generous bound: it stops, not hangs
    finally:
        if hub.poll() is None:
            hub.kill()
            hub.wait()
    said = log.read_text()
    assert status == 0, said
    assert "Uncaught exception" not in said and "Traceback" not in said, said

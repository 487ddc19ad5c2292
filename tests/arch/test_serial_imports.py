"""A hub on its box (``--backend serial``) never loads the pins adapter: the box reads
the buttons and markers, so gpiozero stays out of the process (docs/performance.md,
"The Pi budget": about a twentieth of a Pi Zero's start)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from firmware_bridge.fake_mcu import FakeMcu
from hub.cli import EXIT_CONFIG
from tests.ports import PortTaken, on_a_free_port

ROOT = Path(__file__).resolve().parents[2]

# Runs the real CLI's ``run`` on the box; once the hub answers, reports its modules.
_PROBE = """
import json, os, sys, threading, urllib.request
from hub.cli import main as cli
from hub.runtime.supervision import Supervision
port, state, config, box = sys.argv[1:5]
listening = threading.Event()
said_ready = Supervision.listening

def ready(self, host, port):
    said_ready(self, host, port)
    listening.set()

def probe():
    listening.wait()
    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5).read()
    print(json.dumps(sorted(sys.modules)), flush=True)
    os._exit(0)

Supervision.listening = ready  # the hub listens: probe it (no polling)
threading.Thread(target=probe, daemon=True).start()
sys.exit(cli.main(["run", "--config", config, "--backend", "serial", "--serial-port", box,
                   "--host", "127.0.0.1", "--port", port, "--state-dir", state]))
"""


def test_a_hub_on_its_box_loads_no_gpiozero(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text('[sound]\ndevice = "null"\n')
    box = FakeMcu()

    def run(port: int) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, str(port), str(tmp_path / "state")]
            + [str(config), box.path],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
        if out.returncode == EXIT_CONFIG and "already in use" in out.stderr:
            raise PortTaken(out.stderr)
        return out

    try:
        out = on_a_free_port(run)
    finally:
        box.close()
    assert out.returncode == 0, out.stderr
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "firmware_bridge.link" in modules  # the probe saw a hub on its box
    assert not {m for m in modules if m.split(".")[0] == "gpiozero"}
    assert "hub.io.pins" not in modules

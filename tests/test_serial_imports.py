"""A hub on its box (``--backend serial``) never loads the pins adapter: the box reads
the buttons and markers, so gpiozero stays out of the process (docs/performance.md,
"The Pi budget": about a twentieth of a Pi Zero's start)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from firmware_bridge.fake_mcu import FakeMcu

ROOT = Path(__file__).resolve().parent.parent

# Runs the real CLI's ``run`` on the box; once the hub answers, reports its modules.
_PROBE = """
import json, os, sys, threading, time, urllib.request
from hub.cli import main as cli
port, state, config, box = sys.argv[1:5]

def probe():
    for _ in range(400):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1).read()
            break
        except OSError:
            time.sleep(0.05)
    else:
        os._exit(1)
    print(json.dumps(sorted(sys.modules)), flush=True)
    os._exit(0)

threading.Thread(target=probe, daemon=True).start()
cli.main(["run", "--config", config, "--backend", "serial", "--serial-port", box,
          "--host", "127.0.0.1", "--port", port, "--state-dir", state])
"""


def test_a_hub_on_its_box_loads_no_gpiozero(tmp_path, free_port):
    config = tmp_path / "hub.toml"
    config.write_text('[sound]\ndevice = "null"\n')
    box = FakeMcu()
    try:
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, str(free_port), str(tmp_path / "state")]
            + [str(config), box.path],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    finally:
        box.close()
    assert out.returncode == 0, out.stderr
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "firmware_bridge.link" in modules  # the probe saw a hub on its box
    assert not {m for m in modules if m.split(".")[0] == "gpiozero"}
    assert "hub.io.pins" not in modules

"""What a running hub keeps out of memory (docs/performance.md, "Footprint"): a default
``mtrain-hub run`` on the sim backend loads no library it does not use."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hub.cli import EXIT_CONFIG
from tests.ports import PortTaken, on_a_free_port

ROOT = Path(__file__).resolve().parents[2]

# Runs the real CLI's ``run`` with sound on ALSA's ``null`` device; once the hub has
# answered a page and a static file, reports what the process has loaded.
_PROBE = """
import gc, json, mimetypes, os, sys, threading, urllib.request
from hub.cli import main as cli
from hub.runtime.supervision import Supervision
port, state, config = sys.argv[1], sys.argv[2], sys.argv[3]
listening = threading.Event()
said_ready = Supervision.listening

def ready(self, host, port):
    said_ready(self, host, port)
    listening.set()

def probe():
    listening.wait()
    base = f"http://127.0.0.1:{port}"
    for path in ("/api/state", "/", "/static/app.js", "/static/app.css"):
        urllib.request.urlopen(base + path, timeout=5).read()
    top = {m.split(".")[0] for m in sys.modules}
    print(json.dumps({"modules": sorted(top), "mimetypes_read": mimetypes.inited,
                      "all": sorted(sys.modules), "frozen": gc.get_freeze_count()}),
          flush=True)
    os._exit(0)

Supervision.listening = ready  # the hub listens: probe it (no polling)
threading.Thread(target=probe, daemon=True).start()
sys.exit(cli.main(["run", "--config", config, "--backend", "sim", "--host", "127.0.0.1",
                   "--port", port, "--state-dir", state]))
"""

# Each is loaded only when the config asks for it (MQTT, the serial hub box, a QR code
# drawn, an ALSA device that failed to open) or by another subcommand.
NOT_LOADED = {"paho", "serial", "segno", "ctypes", "gzip", "tablesim", "hypothesis"}


def _probe(tmp_path: Path) -> dict[str, Any]:
    config = tmp_path / "hub.toml"
    config.write_text('[sound]\ndevice = "null"\n')

    def run(port: int) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, str(port), str(tmp_path / "state"), str(config)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
        if out.returncode == EXIT_CONFIG and "already in use" in out.stderr:
            raise PortTaken(out.stderr)
        return out

    out = on_a_free_port(run)
    assert out.returncode == 0, out.stderr
    seen: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return seen


def test_a_default_run_loads_only_what_it_uses(tmp_path):
    seen = _probe(tmp_path)
    assert NOT_LOADED & set(seen["modules"]) == set()
    assert "gpiozero.input_devices" in seen["all"]  # the probe saw a running hub
    assert seen["mimetypes_read"] is False  # the scorepad's types come from a table


def test_a_running_hub_keeps_its_start_up_objects_out_of_the_collector(tmp_path):
    # hub.cli.run.settle_heap: a full collection on the loop thread would otherwise walk
    # every module and class the hub loaded (docs/performance.md, "Press to effect").
    assert _probe(tmp_path)["frozen"] > 20_000

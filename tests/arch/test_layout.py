"""The layout docs/architecture.md draws: the product apart from its harnesses, one
gpiozero module."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hub.cli import EXIT_CONFIG
from tests.ports import PortTaken, on_a_free_port

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("hub", "scorer", "web", "firmware_bridge", "tablesim")

# Runs the real CLI's ``run``; once it listens and has answered, reports which harness
# modules the process has loaded.
_PROBE = """
import json, os, sys, threading, urllib.request
from hub.cli import main as cli
from hub.runtime.supervision import Supervision
port, state = sys.argv[1], sys.argv[2]
listening = threading.Event()
said_ready = Supervision.listening

def ready(self, host, port):
    said_ready(self, host, port)
    listening.set()

def probe():
    listening.wait()
    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5).read()
    loaded = sorted(m for m in sys.modules if m.split(".")[0] == "tablesim")
    print(json.dumps(loaded), flush=True)
    os._exit(0)

Supervision.listening = ready  # the hub listens: probe it (no polling)
threading.Thread(target=probe, daemon=True).start()
sys.exit(cli.main(["run", "--backend", "sim", "--host", "127.0.0.1", "--port", port,
                   "--state-dir", state]))
"""


def test_a_running_hub_loads_no_tablesim_module(tmp_path):
    def run(port: int) -> subprocess.CompletedProcess[str]:
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, str(port), str(tmp_path)],
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
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def _imports_of(path: Path, library: str) -> bool:
    pattern = re.compile(rf"^\s*(import {library}\b|from {library}\b)", re.M)
    return bool(pattern.search(path.read_text()))


def test_exactly_one_module_imports_gpiozero():
    found = [
        p.relative_to(ROOT).as_posix()
        for d in PRODUCT
        for p in sorted((ROOT / d).rglob("*.py"))
        if _imports_of(p, "gpiozero")
    ]
    assert found == ["hub/io/pins.py"]


def test_the_harnesses_live_in_tablesim():
    for name in ("soak", "bot_table", "demo"):
        assert not (ROOT / "hub" / f"{name}.py").exists()
        assert (ROOT / "tablesim" / f"{name}.py").exists()


def test_no_tracked_file_keeps_a_merge_conflict_marker():
    """A merge left ``=======`` and ``>>>>>>> branch`` in CHANGELOG.md once, unseen:
    no tracked text file may hold a conflict marker line."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    marker = re.compile(rb"^(<{7} |>{7} |={7}$)", re.M)
    found = []
    for name in filter(None, listed):
        path = ROOT / name.decode()
        if path.suffix in {".png", ".wav", ".pdf", ".stl", ".ico"} or not path.is_file():
            continue
        if marker.search(path.read_bytes()):
            found.append(name.decode())
    assert found == []

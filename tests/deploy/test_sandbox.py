"""The hub stays inside its unit's walls: every system call it makes while starting,
serving, taking a game, a press and a stop is one the unit's ``SystemCallFilter=``
allows, and every socket it opens is of a family ``RestrictAddressFamilies=`` allows.

Measured with strace on this machine's architecture, the filter expanded by
``systemd-analyze syscall-filter`` from the unit file itself, so a change to either
the unit or the hub that breaks the other fails here, not on a Pi at a game night.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import need
from tests.http_client import ServerProcess, call

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "mtrain-hub.service"
MTRAIN_HUB = Path(sys.executable).with_name("mtrain-hub")
# SQLite hands its journal files to the database's owner only when it runs as root
# (geteuid() == 0) and ignores a refusal; the unit runs as `mtrain`, which never does.
AS_ROOT_ONLY = {"fchown"}


def _service(key: str) -> list[str]:
    return [
        line.split("=", 1)[1]
        for line in UNIT.read_text().splitlines()
        if line.startswith(f"{key}=")
    ]


@cache
def _group(analyze: str, name: str) -> frozenset[str]:
    out = subprocess.run(
        [analyze, "syscall-filter", name], capture_output=True, text=True, check=True
    ).stdout
    calls: set[str] = set()
    for line in out.splitlines()[1:]:
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        calls |= _group(analyze, word) if word.startswith("@") else {word}
    return frozenset(calls)


def allowed_calls(analyze: str) -> set[str]:
    """The unit's SystemCallFilter= lines, applied in order as systemd does."""
    allowed: set[str] = set()
    for value in _service("SystemCallFilter"):
        deny = value.startswith("~")
        names: set[str] = set()
        for word in value.lstrip("~").split():
            names |= _group(analyze, word) if word.startswith("@") else {word}
        allowed = allowed - names if deny else allowed | names
    return allowed


def test_the_filter_reads_as_meant():
    calls = allowed_calls(need("systemd-analyze"))
    assert {"openat", "ioctl", "sendto", "futex", "clone3"} <= calls
    assert not {"setuid", "chown", "setpriority", "mount", "reboot"} & calls


@pytest.mark.slow
def test_the_hub_calls_only_what_the_unit_allows(tmp_path):
    strace, analyze = need("strace"), need("systemd-analyze")
    config = tmp_path / "hub.toml"
    config.write_text('[sound]\ndevice = "null"\n')

    def command(port: int) -> list[str]:
        return [
            strace,
            "-f",
            "-qq",
            "-o",
            str(tmp_path / f"trace-{port}"),  # one trace per try (a taken port: another)
            str(MTRAIN_HUB),
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
        ]

    hub = ServerProcess("mtrain-hub run under strace", command, tmp_path / "hub.log", ready_s=60)
    trace = tmp_path / f"trace-{hub.port}"
    try:
        status, game = call(hub.base, "POST", "/api/games", {"players": ["Ann", "Bob"]})
        assert status == 201, game
        assert call(hub.base, "POST", "/api/sim/slots/1/press", {"hold_ms": 0})[0] == 200
        for path in ("/", "/join.svg", "/api/join", f"/api/games/{game['id']}"):
            _get(hub.base + path)
    finally:
        # The hub is strace's child: its pid starts the trace. Stopping it ends strace.
        first = trace.read_text().split(None, 1)[0] if trace.exists() else ""
        os.kill(int(first) if first.isdigit() else hub.proc.pid, signal.SIGTERM)
        hub.proc.wait(timeout=60)
        hub.log.close()
    text = trace.read_text()
    used = set(re.findall(r"^\d+\s+([a-z_0-9]+)\(", text, re.M))
    assert {"sendto", "accept4", "openat"} <= used, "strace saw too little"
    outside = used - allowed_calls(analyze) - (AS_ROOT_ONLY if os.geteuid() == 0 else set())
    assert not outside, f"system calls the unit would refuse: {sorted(outside)}"
    families = set(re.findall(r"\bsocket\((AF_[A-Z0-9]+)", text))
    assert families <= set(_service("RestrictAddressFamilies")[0].split()), families


def _get(url: str) -> None:
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200, url
        response.read()

"""One hub under test for ``bench/pi_budget.py``: its process in its cgroups (a shell
joins them, then execs Python), its hub box, its phones, the sound port's pipe and the
notify socket, and what was measured of it."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import budget_table as table
from bench import cgroups
from tests.ports import os_port

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).resolve().with_name("pi_budget.py")  # its --hub and --box

PHONES = 8
PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
# The shell that puts itself in the groups, then becomes the hub:
# sh -c JOIN sh COUNT FILE... COMMAND...
JOIN = (
    'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 97; shift; n=$((n-1)); done;'
    ' exec "$@"'
)


def request(port: int, method: str, path: str, body: object = None) -> bytes:
    """The body of the answer (OSError when there is none yet, or it is not a success)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, data, {"Content-Type": "application/json"} if data else {})
        response = conn.getresponse()
        answer = response.read()
        if response.status >= 300:
            raise OSError(f"{method} {path}: {response.status} {answer[:200]!r}")
        return answer
    finally:
        conn.close()


@dataclass
class HubRun:
    """One hub under test and its table: the process in its group, its box, phones,
    the sound port's pipe and the notify socket, and what was measured."""

    label: str
    group: cgroups.Cgroup
    work: Path
    broker: str
    env: dict[str, str]
    box: table.Box | None = None
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    log_name: str = ""
    phones: list[table.Phone] = field(default_factory=list)
    stamps: table.Stamps | None = None
    pings: table.Pings | None = None
    listener: table.Listener = field(default_factory=table.Listener)
    played: table.Played | None = None
    figures: dict[str, Any] = field(default_factory=dict)

    def prepare(self, stack: contextlib.ExitStack) -> None:
        """Its folder, its config and its hub box."""
        self.work.mkdir()
        (self.work / "hub.toml").write_text('[sound]\ndevice = "null"\n')
        self.box = table.Box(SCRIPT, str(self.work / "box"))
        stack.callback(self.box.close)

    def warm_up(self, stack: contextlib.ExitStack) -> None:
        """Start ``mtrain-hub run`` once outside the groups, and stop it: every module it
        imports is then compiled into the bytecode cache (as installing it does) and
        read into the page cache, for both hubs alike."""
        self._launch(stack, [sys.executable, "-m", "hub.cli", "run"], "warm-up", self.env, [])
        self.stop()

    def measure_start(self, stack: contextlib.ExitStack) -> None:
        """``mtrain-hub run`` as it is (no hook, no probe) in the group, on a fresh state
        folder: time its first answer and the CPU it took, then stop it."""
        before = self.group.cpu_ns()
        started = time.perf_counter()
        hub = [sys.executable, "-m", "hub.cli", "run"]
        self._launch(stack, hub, "start", self.env, self.group.procs_files())
        self.figures["first_answer_s"] = time.perf_counter() - started
        self.figures["start_cpu_s"] = (self.group.cpu_ns() - before) / 1e9
        self.stop()

    def start(self, stack: contextlib.ExitStack, watchdog_usec: int) -> None:
        """The hub again, on a fresh state folder, with the sound port's hook writing to
        a pipe and (``watchdog_usec``) the watchdog probe, for the table."""
        assert self.box is not None
        self.pings = table.Pings(str(self.work / "notify"))
        stack.callback(self.pings.sock.close)
        read, write = os.pipe()
        self.stamps = table.Stamps(read)
        stack.callback(os.close, read)
        env = dict(self.env)
        if watchdog_usec:
            env["NOTIFY_SOCKET"] = str(self.work / "notify")
            env["WATCHDOG_USEC"] = str(watchdog_usec)
        hub = [sys.executable, str(SCRIPT), "--hub", str(write), "run"]
        self.group.reset_memory()  # its peak from here: the table's hub alone
        try:
            self._launch(stack, hub, "table", env, self.group.procs_files(), (write,))
        finally:
            os.close(write)

    def _launch(
        self,
        stack: contextlib.ExitStack,
        hub: list[str],
        name: str,
        env: dict[str, str],
        join: list[str],
        pass_fds: tuple[int, ...] = (),
    ) -> None:
        """Start ``hub`` (a command that runs ``mtrain-hub``) with the evening's options,
        in the groups whose ``cgroup.procs`` files ``join`` names, and wait for its
        first answer."""
        assert self.box is not None
        self.port = os_port()
        command = [
            *("/bin/sh", "-c", JOIN, "sh", str(len(join)), *join),
            *hub,
            *("--config", str(self.work / "hub.toml"), "--backend", "serial"),
            *("--serial-port", self.box.path, "--mqtt", self.broker, "--hub-id", self.label),
            *("--host", "127.0.0.1", "--port", str(self.port)),
            *("--state-dir", str(self.work / f"{name}-state")),
        ]
        with open(self.work / f"{name}.log", "wb") as log:
            self.proc = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=pass_fds,
            )
        self.log_name = name
        stack.callback(self.stop)
        while not self._answers():
            time.sleep(0.005)

    def _answers(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            code = self.proc.returncode
            raise RuntimeError(f"{self.label}: the hub exited ({code}):\n{self.log()}")
        try:
            request(self.port, "GET", "/api/state")
        except OSError:
            return False
        return True

    def log(self) -> str:
        """The end of the hub's output."""
        return (self.work / f"{self.log_name}.log").read_text(errors="replace")[-3000:]

    def set_table(self) -> None:
        """A game of 8, the phones listening, the box and the broker connected, and the
        voice done rendering the game's sentences ahead."""
        assert self.stamps is not None and self.pings is not None
        request(
            self.port, "POST", "/api/games", {"players": PLAYERS, "rules": "consensus", "first": 1}
        )
        self.phones = [table.Phone(self.port) for _ in range(PHONES)]
        for phone in self.phones:
            self.listener.add(phone.sock, phone.take)
        self.listener.add(self.stamps.fd, self.stamps.take)
        self.listener.add(self.pings.sock, self.pings.take)
        self.listener.start()

        def ready(state: dict[str, Any]) -> bool:
            serial, mqtt = state.get("serial") or {}, state.get("mqtt") or {}
            # the voice has rendered the game's sentences (its start's work, not idle)
            voice = state.get("voice") or {}
            return bool(
                state["game"]
                and serial.get("connected")
                and mqtt.get("connected")
                and voice.get("pending") == 0
            )

        for phone in self.phones:
            phone.wait(ready, 60.0)

    def peak_resident_mb(self) -> float:
        """The hub process's peak resident set so far (VmHWM)."""
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmHWM")

    def stop(self) -> None:
        """Stop the hub (SIGTERM, then SIGKILL)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

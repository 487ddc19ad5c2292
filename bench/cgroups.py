"""cgroup v1 groups for ``bench/pi_budget.py``: made, limited, read and removed (as root).

Each group is made inside this process's own group in each hierarchy (from
``/proc/self/cgroup``), so the hubs stay in whatever tree the bench runs in.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup")
CONTROLLERS = ("cpu", "cpuacct", "memory")
PREFIX = "mtrain-pi-budget-"


def problem() -> str | None:
    """Why cgroup v1 cannot be used here, or None."""
    if os.geteuid() != 0:
        return "not root: cgroups are writable by root only"
    for controller, knob in (
        ("cpu", "cpu.cfs_quota_us"),
        ("cpuacct", "cpuacct.usage"),
        ("memory", "memory.limit_in_bytes"),
    ):
        if not (own_group(controller) / knob).exists():
            return f"no cgroup v1 {controller} controller at {CGROUPS / controller}"
    return None


def own_group(controller: str) -> Path:
    """This process's group in ``controller``'s hierarchy."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return CGROUPS / controller / path.lstrip("/")
    return CGROUPS / controller


class Cgroup:
    """One group of ours in each of cpu, cpuacct and memory. ``quota_us`` per
    ``period_us`` and ``memory_mb`` limit it (None: no limit); ``shares`` is its
    CPU weight."""

    def __init__(
        self,
        label: str,
        shares: int,
        period_us: int,
        quota_us: int | None = None,
        memory_mb: int | None = None,
    ) -> None:
        self.name = f"{PREFIX}{os.getpid()}-{label}"
        self.dirs: dict[str, Path] = {}
        try:
            for controller in CONTROLLERS:
                path = own_group(controller) / self.name
                path.mkdir()
                self.dirs[controller] = path
            self._write("cpu", "cpu.shares", shares)
            if quota_us is not None:
                self._write("cpu", "cpu.cfs_period_us", period_us)
                self._write("cpu", "cpu.cfs_quota_us", quota_us)
            if memory_mb is not None:
                self._write("memory", "memory.limit_in_bytes", memory_mb << 20)
                if (self.dirs["memory"] / "memory.memsw.limit_in_bytes").exists():
                    self._write("memory", "memory.memsw.limit_in_bytes", memory_mb << 20)
        except BaseException:
            self.remove()
            raise

    def _write(self, controller: str, knob: str, value: int) -> None:
        (self.dirs[controller] / knob).write_text(f"{value}\n")

    def _read(self, controller: str, knob: str) -> str:
        return (self.dirs[controller] / knob).read_text()

    def procs_files(self) -> list[str]:
        """The files a process writes its pid to, to join the group."""
        return [str(path / "cgroup.procs") for path in self.dirs.values()]

    def cpu_ns(self) -> int:
        """CPU time of everything in the group so far."""
        return int(self._read("cpuacct", "cpuacct.usage"))

    def throttling(self) -> dict[str, int]:
        """``cpu.stat``: ``nr_periods``, ``nr_throttled``, ``throttled_time`` and more."""
        pairs = (line.split() for line in self._read("cpu", "cpu.stat").splitlines())
        return {key: int(value) for key, value in pairs}

    def memory_peak_mb(self) -> float:
        """The most the group was charged (resident and page cache)."""
        return int(self._read("memory", "memory.max_usage_in_bytes")) / (1 << 20)

    def reset_memory(self) -> None:
        """With no process left in the group: give back its page cache, and start its
        peak over (``memory.force_empty``, then ``memory.max_usage_in_bytes``)."""
        self._write("memory", "memory.force_empty", 0)
        self._write("memory", "memory.max_usage_in_bytes", 0)

    def oom_kills(self) -> int:
        """Processes the kernel killed in this group for memory."""
        for line in self._read("memory", "memory.oom_control").splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def remove(self) -> None:
        """Move anything left to the parent group, then remove the group everywhere."""
        for path in self.dirs.values():
            _remove(path)


def _remove(path: Path, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while path.exists():
        try:
            path.rmdir()
        except OSError:
            if time.monotonic() > deadline:
                raise
            for pid in (path / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):  # it may have ended meanwhile
                    (path.parent / "cgroup.procs").write_text(pid)
            time.sleep(0.05)


def remove_stale() -> list[str]:
    """Groups an earlier run left (it was killed outright): removed when empty."""
    removed = []
    for controller in CONTROLLERS:
        for path in own_group(controller).glob(PREFIX + "*"):
            pid = path.name.removeprefix(PREFIX).split("-")[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    path.rmdir()
                    removed.append(str(path))
    return removed

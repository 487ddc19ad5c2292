"""Every bench script imports (a helper it named moved or went away: found here, not
when someone runs the bench), and none runs anything at import."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(path.stem for path in BENCH.glob("*.py") if path.stem != "__init__")


def test_the_benches_are_found() -> None:
    assert {"pi_budget", "sound_latency", "mqtt_board", "footprint"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_bench_imports_without_running(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert module.__name__ == f"bench.{name}"
    assert capsys.readouterr().out == ""  # a bench prints only when run

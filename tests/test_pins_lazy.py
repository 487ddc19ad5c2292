"""gpiozero loaded without its package ``__init__`` (hub/io/pins.py, ``lazy_package``):
the hub's submodules load alone, and any name asked of the package still works."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hub.io.pins import lazy_package

ROOT = Path(__file__).resolve().parent.parent

# A fresh interpreter: the pins adapter first, then gpiozero asked the way other code does.
_PROBE = """
import json, sys
import hub.io.pins
before = sorted(m for m in sys.modules if m.startswith("gpiozero"))
import gpiozero
from gpiozero import LED
from gpiozero.input_devices import Button
try:
    gpiozero.NoSuchDevice
    missing = "found"
except AttributeError:
    missing = "AttributeError"
print(json.dumps({"before": before, "button_same": gpiozero.Button is Button,
                  "led": LED.__module__, "boards_after": "gpiozero.boards" in sys.modules,
                  "missing": missing}))
"""

# The package's __init__ would have imported these (and subprocess with them).
FULL_ONLY = {"gpiozero.boards", "gpiozero.spi_devices", "gpiozero.internal_devices"}


def test_the_pins_adapter_loads_gpiozero_without_its_init():
    out = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert "gpiozero.input_devices" in seen["before"]
    assert "gpiozero.pins.mock" in seen["before"]
    assert FULL_ONLY & set(seen["before"]) == set()
    assert seen["button_same"] is True  # the package's names are the submodules' classes
    assert seen["led"] == "gpiozero.output_devices"
    assert seen["boards_after"] is True  # the first name it lacked ran the real __init__
    assert seen["missing"] == "AttributeError"


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package whose ``__init__`` counts its runs in ``RUNS`` and imports ``part``."""
    root = tmp_path / "lazypkg_probe"
    root.mkdir()
    (root / "__init__.py").write_text(
        "import builtins\nbuiltins.LAZYPKG_RUNS = getattr(builtins, 'LAZYPKG_RUNS', 0) + 1\n"
        "from .part import Thing\nRUNS = builtins.LAZYPKG_RUNS\n"
    )
    (root / "part.py").write_text("class Thing:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "lazypkg_probe"
    for name in [m for m in sys.modules if m.startswith("lazypkg_probe")]:
        del sys.modules[name]
    import builtins

    if hasattr(builtins, "LAZYPKG_RUNS"):
        del builtins.LAZYPKG_RUNS


def test_a_submodule_imports_without_the_init_and_a_missing_name_runs_it_once(package):
    import builtins
    import importlib

    lazy_package(package)
    part = importlib.import_module(package + ".part")
    assert not hasattr(builtins, "LAZYPKG_RUNS")  # the __init__ has not run
    module = sys.modules[package]
    assert module.Thing is part.Thing  # asking for a name ran it
    assert module.RUNS == 1
    with pytest.raises(AttributeError, match="no attribute 'absent'"):
        getattr(module, "absent")  # noqa: B009
    assert builtins.LAZYPKG_RUNS == 1  # and only once


def test_a_package_imported_already_is_left_as_it_is(package):
    import importlib

    module = importlib.import_module(package)
    lazy_package(package)
    assert sys.modules[package] is module
    assert module.RUNS == 1
    assert "__getattr__" not in vars(module)


def test_a_package_not_installed_is_left_to_the_import():
    lazy_package("no_such_package_here")
    assert "no_such_package_here" not in sys.modules

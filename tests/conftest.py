"""Shared fixtures: a fresh gpiozero MockFactory per test, hubs on fake clocks, mosquitto."""

from __future__ import annotations

import os
import shutil

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from hypothesis import HealthCheck, settings

from hub.app import Hub
from hub.runtime.clock import SystemClock
from hub.runtime.config import load
from tablesim.virtual import FakeClock, RecordingPlayer
from web import create_app

# No time limit on a hypothesis example (nor a health check on slow generation): the
# suite runs in parallel on a shared machine, and timing belongs in bench/, not here.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first (those marked ``slow``, then the browser's), the rest in
    their order: ``make test`` hands tests out in this order (``--dist load``), so the
    long ones start at once, spread over the processes, and short ones fill the end."""

    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("slow"):
            return 0
        return 1 if item.get_closest_marker("browser") else 2

    items.sort(key=rank)


def need(tool: str) -> str:
    """The path of a system tool; skip without it, but fail under CI."""
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is not installed (make test installs it as root)")
        pytest.skip(f"{tool} is not installed")
    return path


@pytest.fixture
def mock_factory():
    """A fresh MockFactory, installed as gpiozero's default for the test, then reset."""
    save = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    yield factory
    factory.reset()
    Device.pin_factory = save


@pytest.fixture
def make_hub(tmp_path, mock_factory):
    """Build hubs on the sim backend with a fake clock and a recording sound player."""
    hubs = []

    def build(threaded=False, backend="sim", clock=None, **config):
        overrides = {"hub": {"backend": backend, "state_dir": str(tmp_path / "state")}}
        # Silent unless a test asks for the voice: the chimes' tests count chimes, and
        # the voice's own tests (tests/test_voice*.py) turn it on.
        overrides["sound"] = {"voice": "off"}
        for section, values in config.items():
            overrides.setdefault(section, {}).update(values)
        hub = Hub(
            load(None, overrides),
            clock=clock or FakeClock(),
            pin_factory=mock_factory,
            sound=RecordingPlayer(),
        )
        hub.start(threaded=threaded)
        hubs.append(hub)
        return hub

    yield build
    for hub in hubs:
        hub.stop()


@pytest.fixture
def live_hub(make_hub):
    """A sim hub on the real clock with its loop thread running (for the web tests)."""
    return make_hub(threaded=True, clock=SystemClock())


@pytest.fixture
def client(live_hub):
    """A Flask test client of the web app serving ``live_hub``."""
    return create_app(live_hub.web_service(), {"TESTING": True}).test_client()


@pytest.fixture
def table_proof(client, live_hub):
    """``client`` holds a table token (as a press on a claimed slot would give it)."""
    client.set_cookie("mtrain_table", live_hub.trust.table_token())
    return client


@pytest.fixture
def mosquitto(tmp_path):
    """A real mosquitto on a loopback port from the OS (skipped without it; fails under CI)."""
    from tests.mqtt_helpers import Mosquitto, mosquitto_path

    if mosquitto_path() is None:
        need("mosquitto")
    broker = Mosquitto(tmp_path / "mosquitto")
    yield broker
    broker.stop()


@pytest.fixture(scope="session")
def made_stl(tmp_path_factory):
    """``make stl DOMINO_SET=12``, the build guide's command, run once per test run (for
    every test process) in a copy of the checkout: a :class:`tests.guide.GuideRun`."""
    from tests.guide import STL_COMMAND, GuideRun, run_in_a_copy
    from tests.helpers import made_once

    need("openscad")

    def make(folder):
        run_in_a_copy(STL_COMMAND, folder).save(folder / "run.json")

    folder = made_once(tmp_path_factory, "stl", make)
    return GuideRun.load(folder / "checkout", folder / "run.json")

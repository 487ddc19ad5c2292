"""The serial link's edges: finding the box by USB id, the ring only (inputs from GPIO
or sim), fake-mcu's command line, and the [serial]/[leds] config."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from firmware_bridge import link
from firmware_bridge.fake_mcu import FakeMcu
from firmware_bridge.fake_mcu_cli import execute, leds_line
from hub.runtime.clock import SystemClock
from hub.runtime.config import ConfigError, load
from tests.helpers import eventually


def test_find_port_by_usb_id_prefers_the_by_id_path(monkeypatch, tmp_path):
    ports = [
        SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403, pid=0x6001),
        SimpleNamespace(device=str(tmp_path / "ttyACM3"), vid=0x2E8A, pid=0x0005),
    ]
    monkeypatch.setattr(link.list_ports, "comports", lambda: ports)
    (tmp_path / "ttyACM3").touch()
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "usb-MicroPython_Board_in_FS_mode_e661-if00").symlink_to(tmp_path / "ttyACM3")
    monkeypatch.setattr(link, "BY_ID", str(by_id))
    assert link.find_port() == str(by_id / "usb-MicroPython_Board_in_FS_mode_e661-if00")
    monkeypatch.setattr(link, "BY_ID", str(tmp_path / "none"))
    assert link.find_port() == str(tmp_path / "ttyACM3")
    monkeypatch.setattr(link.list_ports, "comports", lambda: ports[:1])
    assert link.find_port() is None


def test_with_sim_inputs_only_the_ring_goes_to_the_box(make_hub):
    mcu = FakeMcu()
    try:
        hub = make_hub(threaded=True, clock=SystemClock(), serial={"port": mcu.path})
        eventually(lambda: hub.link.connected and mcu.frames, 10)
        assert hub.loop.snapshot["serial"]["connected"] and hub.loop.snapshot["backend"] == "sim"
        taken = hub.link.session.edge_next
        mcu.press(1, 50)  # two edges
        mcu.marker(2, True)  # and one
        # The link has read all three (it takes them in order) and posted none of them.
        eventually(lambda: hub.link.session.edge_next == (taken + 3) & 0xFF, 10)
        hub.loop.drain()
        assert [e for e in hub.eventlog.recent(50) if e["kind"] in ("tap", "marker")] == []
        eventually(lambda: mcu.frames[-1] == hub.leds.pixels, 10)  # the ring's last frame
    finally:
        mcu.close()


def test_fake_mcu_commands_are_checked():
    calls = []
    board = SimpleNamespace(
        press=lambda *a: calls.append(("press", *a)),
        marker=lambda *a: calls.append(("marker", *a)),
        stall=lambda *a: calls.append(("stall", *a)),
        reset=lambda: calls.append(("reset",)),
        garbage=lambda *a: calls.append(("garbage", *a)),
        crash=lambda: calls.append(("crash",)),
        update_mode=lambda: calls.append(("update",)),
    )
    execute(board, "press 3 120")  # type: ignore[arg-type]
    execute(board, "centre 2500")  # type: ignore[arg-type]
    execute(board, "marker 8 1")  # type: ignore[arg-type]
    execute(board, "stall 1.5")  # type: ignore[arg-type]
    execute(board, "reset")  # type: ignore[arg-type]
    execute(board, "crash")  # type: ignore[arg-type]
    execute(board, "update")  # type: ignore[arg-type]
    execute(board, "   ")  # type: ignore[arg-type]
    assert calls == [
        ("press", 3, 120.0),
        ("press", 0, 2500.0),
        ("marker", 8, True),
        ("stall", 1.5),
        ("reset",),
        ("crash",),
        ("update",),
    ]
    for line, error in [
        ("press 9 100", "SLOT"),
        ("press 1", "expected 2"),
        ("marker 1 2", "0 or 1"),
        ("jump", "unknown command"),
        ("garbage lots", "N: expected a number"),
        ("crash now", "expected 0"),
    ]:
        with pytest.raises(ValueError, match=error):
            execute(board, line)  # type: ignore[arg-type]
    assert leds_line([(255, 0, 16, 1), (0, 0, 0, 0)]) == "leds ff0010 000000"


@pytest.mark.parametrize(
    "overrides, error",
    [
        ({"serial": {"port": "ttyACM0"}}, "serial.port: expected a device path"),
        ({"serial": {"baud": 1234}}, "serial.baud: 1234 is not one of"),
        ({"leds": {"pixels": 100}}, "leds.pixels: 100 is out of range"),
        ({"leds": {"brightness": 1.5}}, "leds.brightness"),
    ],
)
def test_serial_and_led_config_errors_name_the_key(overrides, error):
    with pytest.raises(ConfigError, match=error):
        load(None, overrides)

"""``mtrain-hub selftest`` through the fake microcontroller (the real firmware on a pty):
the hub box's link checked by ``--check``, and the walk-through with a scripted person."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from firmware_bridge.fake_mcu import FakeMcu
from hub.cli.main import main
from hub.cli.selftest import walk_through
from hub.io.sound import SOUND_NAMES
from hub.runtime.config import load
from hub.selftest.parts import open_parts
from hub.selftest.serial_link import check_link
from hub.selftest.steps import Step
from tablesim.virtual import RecordingPlayer
from tests.helpers import eventually


@pytest.fixture
def mcu():
    board = FakeMcu()
    yield board
    board.close()


def serial_config(tmp_path, port: str, **leds):
    return load(
        None,
        {
            "hub": {"backend": "serial", "state_dir": str(tmp_path / "state")},
            "serial": {"port": port},
            "leds": leds,
        },
    )


def test_check_passes_with_the_hub_box_answering(tmp_path, mcu, capsys):
    config = tmp_path / "hub.toml"
    config.write_text(f'[hub]\nbackend = "serial"\n[serial]\nport = "{mcu.path}"\n')
    assert (
        main(
            [
                "selftest",
                "--check",
                "--config",
                str(config),
                "--sound-device",
                "null",
                "--state-dir",
                str(tmp_path / "state"),
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    serial = next(line for line in lines if line[6:].startswith("serial link"))
    assert serial.startswith(f"PASS  serial link   {mcu.path}: ")
    assert "protocol 2 (the hub's: 2), 24 pixels" in serial
    assert [line.split()[0] for line in lines if line[6:].startswith("pins")] == ["SKIP", "SKIP"]


def test_check_fails_naming_a_port_that_does_not_answer(tmp_path):
    silent = tmp_path / "ttyACM9"
    check = check_link(serial_config(tmp_path, str(silent)), "serial", wait=0.3)
    assert check.status == "FAIL"
    assert check.detail.startswith(f"{silent}: no answer to hello within 0.3 s")


def test_check_fails_when_the_box_drives_another_ring(tmp_path):
    board = FakeMcu(pixels=16)
    try:
        check = check_link(serial_config(tmp_path, board.path), "serial")
    finally:
        board.close()
    assert (check.status, check.detail) == (
        "FAIL",
        f"{board.path}: the hub box drives 16 pixels, leds.pixels says 24",
    )


def test_a_scripted_person_walks_through_the_hub_box(tmp_path, mcu, capsys):
    config = serial_config(tmp_path, mcu.path)
    sound = RecordingPlayer()

    def say(step: Step, number: int, total: int) -> None:
        if step.kind == "button":
            mcu.press(step.slot, 40)
        elif step.kind.startswith("marker"):
            mcu.marker(step.slot, step.kind == "marker-on")

    seen: list[list[int]] = []

    def ask(step: Step) -> bool:
        if step.kind == "light":
            seen.append(wait_for_lit(mcu))
        return True

    @contextmanager
    def opened(config):
        with open_parts(config, sound=sound) as parts:
            yield parts

    assert walk_through(config, 5.0, opened, say, ask) == 0
    out = capsys.readouterr().out
    assert seen == [[3 * n, 3 * n + 1, 3 * n + 2] for n in range(8)]
    assert sound.played == list(SOUND_NAMES)
    row = next(line for line in out.splitlines() if line.startswith("slot 6 marker on "))
    assert row.split()[4:10] == ["Pico", "GP15", "(pin", "20)", "PASS", "seen"]
    assert "pixels 4-6, Pico GP22 (pin 29)" in out
    assert out.splitlines()[-1].endswith("passed, 0 failed")


def wait_for_lit(mcu, timeout: float = 5.0) -> list[int]:
    """The lit pixels of the first frame the box shows with any pixel on."""

    def lit() -> list[int]:
        for frame in reversed(mcu.frames):
            pixels = [i for i, pixel in enumerate(frame) if any(pixel[:3])]
            if pixels:
                mcu.frames.clear()
                return pixels
        return []

    return eventually(lit, timeout) or []


def test_check_through_the_fake_mcu_subcommand(tmp_path):
    """``mtrain-hub fake-mcu`` in one process, ``selftest --check`` in another, as a
    maker without a Pico would try it."""
    import subprocess
    import sys
    from pathlib import Path

    bin_dir = Path(sys.executable).parent
    box = subprocess.Popen(
        [bin_dir / "mtrain-hub", "fake-mcu", "--link", str(tmp_path / "hub-box")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert box.stdout is not None
        path = box.stdout.readline().strip()
        assert path == str(tmp_path / "hub-box")
        done = subprocess.run(
            [
                bin_dir / "mtrain-hub",
                "selftest",
                "--check",
                "--backend",
                "serial",
                "--sound-device",
                "null",
                "--state-dir",
                str(tmp_path / "state"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": str(bin_dir)},
            input="",
        )
        assert "SKIP  serial link" not in done.stdout
        # No [serial] port: the link looks for a Pico by USB id and finds none here.
        assert "FAIL  serial link   USB (no Pico found by its USB id)" in done.stdout
        config = tmp_path / "hub.toml"
        config.write_text(f'[serial]\nport = "{path}"\n')
        done = subprocess.run(
            [
                bin_dir / "mtrain-hub",
                "selftest",
                "--check",
                "--backend",
                "serial",
                "--config",
                str(config),
                "--sound-device",
                "null",
                "--state-dir",
                str(tmp_path / "state"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"PASS  serial link   {path}: " in done.stdout
    finally:
        assert box.stdin is not None and box.stdout is not None
        box.stdin.close()
        box.wait(10)
        box.stdout.close()


def test_inputs_active_on_the_hub_box_fail_at_once_by_name(tmp_path, mcu, capsys):
    """The up-front level check reads the box's own snapshot: a button held since the
    link came up and a marker left on are named before the first step (issue 22)."""
    mcu.button(3, True)
    mcu._scanned(3)
    mcu.marker(5, True)
    config = serial_config(tmp_path, mcu.path)
    asked: list[str] = []

    def say(step: Step, number: int, total: int) -> None:
        asked.append(step.part)
        if step.kind == "button":
            mcu.press(step.slot, 40)
        elif step.kind.startswith("marker"):
            mcu.marker(step.slot, step.kind == "marker-on")

    @contextmanager
    def opened(config):
        with open_parts(config, sound=RecordingPlayer()) as parts:
            yield parts

    assert walk_through(config, 60.0, opened, say, lambda step: True) == 1
    out = capsys.readouterr().out
    assert "  slot 3 button (Pico GP4 (pin 6)): reads pressed (stuck" in out
    assert "  slot 5 marker (Pico GP14 (pin 19)): reads a marker (one left on" in out
    assert "slot 3 button" not in asked and "slot 5 marker on" not in asked
    steps = 8 + 1 + 16 + 8 + len(SOUND_NAMES) + 1  # buttons, centre, markers, lights, sounds, voice
    assert out.splitlines()[-1] == f"{steps - 3} passed, 3 failed"


def test_the_page_self_test_on_the_hub_box_names_a_stuck_input(tmp_path, mcu, make_hub):
    from hub.runtime.clock import SystemClock
    from web import create_app

    mcu.button(0, True)  # the centre button, stuck
    mcu._scanned(0)
    hub = make_hub(threaded=True, clock=SystemClock(), backend="serial", serial={"port": mcu.path})
    assert eventually(lambda: hub.link.connected, 10)
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    assert client.post("/api/selftest", json={"action": "start"}).status_code == 403
    client.set_cookie("mtrain_table", hub.trust.table_token())
    now = client.post("/api/selftest", json={"action": "start"}).get_json()
    assert now["lights"] is True  # the box drives a ring: the lights are asked about
    assert [(s["kind"], s["slot"], s["pin"]) for s in now["stuck"]] == [
        ("button", 0, "Pico GP18 (pin 24)")
    ]

"""``mtrain-hub selftest --check``: every check passes on a good setup, and a failing
check names the part (and the exit status says so)."""

from __future__ import annotations

import argparse
import socket
import threading

import pytest
from gpiozero import DigitalInputDevice

from hub.cli.main import main
from hub.cli.selftest import add_arguments, run_checks
from hub.selftest.check import _mqtt_connect_packet, check_broker
from tests.ports import closed_port


def args(*words: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(["--check", *words])


def statuses(checks) -> dict[str, tuple[str, str]]:
    return {c.part: (c.status, c.detail) for c in checks}


def sim(tmp_path, *more: str) -> list[str]:
    return [
        "selftest",
        "--check",
        "--backend",
        "sim",
        "--sound-device",
        "null",
        "--state-dir",
        str(tmp_path / "state"),
        *more,
    ]


def line_of(out: str, part: str) -> str:
    """The report's line of ``part``."""
    return next(x for x in out.splitlines() if x[6:].startswith(part + " "))


def write_config(tmp_path, text: str) -> str:
    path = tmp_path / "hub.toml"
    path.write_text(text)
    return str(path)


def test_everything_passes_on_the_sim_backend(tmp_path, capsys):
    assert main(sim(tmp_path)) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in out[:-1]] == [
        ["PASS", "config"],
        ["PASS", "pins"],
        ["PASS", "pins"],
        ["PASS", "sound"],
        ["PASS", "voice"],
        ["SKIP", "serial"],
        ["SKIP", "broker"],
        ["PASS", "state"],
    ]
    assert out[-1] == "all checks passed"
    assert (tmp_path / "state").is_dir() and list((tmp_path / "state").iterdir()) == []


def test_a_bad_config_fails_naming_the_key(tmp_path, capsys):
    path = write_config(tmp_path, "[pins]\nbuttons = [4, 17, 27, 22, 5, 6, 13, 19]\n")
    assert main(sim(tmp_path, "--config", path)) == 2
    out = capsys.readouterr().out
    assert out.startswith(
        "FAIL  config  pins.buttons[7] (slot 8 button): BCM 19 clashes with I2S audio"
    )
    assert out.splitlines()[-1] == "1 check(s) failed"


def test_a_pin_held_by_someone_else_fails_naming_it(tmp_path, mock_factory):
    held = DigitalInputDevice(27, pin_factory=mock_factory)  # as a running hub would
    try:
        checks = statuses(
            run_checks(
                args("--backend", "sim", "--sound-device", "null", "--state-dir", str(tmp_path)),
                factory=mock_factory,
            )
        )
    finally:
        held.close()
    status, detail = checks["pins free"]
    assert status == "FAIL"
    assert detail.startswith("BCM 27 (slot 3 button) cannot be claimed: GPIOPinInUse")
    assert "systemctl stop mtrain-hub" in detail


def test_a_missing_sound_device_fails_naming_it(tmp_path, capsys):
    assert (
        main(sim(tmp_path)[:-4] + ["--sound-device", "nosuchcard", "--state-dir", str(tmp_path)])
        == 1
    )
    line = line_of(capsys.readouterr().out, "sound device")
    assert line.startswith("FAIL  sound device  ALSA device 'nosuchcard': cannot open it")


def test_sound_disabled_is_skipped(tmp_path):
    path = write_config(tmp_path, "[sound]\nenabled = false\n")
    checks = statuses(
        run_checks(args("--backend", "sim", "--config", path, "--state-dir", str(tmp_path)))
    )
    assert checks["sound device"] == ("SKIP", "sound is disabled in the config")


def test_the_voice_is_checked_in_the_configured_language(tmp_path, capsys):
    from tests.conftest import need

    need("espeak-ng")
    path = write_config(tmp_path, '[sound]\nvoice_language = "es"\n')
    assert main(sim(tmp_path, "--config", path)) == 0
    line = line_of(capsys.readouterr().out, "voice")
    status, part, detail = line.split(None, 2)
    assert (status, part) == ("PASS", "voice")
    assert detail.startswith("es-419: 'Prueba' is ") and detail.endswith(" s of speech")
    path = write_config(tmp_path, '[sound]\nvoice = "off"\n')
    checks = statuses(
        run_checks(args("--backend", "sim", "--config", path, "--state-dir", str(tmp_path)))
    )
    assert checks["voice"][0] == "SKIP"


def test_a_missing_engine_fails_the_voice_check(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    assert main(sim(tmp_path)) == 1
    line = line_of(capsys.readouterr().out, "voice")
    assert line.split(None, 2) == [
        "FAIL",
        "voice",
        "espeak-ng is not installed (apt install espeak-ng)",
    ]


def test_a_state_folder_that_cannot_be_written_fails_naming_it(tmp_path, capsys):
    (tmp_path / "file").write_text("not a folder")
    assert main(sim(tmp_path)[:-1] + [str(tmp_path / "file" / "state")]) == 1
    line = line_of(capsys.readouterr().out, "state folder")
    assert line.startswith(f"FAIL  state folder  {tmp_path / 'file' / 'state'}: ")


def test_a_configured_broker_that_is_down_fails_naming_it(tmp_path, capsys):
    with closed_port() as holder:  # no broker can listen there meanwhile
        port = holder.getsockname()[1]
        path = write_config(tmp_path, f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\n')
        assert main(sim(tmp_path, "--config", path)) == 1
    line = line_of(capsys.readouterr().out, "broker")
    assert line.startswith(f"FAIL  broker        127.0.0.1:{port}: ")
    assert "refused" in line.lower()


def test_a_running_broker_passes(tmp_path, mosquitto, capsys):
    path = write_config(tmp_path, f'[mqtt]\nurl = "{mosquitto.url}"\n')
    assert main(sim(tmp_path, "--config", path)) == 0
    line = line_of(capsys.readouterr().out, "broker")
    assert line == f"PASS  broker        127.0.0.1:{mosquitto.port}: accepts an MQTT connection"


def test_a_broker_that_refuses_the_login_fails_saying_why():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]

        def refuse() -> None:
            conn, _ = server.accept()
            with conn:
                conn.recv(1024)
                conn.sendall(b"\x20\x02\x00\x05")  # CONNACK: not authorised
                conn.recv(16)

        thread = threading.Thread(target=refuse)
        thread.start()
        config = {
            "hub": {"hub_id": "mtrain"},
            "mqtt": {
                "url": "",
                "host": "127.0.0.1",
                "port": port,
                "tls": False,
                "password_file": "",
                "ca_file": "",
                "username": "",
                "base_topic": "mtrain",
                "keepalive": 60,
                "commands": False,
                "discovery": True,
                "discovery_prefix": "homeassistant",
                "scorepad_url": "",
                "outbox": 256,
            },
        }
        check = check_broker(config)
        thread.join()
    assert (check.status, check.detail) == (
        "FAIL",
        f"127.0.0.1:{port}: refused the connection: not authorised",
    )


@pytest.mark.parametrize("username, password", [("", ""), ("hub", "s3cret")])
def test_the_connect_packet_is_well_formed(username, password):
    packet = _mqtt_connect_packet("mtrain-selftest", username, password)
    assert packet[0] == 0x10 and packet[1] == len(packet) - 2
    assert packet[2:8] == b"\x00\x04MQTT" and packet[8] == 4
    assert packet[9] == (0xC2 if username else 0x02)
    assert packet.endswith(password.encode() if password else b"mtrain-selftest")

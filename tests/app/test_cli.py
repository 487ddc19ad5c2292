"""The ``mtrain-hub`` command line: subcommands other tests do not cover."""

from __future__ import annotations

import pytest

from hub.cli.main import main
from tests.conftest import need


def test_sounds_list(capsys):
    assert main(["sounds", "--list"]) == 0
    names = capsys.readouterr().out.split()
    assert {"choo", "chicken", "turn", "nope", "reminder", "out"} <= set(names)


def test_sounds_play_on_the_null_device(capsys):
    need("aplay")
    assert main(["sounds", "--play", "chicken", "--device", "null"]) == 0
    assert "played chicken on null" in capsys.readouterr().out


def test_sounds_play_unknown_sound(capsys):
    assert main(["sounds", "--play", "moo", "--device", "null"]) == 1
    assert "no sound 'moo'" in capsys.readouterr().err


def test_sounds_say_speaks_on_the_null_device_in_both_languages(capsys):
    need("aplay")
    need("espeak-ng")
    assert main(["sounds", "--say", "Bea's turn", "--device", "null"]) == 0
    out = capsys.readouterr().out
    assert 'said "Bea\'s turn" (en, ' in out and " s) on null" in out
    assert main(["sounds", "--say", "Te toca, Bea", "--lang", "es", "--device", "null"]) == 0
    assert "said 'Te toca, Bea' (es, " in capsys.readouterr().out


def test_sounds_say_refuses_what_it_cannot_say(capsys):
    assert main(["sounds", "--say", "   ", "--device", "null"]) == 1
    assert "nothing to say" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["sounds", "--say", "Hola", "--lang", "fr"])
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_run_serial_refuses_a_port_that_is_no_path(tmp_path, capsys):
    assert (
        main(["run", "--backend", "serial", "--serial-port", "COM3", "--state-dir", str(tmp_path)])
        == 2
    )
    assert "serial.port: expected a device path" in capsys.readouterr().err


def test_run_gpio_off_a_pi_says_to_use_sim(tmp_path, capsys, monkeypatch):
    import hub.io.pins

    monkeypatch.chdir(tmp_path)  # lgpio, where installed, makes its notify pipe here

    if hub.io.pins.is_raspberry_pi():
        pytest.skip("on a Raspberry Pi the gpio backend works")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["run", "--backend", "gpio", "--state-dir", str(tmp_path)]) == 2
    assert "use --backend sim" in capsys.readouterr().err

"""The ``mtrain-hub`` command line: subcommands other tests do not cover."""

from __future__ import annotations

from hub.cli import main
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

"""Config: every key optional, unknown keys and bad values named, flags over the file."""

from __future__ import annotations

import re

import pytest

from hub.cli.main import main
from hub.runtime.config import DEFAULTS, ConfigError, load, timings


def write(tmp_path, text):
    path = tmp_path / "hub.toml"
    path.write_text(text)
    return path


def test_no_file_gives_the_defaults():
    config = load(None)
    assert config["web"]["port"] == 8080 and config["hub"]["backend"] == "auto"
    assert timings(config).flicker == 0.08
    assert config["hub"]["default_rules"] == "aces"  # the standard rules, recommended


def test_file_overrides_defaults_and_flags_override_file(tmp_path):
    path = write(tmp_path, '[web]\nport = 9000\nhost = "127.0.0.1"\n[gestures]\nflicker_ms = 50\n')
    config = load(path, {"web": {"port": 9100}})
    assert config["web"] == {**DEFAULTS["web"], "port": 9100, "host": "127.0.0.1"}
    assert timings(config).flicker == 0.05


@pytest.mark.parametrize(
    "text, named",
    [
        ("[web]\nprot = 1\n", "web.prot: unknown key"),
        ("[wbe]\nport = 1\n", "[wbe]: unknown section"),
        ("[web]\nport = 'x'\n", "web.port: expected int"),
        ("[web]\nport = 70000\n", "web.port: 70000 is out of range"),
        ("[hub]\nbackend = 'usb'\n", "hub.backend: 'usb' is not one of"),
        ("[hub]\ndefault_rules = 'poker'\n", "hub.default_rules"),
        ("[gestures]\nlong_hold_ms = 500\n", "gestures.long_hold_ms"),
        ("[pins]\nbuttons = [1, 2]\n", "pins.buttons: expected 8"),
        (
            "[pins]\nmarkers = [4, 17, 27, 22, 5, 6, 13, 26]\n",
            "pins.markers[0] (slot 1 marker sensor): BCM 4 is already pins.buttons[0]",
        ),
        (
            "[pins]\nbuttons = [18, 17, 27, 22, 5, 6, 13, 26]\n",
            "pins.buttons[0] (slot 1 button): BCM 18 clashes with I2S audio",
        ),
        (
            "[pins]\nmarkers = [23, 24, 25, 12, 16, 7, 8, 19]\n",
            "pins.markers[7] (slot 8 marker sensor): BCM 19 clashes with I2S audio",
        ),
        ("[pins]\nbuttons = [4, 17, 27, 22, 5, 6, 13, 21]\n", "BCM 21 clashes with I2S audio"),
        (
            "[pins]\nbuttons = [4, 17, 27, 22, 5, 6, 14, 26]\n",
            "pins.buttons[6] (slot 7 button): BCM 14 clashes with the serial console",
        ),
        ("[pins]\nmarkers = [23, 24, 25, 12, 16, 7, 15, 11]\n", "BCM 15 clashes with the serial"),
        ("[pins]\nbuttons = [0, 17, 27, 22, 5, 6, 13, 26]\n", "BCM 0 clashes with the Pi's HAT ID"),
        ("[pins]\nbuttons = [4, 1, 27, 22, 5, 6, 13, 26]\n", "BCM 1 clashes with the Pi's HAT ID"),
        (
            "[pins]\nbuttons = [4, 4, 27, 22, 5, 6, 13, 26]\n",
            "pins.buttons[1] (slot 2 button): BCM 4 is already pins.buttons[0]",
        ),
        (
            "[pins]\ncentre = 26\n",
            "pins.centre (centre button): BCM 26 is already pins.buttons[7] (slot 8 button)",
        ),
        ("[pins]\ncentre = 18\n", "pins.centre (centre button): BCM 18 clashes with I2S"),
        (
            "[pins]\nbuttons = [4, 17, 27, 22, 5, 6, 13, 28]\n",
            "pins.buttons[7] (slot 8 button): 28 is not a BCM pin 0-27",
        ),
        ("[pins]\nbuttons = [4, 17, 27, 22, 5, 6, 13, true]\n", "not a BCM pin"),
        ("[sound]\nvolume = 2\n", "sound.volume"),
        ("[sound]\nquiet = 'loud'\n", "sound.quiet"),
        ("web = 3\n", "[web]: expected a table"),
        ("[web\n", "not valid TOML"),
    ],
)
def test_bad_config_names_the_key(tmp_path, text, named):
    with pytest.raises(ConfigError, match=re.escape(named)):
        load(write(tmp_path, text))


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load(tmp_path / "nope.toml")


def test_cli_stops_with_the_error(tmp_path, capsys):
    path = write(tmp_path, "[web]\nprot = 1\n")
    assert main(["run", "--config", str(path)]) == 2
    assert "web.prot: unknown key" in capsys.readouterr().err

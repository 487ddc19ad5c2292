"""Config: every key optional, unknown keys and bad values named, flags over the file."""

from __future__ import annotations

import pytest

from hub.cli import main
from hub.config import DEFAULTS, ConfigError, load, timings


def write(tmp_path, text):
    path = tmp_path / "hub.toml"
    path.write_text(text)
    return path


def test_no_file_gives_the_defaults():
    config = load(None)
    assert config["web"]["port"] == 8080 and config["hub"]["backend"] == "auto"
    assert timings(config).flicker == 0.08


def test_file_overrides_defaults_and_flags_override_file(tmp_path):
    path = write(tmp_path, '[web]\nport = 9000\nhost = "127.0.0.1"\n[gestures]\nflicker_ms = 50\n')
    config = load(path, {"web": {"port": 9100}})
    assert config["web"] == {**DEFAULTS["web"], "port": 9100, "host": "127.0.0.1"}
    assert timings(config).flicker == 0.05


@pytest.mark.parametrize("text, named", [
    ("[web]\nprot = 1\n", "web.prot: unknown key"),
    ("[wbe]\nport = 1\n", "[wbe]: unknown section"),
    ("[web]\nport = 'x'\n", "web.port: expected int"),
    ("[web]\nport = 70000\n", "web.port: 70000 is out of range"),
    ("[hub]\nbackend = 'usb'\n", "hub.backend: 'usb' is not one of"),
    ("[hub]\ndefault_rules = 'poker'\n", "hub.default_rules"),
    ("[gestures]\nlong_hold_ms = 500\n", "gestures.long_hold_ms"),
    ("[pins]\nbuttons = [1, 2]\n", "pins.buttons: expected 8"),
    ("[pins]\nmarkers = [4, 17, 27, 22, 5, 6, 13, 26]\n", "pins: a pin is used both"),
    ("[sound]\nvolume = 2\n", "sound.volume"),
    ("[sound]\nquiet = 'loud'\n", "sound.quiet"),
    ("web = 3\n", "[web]: expected a table"),
    ("[web\n", "not valid TOML"),
])
def test_bad_config_names_the_key(tmp_path, text, named):
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        load(write(tmp_path, text))


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load(tmp_path / "nope.toml")


def test_cli_stops_with_the_error(tmp_path, capsys):
    path = write(tmp_path, "[web]\nprot = 1\n")
    assert main(["run", "--config", str(path)]) == 2
    assert "web.prot: unknown key" in capsys.readouterr().err

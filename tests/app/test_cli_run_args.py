"""``run``'s command line (hub/cli/run.py): each option lands in its config key, and a
command line that is not one of ``run``'s is refused by argparse with status 2."""

from __future__ import annotations

import pytest

from hub.cli.main import _parser
from hub.cli.run import _overrides

EMPTY = {"hub": {}, "web": {}, "mqtt": {}, "serial": {}}

READ = [
    (["run"], {}),
    (["run", "--config", "/etc/mtrain/hub.toml"], {}),
    (
        ["run", "--backend", "sim", "--host", "127.0.0.1", "--port", "8080", "--state-dir", "st"],
        {"hub": {"backend": "sim", "state_dir": "st"}, "web": {"host": "127.0.0.1", "port": 8080}},
    ),
    (
        ["run", "--port=9000", "--backend=gpio", "-v"],
        {"hub": {"backend": "gpio"}, "web": {"port": 9000}},
    ),
    (
        ["run", "--verbose", "--mqtt", "mqtt://localhost:1883", "--hub-id", "t1"],
        {"hub": {"hub_id": "t1"}, "mqtt": {"url": "mqtt://localhost:1883"}},
    ),
    (
        ["run", "--serial-port", "/dev/ttyACM0", "--backend", "serial"],
        {"hub": {"backend": "serial"}, "serial": {"port": "/dev/ttyACM0"}},
    ),
    (["run", "--host=", "--port", " 8081"], {"web": {"port": 8081}}),  # an empty host: default
    (["run", "--port", "1", "--port", "2"], {"web": {"port": 2}}),  # the last one counts
]

REFUSED = [
    [],
    ["run", "--colour", "x"],
    ["run", "--port", "eighty"],
    ["run", "--backend", "pigpio"],
    ["run", "--host"],
    ["run", "--host", "--port", "1"],
    ["run", "extra"],
    ["run", "--verbose=1"],
    ["run", "--port="],
    ["walk"],
]


@pytest.mark.parametrize(("words", "overrides"), READ, ids=[" ".join(w) for w, _ in READ])
def test_each_run_option_overrides_its_config_key(words, overrides):
    args = _parser("run").parse_args(words)
    assert _overrides(args) == EMPTY | overrides
    assert args.verbose == any(word in ("-v", "--verbose") for word in words)
    assert args.config == ("/etc/mtrain/hub.toml" if "--config" in words else None)


@pytest.mark.parametrize("words", REFUSED, ids=" ".join)
def test_anything_else_is_refused_with_status_2(words, capsys):
    with pytest.raises(SystemExit) as stop:
        _parser(words[0] if words else None).parse_args(words)
    assert stop.value.code == 2
    assert "usage: mtrain-hub" in capsys.readouterr().err


@pytest.mark.parametrize("words", [["run", "-h"], ["run", "--help"]], ids=" ".join)
def test_help_names_every_run_option(words, capsys):
    with pytest.raises(SystemExit) as stop:
        _parser("run").parse_args(words)
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert all(flag in out for flag in ("--config", "--backend", "--mqtt", "--serial-port"))

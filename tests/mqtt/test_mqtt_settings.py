"""The ``[mqtt]`` config section and ``run --mqtt``: checked with errors naming the key."""

from __future__ import annotations

import pytest

from hub.cli.main import _parser
from hub.cli.run import _overrides
from hub.mqtt.settings import enabled, parse_url, settings
from hub.runtime.config import ConfigError, load


def mqtt(**keys):
    return load(None, {"mqtt": keys})


def test_off_unless_a_broker_is_named():
    assert not enabled(load())
    assert enabled(mqtt(url="mqtt://broker"))
    assert enabled(mqtt(host="broker"))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("mqtt://broker", ("broker", 1883, False)),
        ("mqtt://10.0.0.2:1884", ("10.0.0.2", 1884, False)),
        ("mqtts://broker", ("broker", 8883, True)),
        ("mqtt://[::1]:1885", ("::1", 1885, False)),
    ],
)
def test_urls(url, expected):
    assert parse_url(url) == expected


@pytest.mark.parametrize(
    ("keys", "names"),
    [
        ({"url": "http://broker"}, "mqtt.url"),
        ({"url": "mqtt://broker:99999"}, "mqtt.url"),
        ({"url": "mqtt://user:pw@broker"}, "mqtt.url"),
        ({"port": 0}, "mqtt.port"),
        ({"keepalive": 1}, "mqtt.keepalive"),
        ({"outbox": 2}, "mqtt.outbox"),
        ({"base_topic": "a/#"}, "mqtt.base_topic"),
        ({"discovery_prefix": ""}, "mqtt.discovery_prefix"),
        ({"password_file": "/x"}, "mqtt.password_file"),
        ({"password": "hunter2"}, "mqtt.password_file"),
        ({"commands": "yes"}, "mqtt.commands"),
        ({"tls": 1}, "mqtt.tls"),
        ({"scorepad_url": "ftp://x"}, "mqtt.scorepad_url"),
        ({"brokr": "x"}, "mqtt.brokr"),
    ],
)
def test_bad_keys_are_named(keys, names):
    with pytest.raises(ConfigError, match=names.replace(".", r"\.")):
        mqtt(**keys)


def test_the_hub_id_is_a_topic_level():
    with pytest.raises(ConfigError, match=r"hub\.hub_id"):
        load(None, {"hub": {"hub_id": "table/1"}})


def test_credentials_come_from_a_file(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    config = mqtt(url="mqtts://b", username="hub", password_file=str(secret), ca_file=str(secret))
    got = settings(config)
    assert (got.host, got.port, got.tls, got.username, got.password) == (
        "b",
        8883,
        True,
        "hub",
        "s3cret",
    )
    missing = mqtt(url="mqtt://b", username="hub", password_file=str(tmp_path / "none"))
    with pytest.raises(ValueError, match=r"mqtt\.password_file: .*cannot read"):
        settings(missing)
    with pytest.raises(ValueError, match=r"mqtt\.ca_file"):
        settings(mqtt(url="mqtt://b", ca_file=str(tmp_path / "none")))


def test_the_run_flags():
    args = _parser("run").parse_args(["run", "--mqtt", "mqtt://b:1", "--hub-id", "t3"])
    config = load(None, _overrides(args))
    got = settings(config)
    assert (got.host, got.port, got.hub_id, got.root) == ("b", 1, "t3", "mtrain/t3")


def test_a_bad_hub_id_exits_with_a_config_error(tmp_path, capsys):
    from hub.cli.main import main

    code = main(["run", "--backend", "sim", "--state-dir", str(tmp_path), "--hub-id", "a b"])
    assert code == 2
    assert "hub.hub_id" in capsys.readouterr().err

"""Config mistakes end in ``mtrain-hub: config error: <key>: ...`` and exit 2, never a
traceback: ``mtrain-hub run`` as a process, one mistake each."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hub.cli import EXIT_CONFIG
from hub.runtime.config import DEFAULTS, ConfigError, load


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "hub.cli",
        "run",
        "--backend",
        "sim",
        "--state-dir",
        str(tmp_path / "state"),
        *args,
    ]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )


def _config_error(result: subprocess.CompletedProcess[str], key: str) -> str:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert result.returncode == EXIT_CONFIG, result.stderr
    line = next(line for line in result.stderr.splitlines() if "config error" in line)
    assert line.startswith(f"mtrain-hub: config error: {key}"), line
    return line


# The hosts below fail before any port is bound: the port is only there to be named.
UNUSED_PORT = "8080"


def test_a_host_that_does_not_resolve(tmp_path: Path) -> None:
    line = _config_error(
        _run(tmp_path, "--host", "no-such-host.invalid", "--port", UNUSED_PORT),
        "web.host: 'no-such-host.invalid'",
    )
    assert "not an IP address or a name" in line


def test_a_host_this_machine_does_not_have(tmp_path: Path) -> None:
    line = _config_error(_run(tmp_path, "--host", "192.0.2.1", "--port", UNUSED_PORT), "web.host")
    assert "not an address of this machine" in line


def test_a_port_already_in_use(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        line = _config_error(
            _run(tmp_path, "--host", "127.0.0.1", "--port", str(port)), f"web.port: port {port}"
        )
    assert "already in use" in line


def test_a_config_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "hub.toml"
    path.write_bytes(b'[web]\nhost = "caf\xe9"\n')
    line = _config_error(_run(tmp_path, "--config", str(path)), f"config file {path}")
    assert "not UTF-8" in line and "0xe9" in line


def test_a_config_file_that_is_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "hub.toml"
    path.write_text("[web\nport = ")
    assert "not valid TOML" in _config_error(
        _run(tmp_path, "--config", str(path)), f"config file {path}"
    )


def test_a_config_file_that_is_a_folder(tmp_path: Path) -> None:
    assert "cannot be read" in _config_error(
        _run(tmp_path, "--config", str(tmp_path)), f"config file {tmp_path}"
    )


def test_a_state_directory_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("not a folder")
    assert "is a file, not a folder" in _config_error(_run(tmp_path), "hub.state_dir")


def test_a_value_of_the_wrong_type(tmp_path: Path) -> None:
    path = tmp_path / "hub.toml"
    path.write_text('[web]\nport = "8080"\n')
    assert "expected int" in _config_error(_run(tmp_path, "--config", str(path)), "web.port")


WRONG = [
    "x",
    "",
    5,
    -1,
    2**70,
    0.5,
    float("nan"),
    True,
    [],
    ["a"],
    [1.5],
    [2**70],
    [-1] * 8,
    ["a"] * 8,
    {},
    {"a": 1},
    [[1]] * 8,
]


@pytest.mark.parametrize("section", sorted(DEFAULTS))
def test_every_key_refuses_wrong_values_with_its_name(section: str) -> None:
    """Every key given every kind of wrong value: a ConfigError or a valid config."""
    for key in DEFAULTS[section]:
        for value in WRONG:
            try:
                load(None, {section: {key: value}})
            except ConfigError as exc:
                assert str(exc).startswith(f"{section}.{key}") or f"{section}." in str(exc)

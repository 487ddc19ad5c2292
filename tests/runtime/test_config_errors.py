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


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000 + "]" * 100_000,
        "a = " + "{b = " * 10_000 + "1" + "}" * 10_000,
        "[hub]\nbackend = " + "[" * 10_000 + '"sim"' + "]" * 10_000,
    ],
    ids=["100,000 arrays", "10,000 inline tables", "10,000 arrays in a key"],
)
def test_a_config_nested_too_deeply_for_the_parser(tmp_path: Path, text: str) -> None:
    """Issue 33, item 11: tomllib parses nesting by recursion, and its RecursionError
    was a traceback (exit 1). Now it is a config error naming the problem (exit 2)."""
    path = tmp_path / "hub.toml"
    path.write_text(text)
    line = _config_error(_run(tmp_path, "--config", str(path)), f"config file {path}")
    assert line.endswith(
        ": arrays or tables nested too deeply (a hub's config nests at most 8 levels)"
    )


def test_a_config_nested_deeper_than_any_key_needs(tmp_path: Path) -> None:
    """Nesting the parser can read but no key needs: refused naming the key, before a
    check prints the value."""
    path = tmp_path / "hub.toml"
    path.write_text("[hub]\nbackend = " + "[" * 200 + '"sim"' + "]" * 200 + "\n")
    line = _config_error(_run(tmp_path, "--config", str(path)), f"config file {path}")
    assert line.endswith(
        ": hub.backend[0][0][0][0][0][0][0]: arrays or tables nested more than 8 levels "
        "deep (a hub's config nests at most 8)"
    )
    path.write_text("[" + ".".join(["web"] * 20) + "]\nport = 1\n")
    line = _config_error(_run(tmp_path, "--config", str(path)), f"config file {path}")
    assert ": web.web.web.web.web.web.web.web.web: arrays or tables nested more" in line


def test_the_deepest_nesting_a_config_may_hold_is_read(tmp_path: Path) -> None:
    """Eight levels (a section, a key, six arrays) pass to the key checks as ever;
    nine are refused for their depth."""
    path = tmp_path / "hub.toml"
    path.write_text("[pins]\nbuttons = " + "[" * 6 + "1" + "]" * 6 + "\n")
    with pytest.raises(ConfigError, match=r"^pins\.buttons: ") as refused:
        load(path)
    assert "nested" not in str(refused.value)
    path.write_text("[pins]\nbuttons = " + "[" * 7 + "1" + "]" * 7 + "\n")
    with pytest.raises(ConfigError, match=r": pins\.buttons(\[0\]){7}: arrays or tables nested"):
        load(path)

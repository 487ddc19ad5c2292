"""``run``'s command line read without argparse (hub/cli.py, ``_plain_run``): the same
arguments as argparse's for each plain command line, and argparse for anything else."""

from __future__ import annotations

import pytest

from hub.cli import _parser, _plain_run

PLAIN = [
    ["run"],
    ["run", "--config", "/etc/mtrain/hub.toml"],
    ["run", "--backend", "sim", "--host", "127.0.0.1", "--port", "8080", "--state-dir", "st"],
    ["run", "--port=9000", "--backend=gpio", "-v"],
    ["run", "--verbose", "--mqtt", "mqtt://localhost:1883", "--hub-id", "t1"],
    ["run", "--serial-port", "/dev/ttyACM0", "--backend", "serial"],
    ["run", "--host=", "--port", " 8081"],  # argparse takes an empty host and int(" 8081")
    ["run", "--port", "1", "--port", "2"],  # the last one counts
]

# argparse reads these: help, abbreviations, unknown options, wrong or missing values.
NOT_PLAIN = [
    [], ["export"], ["run", "-h"], ["run", "--help"], ["run", "--conf", "x"],
    ["run", "--port", "eighty"], ["run", "--backend", "pigpio"], ["run", "--host"],
    ["run", "--host", "--port", "1"], ["run", "extra"], ["run", "-vv"],
    ["run", "--verbose=1"], ["run", "--port="],
]


@pytest.mark.parametrize("words", PLAIN, ids=" ".join)
def test_a_plain_run_command_line_reads_as_argparse_reads_it(words):
    plain = _plain_run(words)
    assert plain is not None
    assert vars(plain) == vars(_parser("run").parse_args(words))


@pytest.mark.parametrize("words", NOT_PLAIN, ids=" ".join)
def test_anything_else_is_left_to_argparse(words):
    assert _plain_run(words) is None

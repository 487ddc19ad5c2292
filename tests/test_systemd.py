"""The systemd unit runs the console script with flags the CLI accepts."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

from hub.cli import _parser


def test_unit_execstart_parses():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read(Path(__file__).parent.parent / "systemd" / "mtrain-hub.service")
    argv = shlex.split(unit["Service"]["ExecStart"])
    assert argv[0].endswith("/mtrain-hub")
    args = _parser(argv[1]).parse_args(argv[1:])
    assert args.command == "run" and args.state_dir == "/var/lib/mtrain-hub"
    assert unit["Service"]["StateDirectory"] == "mtrain-hub"

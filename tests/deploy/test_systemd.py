"""The unit, the config template and the mDNS announcement agree with the hub and the
installer: the flags parse, the exit statuses are the CLI's, the paths are the ones
``systemd/install.sh`` lays, the template config loads, the announced port is served."""

from __future__ import annotations

import re
import shlex
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

from hub.cli import EXIT_CONFIG, EXIT_STORAGE
from hub.cli.main import _parser
from hub.runtime.config import load

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"


def unit_settings(path: Path) -> dict[str, list[str]]:
    """``[Service]`` of a unit: each key with every value it was given, in order."""
    settings: dict[str, list[str]] = {}
    section = ""
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "Service":
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


def installer_value(name: str) -> str:
    match = re.search(rf"^{name}=(\S+)$", (SYSTEMD / "install.sh").read_text(), re.M)
    assert match, name
    return match[1].replace("$PREFIX", installer_prefix())


def installer_prefix() -> str:
    match = re.search(r"^PREFIX=(\S+)$", (SYSTEMD / "install.sh").read_text(), re.M)
    assert match
    return match[1]


def test_unit_execstart_parses_with_the_installers_paths():
    service = unit_settings(SYSTEMD / "mtrain-hub.service")
    argv = shlex.split(service["ExecStart"][0])
    assert argv[0] == installer_value("VENV") + "/bin/mtrain-hub"
    args = _parser(argv[1]).parse_args(argv[1:])
    assert args.command == "run"
    assert args.state_dir == installer_value("STATE") == "/var/lib/mtrain-hub"
    assert args.config == installer_value("CONFIG")
    assert service["StateDirectory"] == ["mtrain-hub"]
    assert service["User"] == [installer_value("USER_NAME")]


def test_unit_is_notify_with_watchdog_and_the_clis_exit_statuses():
    service = unit_settings(SYSTEMD / "mtrain-hub.service")
    assert service["Type"] == ["notify"] and int(service["WatchdogSec"][0]) >= 10
    assert service["RestartPreventExitStatus"] == [f"{EXIT_CONFIG} {EXIT_STORAGE}"]
    assert service["Restart"] == ["on-failure"]


def test_unit_devices_are_gpio_sound_and_serial_only():
    service = unit_settings(SYSTEMD / "mtrain-hub.service")
    assert service["DevicePolicy"] == ["closed"]
    assert sorted(service["DeviceAllow"]) == [
        "char-alsa rw",
        "char-gpiochip rw",
        "char-ttyACM rw",
        "char-ttyUSB rw",
    ]
    assert service["UMask"] == ["0077"] and service["NoNewPrivileges"] == ["yes"]
    assert service["ProtectSystem"] == ["strict"] and service["PrivateTmp"] == ["yes"]


def test_the_config_template_loads_and_avahi_announces_its_port():
    config = load(SYSTEMD / "mtrain-hub.toml")
    assert config["hub"]["state_dir"] == installer_value("STATE")
    tree = ET.parse(SYSTEMD / "avahi" / "mtrain-hub.service")
    assert tree.findtext("service/type") == "_http._tcp"
    assert int(tree.findtext("service/port") or 0) == config["web"]["port"]
    with open(SYSTEMD / "mtrain-hub.toml", "rb") as f:
        tomllib.load(f)  # plain TOML, no template markers


def test_unit_runs_in_a_writable_working_directory_of_its_own():
    """lgpio makes its notify pipe in the current directory when it loads; the unit's
    default, /, is read-only under ProtectSystem= (issue 22, HIGH 1)."""
    service = unit_settings(SYSTEMD / "mtrain-hub.service")
    assert service["RuntimeDirectory"] == ["mtrain-hub"]
    assert service["RuntimeDirectoryMode"] == ["0700"]
    assert service["WorkingDirectory"] == ["/run/mtrain-hub"]
    from hub.io.pins import UNIT_WORKING_DIRECTORY

    assert UNIT_WORKING_DIRECTORY == service["WorkingDirectory"][0]  # the error names it


def test_unit_gives_lines_without_a_priority_warning_priority():
    """ALSA's and lgpio's own lines, and a faulthandler dump, carry no ``<N>`` prefix:
    they must not land at info, below ``journalctl -p warning``."""
    service = unit_settings(SYSTEMD / "mtrain-hub.service")
    assert service["SyslogLevel"] == ["warning"]
    assert service.get("SyslogLevelPrefix", ["yes"]) == ["yes"]  # the hub's own prefixes count

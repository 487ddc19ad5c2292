"""``mtrain-hub wifi`` (hub/cli/wifi.py) against a stand-in ``nmcli`` and ``systemctl``
on PATH: each call is recorded, each answer is the scenario's; the real command runs
in a process of its own, so an exit status and a traceback are seen as a user sees them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hub.cli.wifi import fields, set_portal
from hub.runtime.config import load
from hub.wire.wifi import PROFILE, Hotspot, read_hotspot, write_hotspot

NMCLI = """#!/bin/sh
echo "nmcli $*" >> "$CALLS"
case "$*" in
  *"connection show --active") [ -n "$ACTIVE" ] && printf '%b\\n' "$ACTIVE"; exit 0 ;;
  *"connection show") [ -n "$PROFILES" ] && printf '%b\\n' "$PROFILES"; exit 0 ;;
  *"connection up"*) [ -n "$UP_FAILS" ] && { echo "$UP_FAILS" >&2; exit 4; }; exit 0 ;;
  *) exit 0 ;;
esac
"""
NOT_RUNNING = """#!/bin/sh
echo "Error: NetworkManager is not running." >&2
exit 8
"""
SYSTEMCTL = '#!/bin/sh\necho "systemctl $*" >> "$CALLS"\n'


@pytest.fixture
def hub_files(tmp_path: Path) -> Path:
    """A config and a state folder with an installed hotspot, as the installer leaves."""
    (tmp_path / "state").mkdir()
    (tmp_path / "hub.toml").write_text(
        f'[hub]\nstate_dir = "{tmp_path / "state"}"\n\n[web]\nport = 80\n'
    )
    write_hotspot(tmp_path / "state", Hotspot("Mexican Train hub", "abcd-efgh-jkmn-pqrs"))
    return tmp_path


def wifi(folder: Path, *words: str, nmcli: str = NMCLI, **env: str) -> tuple[int, str]:
    """Run ``mtrain-hub wifi words…`` with the stand-ins; its status and all it said."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in (("nmcli", nmcli), ("systemctl", SYSTEMCTL)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "CALLS": str(folder / "calls"), **env}
    done = subprocess.run(
        [sys.executable, "-m", "hub.cli", "wifi", *words, "--config", str(folder / "hub.toml")],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout + done.stderr


def calls(folder: Path) -> list[str]:
    path = folder / "calls"
    return path.read_text().splitlines() if path.exists() else []


def test_hotspot_brings_the_profile_up_and_the_portal_on(hub_files):
    status, said = wifi(hub_files, "hotspot", PROFILES=f"Home\\n{PROFILE}")
    assert status == 0, said
    assert f"nmcli -t connection up {PROFILE}" in calls(hub_files)
    assert "systemctl try-restart mtrain-hub.service" in calls(hub_files)
    assert "'Mexican Train hub'" in said and "captive portal is on" in said
    config = load(hub_files / "hub.toml")
    assert config["network"]["portal"] is True and config["web"]["port"] == 80


def test_home_takes_the_hotspot_down_and_the_portal_off(hub_files):
    set_portal(hub_files / "hub.toml", True)
    status, said = wifi(
        hub_files, "home", PROFILES=f"Home\\n{PROFILE}", ACTIVE=f"{PROFILE}:802-11-wireless:wlan0"
    )
    assert status == 0, said
    assert f"nmcli -t connection down {PROFILE}" in calls(hub_files)
    assert load(hub_files / "hub.toml")["network"]["portal"] is False
    assert "captive portal is off" in said


def test_home_can_name_the_network_to_join(hub_files):
    status, said = wifi(hub_files, "home", "Cabin", PROFILES=f"Cabin\\n{PROFILE}")
    assert status == 0 and "joined 'Cabin'" in said
    assert "nmcli -t connection up Cabin" in calls(hub_files)


def test_status_names_the_network_that_carries_the_hub(hub_files):
    status, said = wifi(
        hub_files, "status", PROFILES=f"Home\\n{PROFILE}", ACTIVE="Home:802-11-wireless:wlan0"
    )
    assert status == 0
    assert "hotspot: down, ready" in said and "joined: Home (wlan0)" in said
    assert "captive portal: off" in said
    status, said = wifi(hub_files, PROFILES=PROFILE, ACTIVE=f"{PROFILE}:802-11-wireless:wlan0")
    assert status == 0 and "hotspot: up on wlan0, network 'Mexican Train hub'" in said


@pytest.mark.parametrize(
    "env, nmcli, words",
    [
        (
            {"UP_FAILS": "Error: Connection activation failed: No suitable device found"},
            NMCLI,
            "the hotspot did not come up: Error: Connection activation failed: No suitable device",
        ),
        ({"PROFILES": "Home"}, NMCLI, f"NetworkManager has no profile {PROFILE}"),
        ({}, NOT_RUNNING, "NetworkManager is not running"),
    ],
)
def test_a_state_that_cannot_be_served_is_one_clear_line_and_exit_2(hub_files, env, nmcli, words):
    env.setdefault("PROFILES", PROFILE)
    before = (hub_files / "hub.toml").read_text()
    status, said = wifi(hub_files, "hotspot", nmcli=nmcli, **env)
    assert status == 2 and said.startswith("mtrain-hub wifi hotspot: ") and words in said, said
    assert (hub_files / "hub.toml").read_text() == before  # the portal stays off


def test_without_nmcli_it_says_networkmanager_is_needed(hub_files):
    env = {**os.environ, "PATH": "/nonexistent"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "wifi",
            "hotspot",
            "--config",
            str(hub_files / "hub.toml"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "nmcli is not here" in done.stdout, done.stdout + done.stderr


def test_passphrase_changes_the_state_file_and_the_profile(hub_files):
    status, said = wifi(hub_files, "passphrase", "a new passphrase", PROFILES=PROFILE)
    assert status == 0, said
    assert read_hotspot(hub_files / "state") == Hotspot("Mexican Train hub", "a new passphrase")
    assert f"nmcli -t connection modify {PROFILE} wifi-sec.psk a new passphrase" in calls(hub_files)
    status, said = wifi(hub_files, "passphrase", "short", PROFILES=PROFILE)
    assert status == 2 and "8 to 63 characters" in said
    status, said = wifi(hub_files, "passphrase", PROFILES=PROFILE)  # a new one is made
    made = read_hotspot(hub_files / "state")
    assert status == 0 and made is not None and len(made.passphrase) == 19
    assert made.passphrase in said


def test_set_portal_changes_only_its_line(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text('# mine\n[network]\naddress = "10.42.0.1"  # kept\n\n[web]\nport = 80\n')
    assert set_portal(path, True)
    assert path.read_text() == (
        '# mine\n[network]\nportal = true\naddress = "10.42.0.1"  # kept\n\n[web]\nport = 80\n'
    )
    assert not set_portal(path, True)  # already so
    assert set_portal(path, False) and "portal = false\n" in path.read_text()
    bare = tmp_path / "bare.toml"
    bare.write_text("[web]\nport = 80\n")
    assert not set_portal(bare, False)  # off is the default: the file is left alone
    assert bare.read_text() == "[web]\nport = 80\n"
    assert set_portal(bare, True) and load(bare)["network"]["portal"] is True


def test_nmcli_fields_read_escaped_colons():
    assert fields(r"Café\: upstairs:802-11-wireless:wlan0") == [
        "Café: upstairs",
        "802-11-wireless",
        "wlan0",
    ]


def test_the_dispatchers_portal_on_and_off(hub_files):
    status, said = wifi(hub_files, "portal", "on")
    assert status == 0 and "captive portal is on" in said
    assert load(hub_files / "hub.toml")["network"]["portal"] is True
    assert "systemctl try-restart mtrain-hub.service" in calls(hub_files)
    status, said = wifi(hub_files, "portal", "on")
    assert status == 0 and "already on" in said
    assert calls(hub_files).count("systemctl try-restart mtrain-hub.service") == 1
    status, said = wifi(hub_files, "portal", "maybe")
    assert status == 2 and "expected on or off" in said
    assert wifi(hub_files, "portal", "off")[0] == 0
    assert load(hub_files / "hub.toml")["network"]["portal"] is False

"""The installer's part of the hub's own Wi-Fi (systemd/install.sh, lay_hotspot): the
hotspot's NetworkManager profile made from the project's template with the passphrase
made once in the state folder, and the captive portal's dnsmasq file."""

from __future__ import annotations

import configparser
import stat
import subprocess
from pathlib import Path

import pytest

from hub.wire.wifi import DEFAULT_SSID, PROFILE_UUID, read_hotspot
from tests.conftest import need
from tests.deploy.test_install import PIP_ARGS, REPO, install, installed, pi  # noqa: F401

TEMPLATES = REPO / "systemd" / "networkmanager"
PROFILE_FILE = "etc/NetworkManager/system-connections/mtrain-hub-hotspot.nmconnection"
DNSMASQ_FILE = "etc/NetworkManager/dnsmasq-shared.d/mtrain-hub-portal.conf"


def profile(root: Path) -> configparser.ConfigParser:
    keyfile = configparser.ConfigParser(interpolation=None)
    keyfile.read_string((root / PROFILE_FILE).read_text())
    return keyfile


@pytest.mark.slow
def test_the_hotspot_profile_and_the_portal_dns_are_laid(installed):  # noqa: F811
    root, output = installed
    assert stat.S_IMODE((root / PROFILE_FILE).stat().st_mode) == 0o600  # NM wants 0600
    assert stat.S_IMODE((root / DNSMASQ_FILE).stat().st_mode) == 0o644
    hotspot = read_hotspot(root / "var/lib/mtrain-hub")
    assert hotspot is not None and hotspot.ssid == DEFAULT_SSID
    state = root / "var/lib/mtrain-hub/hotspot.toml"
    assert stat.S_IMODE(state.stat().st_mode) == 0o600  # a secret: the hub's user only
    keyfile = profile(root)
    assert dict(keyfile["connection"]) == {
        "id": "mtrain-hub-hotspot",
        "uuid": str(PROFILE_UUID),
        "type": "wifi",
        "autoconnect": "true",
        "autoconnect-priority": "-100",  # below every network the user joined (0)
    }
    assert keyfile["wifi"]["mode"] == "ap" and keyfile["wifi"]["ssid"] == DEFAULT_SSID
    assert keyfile["wifi-security"]["key-mgmt"] == "wpa-psk"
    assert keyfile["wifi-security"]["psk"] == hotspot.passphrase
    assert keyfile["ipv4"]["method"] == "shared"
    assert keyfile["ipv4"]["address1"] == "10.42.0.1/24"
    laid_dns = (root / DNSMASQ_FILE).read_text()
    assert laid_dns == (TEMPLATES / "mtrain-hub-portal.conf").read_text()
    assert "address=/#/10.42.0.1" in laid_dns.splitlines()
    assert "skipped under --root: nmcli connection reload" in output


@pytest.mark.slow
def test_a_second_install_keeps_the_passphrase(pi):  # noqa: F811
    before = read_hotspot(pi / "var/lib/mtrain-hub")
    output = install(pi, *PIP_ARGS)
    assert read_hotspot(pi / "var/lib/mtrain-hub") == before
    assert f"unchanged /{PROFILE_FILE}" in output and f"unchanged /{DNSMASQ_FILE}" in output


@pytest.mark.slow
def test_uninstall_removes_the_hotspot_files(pi):  # noqa: F811
    output = install(pi, "--uninstall")
    assert not (pi / PROFILE_FILE).exists() and not (pi / DNSMASQ_FILE).exists()
    assert f"removed /{PROFILE_FILE}" in output


def test_networkmanager_reads_the_profile_as_laid(installed):  # noqa: F811
    """NetworkManager's own keyfile reader (``nmcli --offline``: no daemon needed) takes
    the laid profile whole: an access point with WPA2 and the shared IPv4."""
    nmcli = need("nmcli")
    root, _ = installed
    text = (root / PROFILE_FILE).read_text()
    done = subprocess.run(
        [nmcli, "--offline", "connection", "modify", "connection.id", "mtrain-hub-hotspot"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    read = configparser.ConfigParser(interpolation=None)
    read.read_string(done.stdout)
    hotspot = read_hotspot(root / "var/lib/mtrain-hub")
    assert hotspot is not None
    assert read["wifi"]["mode"] == "ap" and read["wifi"]["ssid"] == hotspot.ssid
    assert read["wifi-security"]["psk"] == hotspot.passphrase
    assert read["ipv4"]["method"] == "shared" and read["ipv6"]["method"] == "disabled"
    assert read["connection"]["autoconnect-priority"] == "-100"
    # It does read it: a profile without its name is refused.
    broken = text.replace("ssid=", "# ssid=")
    done = subprocess.run(
        [nmcli, "--offline", "connection", "modify", "connection.id", "x"],
        input=broken,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "ssid" in done.stdout + done.stderr


DISPATCHER = TEMPLATES / "90-mtrain-hub-portal"


@pytest.mark.parametrize(
    "connection, action, said",
    [
        ("mtrain-hub-hotspot", "up", "wifi portal on"),
        ("mtrain-hub-hotspot", "down", "wifi portal off"),
        ("mtrain-hub-hotspot", "dhcp4-change", ""),
        ("Home", "up", ""),
        ("Home", "down", ""),
    ],
)
def test_the_dispatcher_turns_the_portal_with_the_hotspot(tmp_path, connection, action, said):
    """NetworkManager's dispatcher runs the script with the interface and the action,
    CONNECTION_ID in the environment: only the hotspot's up and down reach the hub."""
    hub = tmp_path / "mtrain-hub"
    hub.write_text(f'#!/bin/sh\necho "$*" > {tmp_path / "said"}\n')
    hub.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "CONNECTION_ID": connection, "MTRAIN_HUB": str(hub)}
    done = subprocess.run(
        [str(DISPATCHER), "wlan0", action], env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    heard = (tmp_path / "said").read_text().strip() if (tmp_path / "said").exists() else ""
    assert heard == said


def test_the_dispatcher_is_clean_shell_and_laid_for_networkmanager(installed):  # noqa: F811
    shellcheck = need("shellcheck")
    assert subprocess.run([shellcheck, str(DISPATCHER)], capture_output=True).returncode == 0
    laid = installed[0] / "etc/NetworkManager/dispatcher.d/90-mtrain-hub-portal"
    # NetworkManager runs only root's scripts that no one else may write.
    assert stat.S_IMODE(laid.stat().st_mode) == 0o755
    assert laid.read_bytes() == DISPATCHER.read_bytes()

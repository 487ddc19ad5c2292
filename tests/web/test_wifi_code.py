"""The hub's own Wi-Fi as the page and the card show it (hub/wire/wifi.py): the Wi-Fi
QR code's text, the passphrase's rules, the state file and NetworkManager's profile."""

from __future__ import annotations

import configparser

import pytest

from hub.wire.wifi import (
    Hotspot,
    check_passphrase,
    make_passphrase,
    read_hotspot,
    render_profile,
    wifi_code,
    write_hotspot,
)
from tests.deploy.test_install import REPO

TEMPLATE = REPO / "systemd/networkmanager/mtrain-hub-hotspot.nmconnection"


def test_the_wifi_code_joins_the_hotspot():
    code = wifi_code(Hotspot("Mexican Train hub", "k7pm-x2qd-h9ta-4ncw"))
    assert code == "WIFI:T:WPA;S:Mexican Train hub;P:k7pm-x2qd-h9ta-4ncw;;"


def test_the_wifi_code_escapes_its_special_characters():
    code = wifi_code(Hotspot('Ann;s "hub", 2:1', 'pa\\ss;wo,rd:"x"'))
    assert code == 'WIFI:T:WPA;S:Ann\\;s \\"hub\\"\\, 2\\:1;P:pa\\\\ss\\;wo\\,rd\\:\\"x\\";;'


def test_a_made_passphrase_is_easy_to_type_and_new_each_time():
    made = {make_passphrase() for _ in range(20)}
    assert len(made) == 20
    for passphrase in made:
        assert check_passphrase(passphrase) == passphrase
        assert len(passphrase) == 19 and passphrase.count("-") == 3
        assert not set(passphrase) & set("ilo01")


@pytest.mark.parametrize(
    "passphrase, words",
    [
        ("short", "8 to 63"),
        ("x" * 64, "8 to 63"),
        ("contraseña123", "ASCII"),
        ("a\tbcdefgh", "ASCII"),
    ],
)
def test_a_passphrase_wpa2_refuses_is_named(passphrase, words):
    with pytest.raises(ValueError, match=words):
        check_passphrase(passphrase)


def test_the_state_file_keeps_any_passphrase(tmp_path):
    assert read_hotspot(tmp_path) is None
    hotspot = Hotspot("Ñandú's hub", 'a "quoted" \\ pass # not a comment')
    path = write_hotspot(tmp_path, hotspot)
    assert read_hotspot(tmp_path) == hotspot
    assert path.stat().st_mode & 0o777 == 0o600
    path.write_text('ssid = "x"\n')
    with pytest.raises(ValueError, match="expected ssid and passphrase"):
        read_hotspot(tmp_path)


def test_the_profile_is_the_template_filled_in():
    text = render_profile(TEMPLATE.read_text(), Hotspot("Mexican Train hub", " back\\slash"))
    assert not [word for word in ("@UUID@", "@SSID@", "@PASSPHRASE@") if word in text]
    keyfile = configparser.ConfigParser(interpolation=None)
    keyfile.read_string(text)
    assert keyfile["wifi"]["ssid"] == "Mexican Train hub"
    assert keyfile["wifi-security"]["psk"] == "\\sback\\\\slash"  # GLib's key file escapes

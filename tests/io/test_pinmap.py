"""hardware/pinmap.md and the default config describe the same wiring."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hub.io import pinmap
from hub.io.pinmap import (
    BCM_TO_HEADER,
    HEADER,
    INSTALLER_OVERLAY,
    RESERVED,
    SDMODE_DEFAULT_PIN,
    PinClash,
    boot_overlays,
    check_pins,
    free_pins,
    overlay_claims,
)
from hub.runtime.config import (
    DEFAULT_BUTTON_PINS,
    DEFAULT_CENTRE_PIN,
    DEFAULT_MARKER_PINS,
    DEFAULTS,
    ConfigError,
    load,
)


def test_pinmap_table_matches_default_config():
    text = (Path(__file__).resolve().parents[2] / "hardware" / "pinmap.md").read_text()
    rows = re.findall(r"^\|\s*(\d)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|$", text, re.M)
    assert [int(r[0]) for r in rows] == list(range(1, 9))
    assert [int(r[1]) for r in rows] == DEFAULT_BUTTON_PINS
    assert [int(r[2]) for r in rows] == DEFAULT_MARKER_PINS


def test_pinmap_names_the_centre_button_of_the_default_config():
    text = (Path(__file__).resolve().parents[2] / "hardware" / "pinmap.md").read_text()
    centre = re.search(r"^\|\s*centre\s*\|\s*(\d+)\s*\|", text, re.M)
    assert centre and int(centre.group(1)) == DEFAULT_CENTRE_PIN


def test_the_default_pins_are_free_of_clashes():
    uses = check_pins(DEFAULTS["pins"])
    assert len(uses) == 17 and not {u.pin for u in uses} & set(RESERVED)
    assert uses[0].where == "BCM 4 (header pin 7)"
    assert free_pins(DEFAULTS["pins"]) == [2, 3, 9]
    assert 20 in RESERVED and "I2S" in RESERVED[20]


def test_the_header_holds_every_gpio_once():
    assert sorted(BCM_TO_HEADER) == list(range(28))
    assert sorted(HEADER) == list(range(1, 41))


INSTALL = Path(__file__).resolve().parents[2] / "systemd" / "install.sh"
AMP_MARK = "# mtrain-hub: the I2S amplifier (MAX98357A), added by systemd/install.sh"


def test_the_installer_writes_the_overlay_the_validator_knows():
    match = re.search(r"^AMP_OVERLAY=dtoverlay=(\S+)$", INSTALL.read_text(), re.M)
    assert match and match[1] == INSTALLER_OVERLAY == "max98357a,no-sdmode"


def test_each_overlay_claims_its_pins():
    """The stock MAX98357A overlay holds its SD_MODE pin, BCM 4 by default: slot 1's
    button, wired to ground (issue 22, HIGH 2). ``no-sdmode`` leaves only the I2S pins."""
    assert sorted(overlay_claims(INSTALLER_OVERLAY)) == [18, 19, 21]
    assert (
        sorted(overlay_claims("max98357a")) == [SDMODE_DEFAULT_PIN, 18, 19, 21] == [4, 18, 19, 21]
    )
    assert "SD_MODE" in overlay_claims("max98357a")[4]
    assert sorted(overlay_claims("max98357a,sdmode-pin=17")) == [17, 18, 19, 21]
    assert overlay_claims("vc4-kms-v3d") == {}


def test_every_pin_the_installers_overlay_claims_is_refused_to_an_input():
    for pin in overlay_claims(INSTALLER_OVERLAY):
        pins = {**DEFAULTS["pins"], "buttons": [pin, *DEFAULT_BUTTON_PINS[1:]]}
        with pytest.raises(PinClash, match=rf"pins\.buttons\[0\] \(slot 1 button\): BCM {pin}"):
            check_pins(pins, [INSTALLER_OVERLAY])


def test_the_default_pins_clash_with_the_stock_overlay_only():
    assert check_pins(DEFAULTS["pins"], [INSTALLER_OVERLAY])
    with pytest.raises(PinClash) as caught:
        check_pins(DEFAULTS["pins"], ["max98357a"])
    message = str(caught.value)
    assert message.startswith("pins.buttons[0] (slot 1 button): BCM 4 (header pin 7) is claimed")
    assert "SD_MODE" in message and "dtoverlay=max98357a,no-sdmode frees it" in message


def test_the_config_refuses_pins_the_pis_overlays_claim(tmp_path, monkeypatch):
    boot = tmp_path / "config.txt"
    boot.write_text(f"[all]\n#dtoverlay=max98357a\n{AMP_MARK}\n[all]\ndtoverlay=max98357a\n")
    monkeypatch.setattr(pinmap, "BOOT_CONFIGS", (tmp_path / "none.txt", boot))
    assert boot_overlays() == ["max98357a"]  # a commented line is no overlay
    with pytest.raises(ConfigError, match=r"BCM 4 \(header pin 7\) is claimed"):
        load(None)
    boot.write_text(f"{AMP_MARK}\n[all]\ndtoverlay={INSTALLER_OVERLAY}\n")
    assert load(None)["pins"] == DEFAULTS["pins"]

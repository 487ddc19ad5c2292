"""hardware/: the wiring diagrams and the BOM tables are what their scripts make of the
config and bom.csv, and the BOM lists every part of both builds."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from hub.io.pinmap import AMPLIFIER_PINS, pin_uses
from hub.runtime.config import DEFAULTS

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "hardware"


def tool(name: str) -> ModuleType:
    """Import ``tools/<name>.py`` (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_wiring_diagrams_are_what_the_script_draws(tmp_path):
    written = tool("make_wiring").write(tmp_path)
    assert [p.name for p in written] == ["wiring.svg", "wiring-usb.svg", "layout.svg"]
    for path in written:
        committed = HARDWARE / path.name
        assert committed.read_text() == path.read_text(), (
            f"hardware/{path.name} is stale: run make hardware"
        )


def test_the_wiring_names_every_pin_of_the_default_config():
    svg = (HARDWARE / "wiring.svg").read_text()
    labels = set(re.findall(r">([^<]+)</text>", svg))
    for use in pin_uses(DEFAULTS["pins"]):
        part = use.part.replace("marker sensor", "hall sensor")
        assert any(f"BCM {use.pin}" in t and part in t for t in labels), use
    for signal, bcm in AMPLIFIER_PINS.items():
        assert (
            f"BCM {bcm}  amplifier {signal}" in labels or f"amplifier {signal}  BCM {bcm}" in labels
        )
    for part in ("74AHCT125", "330 Ω", "1000 µF", "MAX98357A", "Raspberry Pi Pico"):
        assert part in svg


def test_a_changed_pin_changes_the_drawing():
    make_wiring = tool("make_wiring")
    pins = dict(DEFAULTS["pins"], centre=9)
    assert "BCM 9  centre button" in make_wiring.default_build(pins)
    assert "BCM 9  centre button" not in (HARDWARE / "wiring.svg").read_text()


def test_the_guide_shows_the_bom_as_it_is_in_the_csv():
    make_bom = tool("make_bom")
    guide = (HARDWARE / "README.md").read_text()
    assert make_bom.render(guide, make_bom.read_bom()) == guide, "run make hardware"
    assert make_bom.main(["--check"]) == 0


def parts(build: str) -> dict[str, int]:
    make_bom = tool("make_bom")
    key = make_bom.BUILDS[build]
    return {
        f"{r['part']} {r['part_number']}": int(r[key]) for r in make_bom.read_bom() if int(r[key])
    }


def count(build_parts: dict[str, int], word: str) -> int:
    return sum(qty for name, qty in build_parts.items() if word.lower() in name.lower())


def test_the_default_build_has_every_part():
    bom = parts("default")
    for word, qty in [
        ("Pi Zero 2 W", 1),
        ("Pico", 1),
        ("MAX98357A", 1),
        ("speaker", 1),
        ("tactile switch", 9),
        ("hall", 8),
        ("magnet", 8),
        ("WS2812", 1),
        ("74AHCT125", 1),
        ("1000 uF", 1),
        ("330 ohm", 1),
        ("power supply", 1),
        ("microSD", 1),
    ]:
        assert count(bom, word) >= qty, word


def test_the_usb_build_leaves_the_pi_and_the_amplifier_out():
    bom = parts("usb")
    for word in ("Pi Zero", "MAX98357A", "speaker", "power supply", "microSD"):
        assert count(bom, word) == 0, word
    for word, qty in [
        ("Pico", 1),
        ("tactile switch", 9),
        ("hall", 8),
        ("WS2812", 1),
        ("74AHCT125", 1),
        ("USB cable", 1),
    ]:
        assert count(bom, word) >= qty, word


def test_the_totals_add_up():
    make_bom = tool("make_bom")
    rows = make_bom.read_bom()
    table = make_bom.table(rows, "default")
    lines = [line for line in table.splitlines()[2:-1]]
    summed = sum(float(line.split("|")[5].strip(" $")) for line in lines)
    assert f"**${summed:.2f}**" in table
    assert make_bom.total(rows, "usb") < make_bom.total(rows, "default")


@pytest.mark.parametrize(
    "line, named",
    [
        ("Pi,SC0510,one,0,15.00,x", "line 2: default_qty 'one' is not a count"),
        ("Pi,,1,0,15.00,x", "line 2: part and part_number are required"),
        ("Pi,SC0510,1,0,15,x", "line 2: unit_usd '15' is not a price"),
    ],
)
def test_a_bad_bom_row_is_named(tmp_path, line, named):
    make_bom = tool("make_bom")
    path = tmp_path / "bom.csv"
    path.write_text(",".join(make_bom.COLUMNS) + "\n" + line + "\n")
    with pytest.raises(make_bom.BomError, match=re.escape(named)):
        make_bom.read_bom(path)


def test_bom_csv_is_what_parts_toml_says():
    make_bom = tool("make_bom")
    assert (HARDWARE / "bom.csv").read_text() == make_bom.csv_text(make_bom.read_parts())


def test_every_powered_part_runs_on_its_rail_and_is_safe_on_a_3v3_pin():
    make_bom = tool("make_bom")
    parts = make_bom.read_parts()
    hall = parts["hall"]
    low, high = hall["supply"]
    assert low <= make_bom.RAILS[hall["rail"]] <= high
    # an output driven to a 5 V supply would put 5 V on the Pi's 3.3 V pin
    assert hall["output"] == "open-drain" or make_bom.RAILS[hall["rail"]] <= 3.3


def test_a_part_off_its_rail_is_refused(tmp_path):
    make_bom = tool("make_bom")
    text = (
        (HARDWARE / "parts.toml")
        .read_text()
        .replace('rail = "5V"\nsupply = [4.5, 24.0]', 'rail = "3V3"\nsupply = [4.5, 24.0]')
    )
    path = tmp_path / "parts.toml"
    path.write_text(text)
    with pytest.raises(
        make_bom.BomError, match="part.hall runs on 4.5-24.0 V, not on its 3V3 rail"
    ):
        make_bom.read_parts(path)


def test_the_guide_pinmap_and_wiring_say_what_parts_toml_says_of_the_sensor():
    hall = tool("make_bom").read_parts()["hall"]
    texts = {
        name: (HARDWARE / name).read_text()
        for name in ("README.md", "pinmap.md", "wiring.svg", "wiring-usb.svg", "bom.csv")
    }
    supply = f"{hall['supply'][0]:g}-{hall['supply'][1]:g} V"
    for name, text in texts.items():
        assert "DRV5032" not in text, name  # not a part of this build
        assert "3V3 | 1 |" not in text, name
    assert supply in texts["pinmap.md"] and supply in texts["README.md"]
    assert supply in texts["wiring.svg"] and supply in texts["wiring-usb.svg"]
    assert "| sensors' VCC | 5V |" in texts["pinmap.md"]
    assert "unipolar" in hall["name"] and "unipolar" in texts["pinmap.md"]


def test_the_pinmap_lists_the_free_pins_the_validator_leaves():
    from hub.io.pinmap import free_pins

    text = (HARDWARE / "pinmap.md").read_text()
    free = [
        int(n)
        for n in re.findall(
            r"(?<![A-Za-z])\d+", text.split("Free for your own additions:")[1].split("\n")[0]
        )
    ]
    assert free == free_pins(DEFAULTS["pins"])


def test_the_bom_has_every_connector_contact_and_tool_the_wiring_needs():
    bom = parts("default")
    slots = len(DEFAULTS["pins"]["buttons"])
    pairs = 2 * slots + 2  # a button and a sensor per slot, the centre, the ring
    header_wires = len(pin_uses(DEFAULTS["pins"])) + len(AMPLIFIER_PINS) + 3  # 5 V, 2 GND
    assert count(bom, "1x3 right-angle male pin header") >= pairs
    assert count(bom, "1x3 crimp housing") >= pairs
    assert count(bom, "1x1 crimp housing") >= header_wires
    assert count(bom, "crimp contact") >= 3 * pairs + header_wires
    assert count(bom, "crimping pliers") == 1
    assert count(bom, "2x20 right-angle") == 1
    scad = (HARDWARE / "enclosure" / "hub.scad").read_text()
    assert "cradle(board," in scad and "cradle(amp," in scad  # the boards' mounts
    assert "hold_pins" in scad and "retainer" in scad  # no glue: a printed retainer

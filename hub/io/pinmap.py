"""The Pi's pins as the hub uses them: which BCM pins are spoken for, and the 40-pin header.

The config validator (:mod:`hub.runtime.config`), the selftest and ``tools/make_wiring.py`` read
the same facts from here, so the wiring diagram, the checks and the error messages agree.
Standard library only (and the firmware's pin table, plain Python).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.firmware import board

# BCM pins the hub never takes for a button or a sensor, and why.
RESERVED: dict[int, str] = {
    0: "the Pi's HAT ID EEPROM (ID_SD, read at boot)",
    1: "the Pi's HAT ID EEPROM (ID_SC, read at boot)",
    14: "the serial console (UART TX)",
    15: "the serial console (UART RX)",
    18: "I2S audio (BCLK of the MAX98357A amplifier)",
    19: "I2S audio (LRCLK of the MAX98357A amplifier)",
    20: "I2S audio (DIN, the I2S input: the overlay puts BCM 18-21 in I2S mode)",
    21: "I2S audio (DIN of the MAX98357A amplifier)",
}

# The 40-pin header: physical pin -> BCM number, or the name of a power pin.
HEADER: dict[int, int | str] = {
    1: "3V3",
    2: "5V",
    3: 2,
    4: "5V",
    5: 3,
    6: "GND",
    7: 4,
    8: 14,
    9: "GND",
    10: 15,
    11: 17,
    12: 18,
    13: 27,
    14: "GND",
    15: 22,
    16: 23,
    17: "3V3",
    18: 24,
    19: 10,
    20: "GND",
    21: 9,
    22: 25,
    23: 11,
    24: 8,
    25: "GND",
    26: 7,
    27: 0,
    28: 1,
    29: 5,
    30: "GND",
    31: 6,
    32: 12,
    33: 13,
    34: "GND",
    35: 19,
    36: 16,
    37: 26,
    38: 20,
    39: "GND",
    40: 21,
}
BCM_TO_HEADER: dict[int, int] = {bcm: pin for pin, bcm in HEADER.items() if isinstance(bcm, int)}

# The Pi's other connections in the default build (hardware/pinmap.md).
AMPLIFIER_PINS: dict[str, int] = {"BCLK": 18, "LRC": 19, "DIN": 21}

# The device-tree overlay systemd/install.sh writes for the amplifier (a test holds the
# two together), and where the Pi keeps the lines that load overlays.
INSTALLER_OVERLAY = "max98357a,no-sdmode"
BOOT_CONFIGS = (Path("/boot/firmware/config.txt"), Path("/boot/config.txt"))
# The MAX98357A overlay's SD_MODE pin: an output it drives high while sound plays,
# unless the overlay is given ``no-sdmode`` (``sdmode-pin=N`` moves it).
SDMODE_DEFAULT_PIN = 4


def overlay_claims(overlay: str) -> dict[int, str]:
    """The BCM pins an overlay (``max98357a,no-sdmode``: a ``dtoverlay=`` value) claims,
    each with why; an overlay not known here claims none."""
    name, *params = (part.strip() for part in overlay.split(","))
    if name != "max98357a":
        return {}
    claims = {
        pin: f"I2S audio ({role} of dtoverlay={overlay})" for role, pin in AMPLIFIER_PINS.items()
    }
    settings = dict(param.partition("=")[::2] for param in params)
    if "no-sdmode" not in settings:
        pin = int(settings.get("sdmode-pin") or SDMODE_DEFAULT_PIN)
        claims[pin] = (
            f"the amplifier's SD_MODE output (dtoverlay={overlay} drives it high while sound "
            f"plays; dtoverlay={INSTALLER_OVERLAY} frees it)"
        )
    return claims


def boot_overlays(paths: tuple[Path, ...] | None = None) -> list[str]:
    """The ``dtoverlay=`` values of the Pi's config.txt (the first of ``paths``, default
    :data:`BOOT_CONFIGS`, that exists; none off a Pi)."""
    for path in BOOT_CONFIGS if paths is None else paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        return [
            line.strip().split("=", 1)[1]
            for line in text.splitlines()
            if line.strip().startswith("dtoverlay=")
        ]
    return []


# The Pico's 40 pins: physical pin -> GP number, or the name of a power/control pin.
PICO_HEADER: dict[int, int | str] = {
    1: 0,
    2: 1,
    3: "GND",
    4: 2,
    5: 3,
    6: 4,
    7: 5,
    8: "GND",
    9: 6,
    10: 7,
    11: 8,
    12: 9,
    13: "GND",
    14: 10,
    15: 11,
    16: 12,
    17: 13,
    18: "GND",
    19: 14,
    20: 15,
    21: 16,
    22: 17,
    23: "GND",
    24: 18,
    25: 19,
    26: 20,
    27: 21,
    28: "GND",
    29: 22,
    30: "RUN",
    31: 26,
    32: 27,
    33: "GND",
    34: 28,
    35: "ADC_VREF",
    36: "3V3(OUT)",
    37: "3V3_EN",
    38: "GND",
    39: "VSYS",
    40: "VBUS",
}
GP_TO_PICO_PIN: dict[int, int] = {gp: pin for pin, gp in PICO_HEADER.items() if isinstance(gp, int)}

# The Pico's pins as its firmware uses them (firmware_bridge/firmware/board.py, the one
# source): the ring's data line in every build; the inputs in the "hub box on USB"
# build, where the Pico reads everything (same order and active level as the Pi's).
PICO_PINS: dict[str, Any] = {
    "ring": board.RING_PIN,
    "buttons": list(board.BUTTON_PINS),
    "markers": list(board.MARKER_PINS),
    "centre": board.CENTRE_PIN,
}
RING_PIXELS = board.PIXELS  # 3 per slot, slot 1's first pixel at the ring's data input


class PinClash(ValueError):
    """A pin that cannot be used as asked; the message names the key, the pin and why."""


@dataclass(frozen=True)
class PinUse:
    """One input of the hub: its config key (``pins.buttons[0]``), what it is, its BCM pin."""

    key: str
    part: str
    pin: int

    @property
    def where(self) -> str:
        """``BCM 4 (header pin 7)``: what a maker looks for on the board."""
        header = BCM_TO_HEADER.get(self.pin)
        return f"BCM {self.pin}" + (f" (header pin {header})" if header else "")


def pin_uses(pins: dict[str, Any]) -> list[PinUse]:
    """Every input the ``[pins]`` section wires: slot buttons, marker sensors, the centre."""
    uses = [
        PinUse(f"pins.buttons[{i}]", f"slot {i + 1} button", pin)
        for i, pin in enumerate(pins.get("buttons", []))
    ]
    uses += [
        PinUse(f"pins.markers[{i}]", f"slot {i + 1} marker sensor", pin)
        for i, pin in enumerate(pins.get("markers", []))
    ]
    if "centre" in pins:
        uses.append(PinUse("pins.centre", "centre button", pins["centre"]))
    return uses


def check_pins(pins: dict[str, Any], overlays: list[str] | tuple[str, ...] = ()) -> list[PinUse]:
    """The inputs of ``pins``, or :class:`PinClash` naming the first pin that cannot work.

    Refused: a pin outside the header's GPIO 0-27, one of :data:`RESERVED`, one an
    overlay of ``overlays`` claims (:func:`overlay_claims`), and a pin given to two inputs.
    """
    taken: dict[int, PinUse] = {}
    claimed = {pin: why for overlay in overlays for pin, why in overlay_claims(overlay).items()}
    uses = pin_uses(pins)
    for use in uses:
        if isinstance(use.pin, bool) or not isinstance(use.pin, int) or not 0 <= use.pin <= 27:
            raise PinClash(f"{use.key} ({use.part}): {use.pin!r} is not a BCM pin 0-27")
        if use.pin in RESERVED:
            raise PinClash(
                f"{use.key} ({use.part}): BCM {use.pin} clashes with "
                f"{RESERVED[use.pin]}; pick a free pin (hardware/pinmap.md)"
            )
        if use.pin in claimed:
            raise PinClash(
                f"{use.key} ({use.part}): {use.where} is claimed by {claimed[use.pin]}; "
                "pick a free pin or change the overlay (hardware/pinmap.md)"
            )
        if use.pin in taken:
            first = taken[use.pin]
            raise PinClash(
                f"{use.key} ({use.part}): BCM {use.pin} is already "
                f"{first.key} ({first.part}); every input needs its own pin"
            )
        taken[use.pin] = use
    return uses


def free_pins(pins: dict[str, Any]) -> list[int]:
    """BCM pins 0-27 that neither the config nor :data:`RESERVED` takes."""
    used = {use.pin for use in pin_uses(pins)}
    return [p for p in range(28) if p not in used and p not in RESERVED]


def is_raspberry_pi() -> bool:
    """True on a Raspberry Pi (read from the device tree model)."""
    try:
        with open("/proc/device-tree/model", encoding="ascii", errors="replace") as f:
            return "raspberry pi" in f.read().lower()
    except OSError:
        return False


def resolve_backend(configured: str) -> str:
    """``auto`` means ``gpio`` on a Raspberry Pi and ``sim`` anywhere else."""
    if configured != "auto":
        return configured
    return "gpio" if is_raspberry_pi() else "sim"

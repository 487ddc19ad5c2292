"""tests/stl_check.py tells a printable part from one that needs supports, on shapes whose
answer is known, in ASCII and binary STL."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from tests.conftest import need
from tests.stl_check import MAX_BRIDGE, overhangs, read_stl

SHAPES = {
    "a plain block": ("cube([20, 20, 10]);", True),
    "a bridge of 20 mm": (
        "difference() { cube([30, 10, 10]); translate([5, -1, -1]) cube([20, 12, 6]); }",
        True,
    ),
    "a bridge of 40 mm": (
        "difference() { cube([50, 10, 10]); translate([5, -1, -1]) cube([40, 12, 6]); }",
        False,
    ),
    "a 10 mm ledge": ("cube([10, 10, 10]); translate([0, 0, 8]) cube([20, 10, 2]);", False),
    "a 30 degree slope": (
        "hull() { cube([10, 10, 0.1]); translate([0, 0, 10]) cube([10 + tan(30) * 10, 10, 0.1]); }",
        True,
    ),
    "a 60 degree slope": (
        "hull() { cube([10, 10, 0.1]); translate([0, 0, 10]) cube([10 + tan(60) * 10, 10, 0.1]); }",
        False,
    ),
}


def render(tmp_path: Path, source: str) -> Path:
    scad, stl = tmp_path / "shape.scad", tmp_path / "shape.stl"
    scad.write_text(source)
    subprocess.run([need("openscad"), "-o", str(stl), str(scad)], check=True, capture_output=True)
    return stl


@pytest.mark.parametrize("name", SHAPES)
def test_known_shapes(tmp_path, name):
    source, printable = SHAPES[name]
    found = overhangs(read_stl(render(tmp_path, source)))
    assert (found == []) is printable, found


def test_a_long_bridge_is_named_with_its_span(tmp_path):
    found = overhangs(read_stl(render(tmp_path, SHAPES["a bridge of 40 mm"][0])))
    assert [o.why for o in found] == [f"a bridge of 40.0 mm, longer than {MAX_BRIDGE:g} mm"]


def test_binary_and_ascii_read_the_same(tmp_path):
    ascii_stl = render(tmp_path, SHAPES["a 10 mm ledge"][0])
    tris = read_stl(ascii_stl)
    binary = tmp_path / "shape-binary.stl"
    body = b"".join(struct.pack("<12fH", 0, 0, 0, *[c for v in t for c in v], 0) for t in tris)
    binary.write_bytes(b"\0" * 80 + struct.pack("<I", len(tris)) + body)
    assert read_stl(binary) == tris

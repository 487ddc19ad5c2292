"""hardware/enclosure/hub.scad renders with Debian's openscad: every part a closed solid
that fits a 220 x 220 mm bed, no warnings, and slots that fit each set's dominoes."""

from __future__ import annotations

import math
import re
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import need

SCAD = Path(__file__).resolve().parents[1] / "hardware" / "enclosure" / "hub.scad"
BED = 220.0
SETS = (12, 15, 18)
PARTS = ("top", "base", "marker")
# Domino sizes (length, width, thickness) the scad must fit; kept here as the oracle.
DOMINOES = {12: (44.5, 22.5, 9.5), 15: (48.0, 24.0, 10.0), 18: (52.0, 26.0, 10.0)}

Vertex = tuple[str, str, str]


def openscad(out: Path, **params: object) -> str:
    """Run openscad on hub.scad with ``-D`` params; returns what it printed."""
    defines: list[str] = []
    for key, value in params.items():
        text = f'"{value}"' if isinstance(value, str) else str(value)
        defines += ["-D", f"{key}={text}"]
    done = subprocess.run(
        [need("openscad"), *defines, "-o", str(out), str(SCAD)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = done.stdout + done.stderr
    if out.suffix == ".echo" and out.exists():
        output += out.read_text()
    assert done.returncode == 0, output
    return output


def problems(output: str) -> list[str]:
    return [
        line for line in output.splitlines() if line.startswith(("WARNING", "ERROR", "DEPRECATED"))
    ]


def slots(output: str) -> list[dict[str, float]]:
    found = re.findall(r'ECHO: "slot (\d+) (.*)"', output)
    return [
        {"slot": float(n), **{k: float(v) for k, v in re.findall(r"(\w+)=([-\d.]+)", rest)}}
        for n, rest in found
    ]


def triangles(stl: Path) -> list[list[Vertex]]:
    """The triangles of an ASCII STL, vertices as written (shared ones are identical)."""
    found, corner = [], []
    for line in stl.read_text().splitlines():
        words = line.split()
        if words and words[0] == "vertex":
            corner.append((words[1], words[2], words[3]))
            if len(corner) == 3:
                found.append(corner)
                corner = []
    return found


def open_edges(tris: list[list[Vertex]]) -> int:
    """Edges not shared by exactly two triangles (0 for a closed solid)."""
    edges: Counter[frozenset[Vertex]] = Counter()
    for t in tris:
        for i in range(3):
            edges[frozenset((t[i], t[(i + 1) % 3]))] += 1
    return sum(1 for n in edges.values() if n != 2)


def extent(tris: list[list[Vertex]], axis: int) -> float:
    values = [float(v[axis]) for t in tris for v in t]
    return max(values) - min(values)


def inside_domino(tris: list[list[Vertex]], slot: dict[str, float], size) -> list[Vertex]:
    """Vertices of the part inside the domino lying in ``slot`` (none, if it fits)."""
    length, width, thickness = size
    a = math.radians(slot["angle"])
    hits = []
    for v in {v for t in tris for v in t}:
        x, y, z = map(float, v)
        along = x * math.cos(a) + y * math.sin(a) - slot["inner_r"]
        across = -x * math.sin(a) + y * math.cos(a)
        if (
            0.05 < along < length - 0.05
            and abs(across) < width / 2 - 0.05
            and slot["floor_z"] + 0.05 < z < slot["floor_z"] + thickness - 0.05
        ):
            hits.append(v)
    return hits


def check_slots(output: str, dominoes: int) -> list[dict[str, float]]:
    length, width, thickness = DOMINOES[dominoes]
    found = slots(output)
    assert [s["slot"] for s in found] == list(range(1, 9))
    for s in found:
        assert width < s["width"] <= width + 2.0, s  # fits, without wobbling
        assert length / 3 <= s["length"] <= length, s  # holds it, it still sticks out
        assert 1.0 <= s["depth"] < thickness, s  # a finger can pick it up
    return found


@pytest.mark.parametrize("dominoes", SETS)
def test_each_set_evaluates_without_warnings_and_its_slots_fit(tmp_path, dominoes):
    output = openscad(tmp_path / "top.echo", part="top", domino_set=dominoes)
    assert problems(output) == []
    check_slots(output, dominoes)


@pytest.mark.parametrize(
    "params, named",
    [
        ({"domino_set": 10}, "domino_set must be 12, 15 or 18"),
        ({"part": "lid"}, "part must be top, base, marker or all"),
        ({"slots": 30}, "too many slots"),
    ],
)
def test_bad_parameters_are_refused_by_name(tmp_path, params, named):
    assert named in openscad(tmp_path / "x.echo", **params)


@pytest.mark.slow
def test_every_part_renders_to_a_closed_solid_that_fits_the_bed(tmp_path, made_stl):
    # The double-12 parts are the ones `make stl DOMINO_SET=12` made (the build guide's
    # command, run once per test run: tests/test_hardware_guide.py checks the command);
    # the other sets' tops are rendered here.
    assert made_stl.status == 0, made_stl.output
    made = made_stl.root / "build" / "stl"
    results = {(part, 12): (made_stl.output, made / f"hub-{part}.stl") for part in PARTS}
    jobs = [("top", 15), ("top", 18)]

    def render(job: tuple[str, int]) -> tuple[str, Path]:
        part, dominoes = job
        stl = tmp_path / f"{part}-{dominoes}.stl"
        return openscad(stl, part=part, domino_set=dominoes), stl

    with ThreadPoolExecutor(max_workers=2) as pool:
        results.update(zip(jobs, pool.map(render, jobs), strict=True))
    for (part, dominoes), (output, stl) in results.items():
        assert problems(output) == [], (part, dominoes)
        tris = triangles(stl)
        assert len(tris) > 100, (part, dominoes)
        assert open_edges(tris) == 0, f"{part} ({dominoes}) is not a closed solid"
        assert extent(tris, 0) <= BED and extent(tris, 1) <= BED, (part, dominoes)
        if part == "top":  # where the slots are: the top's own echo
            echoed = openscad(tmp_path / f"top-{dominoes}.echo", part="top", domino_set=dominoes)
            for slot in check_slots(echoed, dominoes):
                assert inside_domino(tris, slot, DOMINOES[dominoes]) == [], (dominoes, slot)

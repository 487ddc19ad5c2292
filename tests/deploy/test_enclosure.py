"""hardware/enclosure/hub.scad renders with Debian's openscad: every part a closed solid
that fits a 220 x 220 mm bed, no warnings, printable without supports (tests/stl_check.py),
the size of a real hub (its echoed figures, which the STLs agree with), sizes that are
hardware/parts.toml's, slots that fit each set's dominoes, and a build whose parts
(the boxes of room the scad echoes for each) overlap neither each other nor the printed
features beside them: quickly from the echoes, and (slow) in OpenSCAD's own CSG."""

from __future__ import annotations

import math
import re
import subprocess
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import need
from tests.helpers import long_run_scale
from tests.stl_check import bounds, overhangs, read_stl

SCAD = Path(__file__).resolve().parents[2] / "hardware" / "enclosure" / "hub.scad"
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
        ({"part": "lid"}, "part must be top, base, retainer, marker, all or fit"),
        ({"slots": 30}, "too many slots"),
    ],
)
def test_bad_parameters_are_refused_by_name(tmp_path, params, named):
    assert named in openscad(tmp_path / "x.echo", **params)


def figures(output: str) -> dict[str, float]:
    """The ``name_mm=value`` figures the scad echoes."""
    return {k: float(v) for k, v in re.findall(r'ECHO: "(\w+_mm)=([-\d.]+)"', output)}


def holes(output: str) -> dict[str, dict[str, float]]:
    found = re.findall(r'ECHO: "hole (\w+) (.*)"', output)
    return {n: {k: float(v) for k, v in re.findall(r"(\w+)=([-\d.]+)", rest)} for n, rest in found}


@pytest.mark.parametrize("dominoes", SETS)
def test_the_hub_is_the_size_of_a_real_one(tmp_path, dominoes):
    found = figures(openscad(tmp_path / "top.echo", part="top", domino_set=dominoes))
    assert found["footprint_mm"] <= 150
    assert found["slot_floor_mm"] <= 15
    assert (
        found["slot_floor_mm"]
        == found["top_height_mm"]
        - slots(openscad(tmp_path / "t.echo", part="top", domino_set=dominoes))[0]["depth"]
    )


def test_every_insert_and_screw_fits_its_hole(tmp_path):
    found = holes(openscad(tmp_path / "x.echo", part="base"))
    parts = tomllib.loads((SCAD.parents[1] / "parts.toml").read_text())["part"]
    insert = found.pop("m3_insert")
    assert insert["length"] == parts["insert_m3"]["size"][1]
    assert insert["depth"] >= insert["length"] + 0.5  # the insert sits below the boss's face
    assert 3 <= insert["reach"] <= insert["length"]  # the screw bites, and ends in the insert
    for name, hole in found.items():  # self-tapping screws through a board into a post
        assert hole["length"] == parts["screw_st"]["size"][1], name
        assert hole["diameter"] == parts["screw_st"]["size"][0], name
        assert hole["length"] - hole["board"] <= hole["depth"] - 0.3, name


SCAD_SIZES = {  # hub.scad's variable: parts.toml's part
    "pi": "pi",
    "pico": "pico",
    "amp": "amp",
    "speaker": "speaker",
    "sensor": "hall",
    "switch_body": "switch",
    "magnet": "magnet",
    "ring": "ring",
    "board": "board",
    "capacitor": "bulk_cap",
    "insert_m3": "insert_m3",
    "screw_st": "screw_st",
}


def test_the_scad_keeps_the_room_parts_toml_says():
    text = SCAD.read_text()
    parts = tomllib.loads((SCAD.parents[1] / "parts.toml").read_text())["part"]
    for variable, key in SCAD_SIZES.items():
        found = re.search(rf"^{variable} = \[([^\]]+)\];", text, re.M)
        assert found, variable
        assert [float(v) for v in found.group(1).split(",")] == parts[key]["size"], variable


def guide_renders(run) -> dict[tuple[str, int], tuple[str, Path]]:
    """The build guide's ``make stl DOMINO_SET=12`` (run once per test run: the
    ``made_stl`` fixture): each part's STL and what openscad printed for it (the
    Makefile names each part on stderr before rendering it)."""
    assert run.status == 0, run.output
    found: dict[tuple[str, int], tuple[str, Path]] = {}
    for section in run.stderr.split("== build/stl/hub-")[1:]:
        part = section.split(".stl", 1)[0]
        found[(part, 12)] = (section, run.root / "build" / "stl" / f"hub-{part}.stl")
    return found


@pytest.mark.slow
def test_every_part_renders_to_a_closed_solid_that_fits_the_bed(tmp_path, request):
    # The larger sets' tops are rendered here, first; the 12 set's parts are the build
    # guide's own `make stl` (made once per run, maybe by another test process in the
    # meantime, and checked as a guide command in tests/deploy/test_hardware_guide.py).
    jobs = [("top", 15), ("top", 18)]

    def render(job: tuple[str, int]) -> tuple[str, Path]:
        part, dominoes = job
        stl = tmp_path / f"{part}-{dominoes}.stl"
        return openscad(stl, part=part, domino_set=dominoes), stl

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(jobs, pool.map(render, jobs), strict=True))
    guide = guide_renders(request.getfixturevalue("made_stl"))
    assert set(guide) == {(part, 12) for part in ("top", "base", "retainer", "marker")}
    results |= guide
    for (part, dominoes), (output, stl) in results.items():
        assert problems(output) == [], (part, dominoes)
        tris = triangles(stl)
        assert len(tris) > 100, (part, dominoes)
        assert open_edges(tris) == 0, f"{part} ({dominoes}) is not a closed solid"
        assert extent(tris, 0) <= BED and extent(tris, 1) <= BED, (part, dominoes)
        printed = read_stl(stl)
        assert bounds(printed)[0][2] == 0, f"{part} is not on the bed"
        assert overhangs(printed) == [], f"{part} ({dominoes}) needs supports"
        if part == "top":
            found = figures(output)
            low, high = bounds(printed)
            assert high[0] - low[0] == high[1] - low[1] == found["footprint_mm"]
            assert high[2] == found["top_height_mm"]
            height = found["top_height_mm"]
            # Printed upside down: back to the table's coordinates for the slots.
            upright = [
                [(v[0], str(-float(v[1])), str(height - float(v[2]))) for v in t] for t in tris
            ]
            for slot in check_slots(output, dominoes):
                assert inside_domino(upright, slot, DOMINOES[dominoes]) == [], (dominoes, slot)
                floor = [  # the slot's floor, seen in the print: a ceiling at height - floor
                    t
                    for t in printed
                    if all(abs(v[2] - (height - found["slot_floor_mm"])) < 1e-3 for v in t)
                ]
                assert floor, slot


@dataclass(frozen=True)
class Room:
    """A box of room in the assembled hub: its middle seen from above, its turn, its
    half sizes, and the heights it spans."""

    kind: str  # "room" (a part of the build) or "fixture" (a printed feature)
    name: str
    middle: tuple[float, float]
    turn: float  # radians
    half: tuple[float, float]
    z: tuple[float, float]

    def axes(self) -> list[tuple[float, float]]:
        c, s = math.cos(self.turn), math.sin(self.turn)
        return [(c, s), (-s, c)]

    def reach(self, axis: tuple[float, float]) -> float:
        """Half its extent along ``axis`` (a unit vector)."""
        (ux, uy), (vx, vy) = self.axes()
        return self.half[0] * abs(ux * axis[0] + uy * axis[1]) + self.half[1] * abs(
            vx * axis[0] + vy * axis[1]
        )

    def corners(self) -> list[tuple[float, float]]:
        (ux, uy), (vx, vy) = self.axes()
        return [
            (
                self.middle[0] + a * self.half[0] * ux + b * self.half[1] * vx,
                self.middle[1] + a * self.half[0] * uy + b * self.half[1] * vy,
            )
            for a in (-1, 1)
            for b in (-1, 1)
        ]


GAP = 0.01  # mm: boxes closer than this touch, they do not overlap


def rooms(output: str) -> list[Room]:
    """The "room" and "fixture" boxes the scad echoes, placed in the hub."""

    def vector(text: str) -> list[float]:
        return [float(v) for v in text.split(",")]

    found = []
    for kind, name, pose, at, size in re.findall(
        r'ECHO: "(room|fixture) (\w+) pose=\[([^\]]*)\] at=\[([^\]]*)\] size=\[([^\]]*)\]"',
        output,
    ):
        (px, py, angle), (cx, cy, cz), (sx, sy, sz) = vector(pose), vector(at), vector(size)
        turn = math.radians(angle)
        c, s = math.cos(turn), math.sin(turn)
        middle = (px + cx * c - cy * s, py + cx * s + cy * c)
        found.append(Room(kind, name, middle, turn, (sx / 2, sy / 2), (cz, cz + sz)))
    return found


def overlap(a: Room, b: Room) -> bool:
    """Whether two boxes share room (separating axes: theirs, seen from above, and z)."""
    if min(a.z[1], b.z[1]) - max(a.z[0], b.z[0]) <= GAP:
        return False
    apart = (b.middle[0] - a.middle[0], b.middle[1] - a.middle[1])
    for axis in a.axes() + b.axes():
        if abs(apart[0] * axis[0] + apart[1] * axis[1]) >= a.reach(axis) + b.reach(axis) - GAP:
            return False
    return True


def clashes(found: list[Room]) -> list[tuple[str, str]]:
    """Each pair of different parts, or a part and a printed feature, that overlap."""
    hits = set()
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            if a.name != b.name and "room" in (a.kind, b.kind) and overlap(a, b):
                hits.add((a.name, b.name))
    return sorted(hits)


def inside(output: str) -> dict[str, float]:
    found = re.search(r'ECHO: "inside (.*)"', output)
    assert found, "the scad echoes no inside"
    return {k: float(v) for k, v in re.findall(r"(\w+)=([-\d.]+)", found.group(1))}


BUILD = {"pi", "pico", "board", "amp", "speaker", "capacitor", "switch_centre"} | {
    f"switch_{n}" for n in range(1, 9)
}


@pytest.mark.parametrize("dominoes", SETS)
def test_the_build_fits_inside_the_hub_without_overlaps(tmp_path, dominoes):
    output = openscad(tmp_path / "fit.echo", part="top", domino_set=dominoes)
    found = rooms(output)
    assert {r.name for r in found if r.kind == "room"} == BUILD
    assert {r.name.rstrip("_0123456789") for r in found if r.kind == "fixture"} >= {
        "pi_posts",
        "pico_posts",
        "board_cradle",
        "amp_cradle",
        "speaker_guides",
        "speaker_bed",
        "top_screw_boss",
        "slot_boss",
        "hold_pin",
    }
    assert clashes(found) == []
    room = inside(output)
    for r in found:
        if r.kind != "room":
            continue
        assert max(math.hypot(*c) for c in r.corners()) <= room["radius"], r.name
        assert r.z[0] >= 2, r.name  # on the base's floor or above it
        if not r.name.startswith("switch"):  # a switch's legs reach through the retainer
            assert r.z[1] <= room["under"], r.name


@pytest.mark.parametrize(
    "params, pair",
    [
        ({"pi_at": [0, -20, 0]}, ("pi", "board")),  # the Pi on the hub board
        ({"speaker_r": 40}, ("pi", "speaker")),  # turned boxes, near the corners
        ({"amp_at": [46.5, -14, 0]}, ("amp", "speaker_bed")),  # a part on a printed feature
    ],
)
def test_an_overlap_is_found(tmp_path, params, pair):
    found = clashes(rooms(openscad(tmp_path / "bad.echo", part="top", **params)))
    assert pair in found


def test_the_overlap_check_on_boxes_whose_answer_is_known():
    def box(x: float, y: float, angle: float, z: float = 0.0) -> Room:
        return Room("room", f"{x},{y},{angle}", (x, y), math.radians(angle), (5, 1), (z, z + 2))

    assert overlap(box(0, 0, 0), box(9, 0, 0))  # end to end, 1 mm into each other
    assert not overlap(box(0, 0, 0), box(10, 0, 0))  # touching
    assert not overlap(box(0, 0, 0), box(0, 0, 0, z=2))  # one on the other
    assert overlap(box(0, 0, 0), box(0, 2.5, 90))  # a cross
    assert not overlap(box(0, 0, 0), box(0, 6.0, 90))  # a T, touching
    # turned 45°, its corner reaches (5 + 1) / sqrt(2) ~ 4.24 towards the other
    assert overlap(box(0, 0, 0), box(0, 5.0, 45))
    assert not overlap(box(0, 0, 0), box(0, 5.3, 45))


@pytest.mark.slow
@pytest.mark.torture
@pytest.mark.skipif(
    long_run_scale() == 0,
    reason="OpenSCAD's CSG of the whole build takes minutes: make torture runs it "
    "(the boxes' overlap check above runs in every run)",
)
def test_the_build_fits_in_openscads_own_csg(tmp_path):
    """part="fit" intersects the parts' rooms with each other (probe -1) and with every
    printed part (probe -2) in OpenSCAD's CSG: both must be empty."""

    def render(probe: int) -> str:
        done = subprocess.run(
            [need("openscad"), "-D", 'part="fit"', "-D", f"probe={probe}"]
            + ["-o", str(tmp_path / f"fit{probe}.stl"), str(SCAD)],
            capture_output=True,
            text=True,
            timeout=900,
        )
        return done.stdout + done.stderr  # it exits 1 when there is nothing to export

    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = list(pool.map(render, (-1, -2)))
    for probe, output in zip((-1, -2), outputs, strict=True):
        assert "Current top level object is empty" in output, (probe, output[-2000:])
        assert problems(output) == [], probe

"""Reading an STL (ASCII or binary) and judging whether it prints without supports.

Standard library only. A part is exported in the position it is printed in, on the bed
at z = 0. A facet faces down when its normal points below the horizon; it needs support
when it leans more than :data:`MAX_OVERHANG` degrees from vertical, unless it lies on the
bed or is part of a bridge: a flat ceiling whose every point lies on a straight span,
in one direction for the whole ceiling, that ends on walls coming up from below at both
ends and is no longer than :data:`MAX_BRIDGE` millimetres (points within :data:`EDGE` of
the outline print with it). Everything else is reported.
"""

from __future__ import annotations

import math
import struct
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

Point = tuple[float, float, float]
Triangle = tuple[Point, Point, Point]

MAX_OVERHANG = 45.0  # degrees from vertical that print without support
MAX_BRIDGE = 30.0  # mm a bridge may span between its walls (PLA, 0.2 mm layers)
FLAT = 1e-3  # mm: heights closer than this are the same
EDGE = 1.0  # mm: a ceiling's points this close to its outline print with the outline


def read_stl(path: Path) -> list[Triangle]:
    """The triangles of an ASCII or binary STL, vertices rounded to 1e-4 mm."""
    data = path.read_bytes()
    if len(data) >= 84:
        (count,) = struct.unpack_from("<I", data, 80)
        if 84 + 50 * count == len(data):
            return [_binary_facet(data, 84 + 50 * i) for i in range(count)]
    return _ascii_facets(data.decode("ascii"))


def _point(values: tuple[float, ...]) -> Point:
    return (round(values[0], 4), round(values[1], 4), round(values[2], 4))


def _binary_facet(data: bytes, offset: int) -> Triangle:
    values = struct.unpack_from("<12f", data, offset)
    return (_point(values[3:6]), _point(values[6:9]), _point(values[9:12]))


def _ascii_facets(text: str) -> list[Triangle]:
    found: list[Triangle] = []
    corners: list[Point] = []
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "vertex":
            corners.append(_point(tuple(float(w) for w in words[1:4])))
            if len(corners) == 3:
                found.append((corners[0], corners[1], corners[2]))
                corners = []
    return found


def normal(t: Triangle) -> Point:
    """The unit normal by the right-hand rule (STL's outward order)."""
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = t
    ux, uy, uz = bx - ax, by - ay, bz - az
    vx, vy, vz = cx - ax, cy - ay, cz - az
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    size = math.sqrt(nx * nx + ny * ny + nz * nz) or 1.0
    return (nx / size, ny / size, nz / size)


def area(t: Triangle) -> float:
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = t
    ux, uy, uz = bx - ax, by - ay, bz - az
    vx, vy, vz = cx - ax, cy - ay, cz - az
    return 0.5 * math.dist((0, 0, 0), (uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx))


def bounds(tris: list[Triangle]) -> tuple[Point, Point]:
    """The bounding box's lowest and highest corners."""
    xs, ys, zs = zip(*(v for t in tris for v in t), strict=True)
    return (min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs))


@dataclass(frozen=True)
class Overhang:
    """Facets that would print in the air: where, how much, and why they are not allowed."""

    z: float
    where: tuple[float, float]
    area_mm2: float
    why: str


def overhangs(tris: list[Triangle]) -> list[Overhang]:
    """Everything of the part that needs support, as groups of facets."""
    bed = bounds(tris)[0][2]
    limit = math.cos(math.radians(90 - MAX_OVERHANG))  # -n_z beyond this leans too far
    ceilings: dict[float, list[Triangle]] = defaultdict(list)
    found: list[Overhang] = []
    for t in tris:
        nz = normal(t)[2]
        if -nz <= limit + 1e-6 or all(abs(v[2] - bed) < FLAT for v in t):
            continue
        if -nz > 1 - 1e-6 and len({round(v[2], 3) for v in t}) == 1:
            ceilings[round(t[0][2], 3)].append(t)
        else:
            found.append(_report([t], f"leans {math.degrees(math.acos(-nz)):.0f}° from flat"))
    for z, flat in ceilings.items():
        for region in _regions(flat):
            why = _unbridgeable(region, tris, z)
            if why:
                found.append(_report(region, why))
    return found


def _report(region: list[Triangle], why: str) -> Overhang:
    points = [v for t in region for v in t]
    x = sum(p[0] for p in points) / len(points)
    y = sum(p[1] for p in points) / len(points)
    return Overhang(points[0][2], (round(x, 1), round(y, 1)), sum(map(area, region)), why)


def _edges(t: Triangle) -> list[tuple[Point, Point]]:
    return [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]


def _key(a: Point, b: Point) -> tuple[Point, Point]:
    return (a, b) if a < b else (b, a)


def _regions(flat: list[Triangle]) -> list[list[Triangle]]:
    """Coplanar facets grouped into connected regions (sharing an edge)."""
    by_edge: dict[tuple[Point, Point], list[int]] = defaultdict(list)
    for i, t in enumerate(flat):
        for a, b in _edges(t):
            by_edge[_key(a, b)].append(i)
    seen: set[int] = set()
    regions = []
    for start in range(len(flat)):
        if start in seen:
            continue
        stack, region = [start], []
        seen.add(start)
        while stack:
            i = stack.pop()
            region.append(flat[i])
            for a, b in _edges(flat[i]):
                for j in by_edge[_key(a, b)]:
                    if j not in seen:
                        seen.add(j)
                        stack.append(j)
        regions.append(region)
    return regions


def _walls(
    region: list[Triangle], tris: list[Triangle], z: float
) -> list[tuple[Point, Point, bool]]:
    """The region's outline: each edge, and whether a wall below holds it up.

    An outline edge is held when a facet outside the region runs along it (its edge
    holds the outline edge's midpoint: meshes split edges) and reaches below it."""
    inside: dict[tuple[Point, Point], int] = defaultdict(int)
    for t in region:
        for a, b in _edges(t):
            inside[_key(a, b)] += 1
    outline = [k for k, n in inside.items() if n == 1]
    members = set(region)
    near = [
        t
        for t in tris
        if t not in members
        and any(abs(v[2] - z) < FLAT for v in t)
        and min(v[2] for v in t) < z - FLAT
    ]
    walls = []
    for a, b in outline:
        middle = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, z)
        held = any(_on_edge(middle, t) for t in near)
        walls.append((a, b, held))
    return walls


def _on_edge(p: Point, t: Triangle) -> bool:
    """Whether p lies on one of t's edges that runs at height p[2]."""
    for a, b in _edges(t):
        if abs(a[2] - p[2]) >= FLAT or abs(b[2] - p[2]) >= FLAT:
            continue
        ex, ey = b[0] - a[0], b[1] - a[1]
        length2 = ex * ex + ey * ey
        if length2 == 0:
            continue
        s = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / length2
        if -1e-6 <= s <= 1 + 1e-6:
            dx, dy = a[0] + s * ex - p[0], a[1] + s * ey - p[1]
            if dx * dx + dy * dy < 1e-6:
                return True
    return False


def _samples(region: list[Triangle]) -> list[tuple[float, float]]:
    """Points spread over the region: each facet's centroid and its corners pulled in."""
    points = []
    for t in region:
        cx = sum(v[0] for v in t) / 3
        cy = sum(v[1] for v in t) / 3
        points.append((cx, cy))
        points += [(v[0] + (cx - v[0]) * 0.05, v[1] + (cy - v[1]) * 0.05) for v in t]
    return points


def _clear_of(p: tuple[float, float], walls: list[tuple[Point, Point, bool]], gap: float) -> bool:
    """Whether p lies at least ``gap`` from every edge of the outline."""
    for a, b, _ in walls:
        ex, ey = b[0] - a[0], b[1] - a[1]
        length2 = ex * ex + ey * ey or 1e-12
        s = max(0.0, min(1.0, ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / length2))
        if math.dist(p, (a[0] + s * ex, a[1] + s * ey)) < gap:
            return False
    return True


def _hit(p: tuple[float, float], d: tuple[float, float], a: Point, b: Point) -> float | None:
    """How far along direction d from p the segment a-b lies (None if it is missed)."""
    ex, ey = b[0] - a[0], b[1] - a[1]
    det = d[0] * -ey + d[1] * ex
    if abs(det) < 1e-12:
        return None
    wx, wy = a[0] - p[0], a[1] - p[1]
    t = (wx * -ey + wy * ex) / det
    s = (d[0] * wy - d[1] * wx) / det
    return t if t > 1e-6 and -1e-9 <= s <= 1 + 1e-9 else None


def _span(p: tuple[float, float], d: tuple[float, float], walls) -> float | None:
    """The bridge's length through p along ±d, or None if either end is not held up."""
    total = 0.0
    for sign in (1, -1):
        ray = (d[0] * sign, d[1] * sign)
        nearest = None
        for a, b, held in walls:
            t = _hit(p, ray, a, b)
            if t is not None and (nearest is None or t < nearest[0]):
                nearest = (t, held)
        if nearest is None or not nearest[1]:
            return None
        total += nearest[0]
    return total


def _unbridgeable(region: list[Triangle], tris: list[Triangle], z: float) -> str:
    """Why this flat ceiling cannot be bridged ('' if it can)."""
    walls = _walls(region, tris, z)
    if not any(held for *_, held in walls):
        return "a flat overhang with no wall below it"
    points = [p for p in _samples(region) if _clear_of(p, walls, EDGE)]
    best = math.inf
    for step in range(36):
        angle = math.radians(step * 5)
        d = (math.cos(angle), math.sin(angle))
        longest = 0.0
        for p in points:
            span = _span(p, d, walls)
            if span is None:
                longest = math.inf
                break
            longest = max(longest, span)
        best = min(best, longest)
        if best <= MAX_BRIDGE:
            return ""
    if best == math.inf:
        return "a ceiling with a free edge in every direction (a ledge, not a bridge)"
    return f"a bridge of {best:.1f} mm, longer than {MAX_BRIDGE:g} mm"

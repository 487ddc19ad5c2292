#!/usr/bin/env python3
"""Write the bill of materials from ``hardware/parts.toml``: ``hardware/bom.csv`` and two
tables in the build guide.

``parts.toml`` is the one description of the parts: each part, its part number, how
many each build takes, a typical unit price in US dollars, what it is for, and for the
electrical ones the rail that powers them and the voltages they run on. This script
writes ``bom.csv`` from it (for a spreadsheet or a shop's cart) and renders a table per
build (with line totals and the build's total) between the markers
``<!-- bom:default -->`` ... ``<!-- /bom -->`` and ``<!-- bom:usb -->`` ...
``<!-- /bom -->`` of ``hardware/README.md``. Standard library only; ``make hardware``
runs it.

    python tools/make_bom.py            # writes hardware/bom.csv, updates hardware/README.md
    python tools/make_bom.py --check    # exits 1 if either is stale
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PARTS = ROOT / "hardware" / "parts.toml"
BOM = ROOT / "hardware" / "bom.csv"
GUIDE = ROOT / "hardware" / "README.md"
BUILDS = {"default": "default_qty", "usb": "usb_qty"}
COLUMNS = ("part", "part_number", "default_qty", "usb_qty", "unit_usd", "notes")


class BomError(ValueError):
    """The CSV is malformed; the message names the row and the column."""


def read_bom(path: Path = BOM) -> list[dict[str, str]]:
    """The parts, each a dict of :data:`COLUMNS`, checked: BomError names a bad row."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise BomError(f"{path.name}: columns must be {', '.join(COLUMNS)}")
        rows = list(reader)
    for number, row in enumerate(rows, 2):
        if not row["part"].strip() or not row["part_number"].strip():
            raise BomError(f"{path.name} line {number}: part and part_number are required")
        for key in ("default_qty", "usb_qty"):
            if not row[key].isdigit():
                raise BomError(f"{path.name} line {number}: {key} {row[key]!r} is not a count")
        if not re.fullmatch(r"\d+\.\d\d", row["unit_usd"]) or Decimal(row["unit_usd"]) <= 0:
            raise BomError(
                f"{path.name} line {number}: unit_usd {row['unit_usd']!r} is not a price like 4.50"
            )
    return rows


def read_parts(path: Path = PARTS) -> dict[str, dict[str, Any]]:
    """The parts of ``parts.toml`` by key, each checked: BomError names a bad one."""
    with open(path, "rb") as f:
        parts: dict[str, dict[str, Any]] = tomllib.load(f).get("part", {})
    for key, part in parts.items():
        for field in ("name", "number", "qty", "usd", "why"):
            if field not in part:
                raise BomError(f"{path.name}: part.{key} has no {field}")
        if set(part["qty"]) != set(BUILDS) or not all(
            isinstance(n, int) and n >= 0 for n in part["qty"].values()
        ):
            raise BomError(
                f"{path.name}: part.{key}.qty must give a count for each of {list(BUILDS)}"
            )
        if "supply" in part and part.get("rail"):
            low, high = part["supply"]
            if not low <= RAILS[part["rail"]] <= high:
                rail = part["rail"]
                raise BomError(
                    f"{path.name}: part.{key} runs on {low}-{high} V, not on its {rail} rail"
                )
    return parts


RAILS = {"5V": 5.0, "3V3": 3.3}


def csv_text(parts: dict[str, dict[str, Any]]) -> str:
    """``bom.csv``: one row per part, in the order of ``parts.toml``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for part in parts.values():
        qty = part["qty"]
        writer.writerow(
            (part["name"], part["number"], qty["default"], qty["usb"], part["usd"], part["why"])
        )
    return out.getvalue()


def total(rows: list[dict[str, str]], build: str) -> Decimal:
    """What one hub of ``build`` costs at the typical prices."""
    key = BUILDS[build]
    return sum((int(r[key]) * Decimal(r["unit_usd"]) for r in rows), Decimal("0"))


def table(rows: list[dict[str, str]], build: str) -> str:
    """The Markdown table of ``build``: the parts it takes, line totals and the total."""
    key = BUILDS[build]
    lines = ["| qty | part | part number | unit | total | for |", "|--:|---|---|--:|--:|---|"]
    for r in rows:
        qty = int(r[key])
        if qty:
            line_total = qty * Decimal(r["unit_usd"])
            lines.append(
                f"| {qty} | {r['part']} | {r['part_number']} | ${r['unit_usd']} "
                f"| ${line_total:.2f} | {r['notes']} |"
            )
    lines.append(f"| | **total** | | | **${total(rows, build):.2f}** | |")
    return "\n".join(lines)


def render(guide: str, rows: list[dict[str, str]]) -> str:
    """``guide`` with each build's table put between its markers."""
    for build in BUILDS:
        pattern = re.compile(rf"<!-- bom:{build} -->\n.*?<!-- /bom -->", re.S)
        found = pattern.search(guide)
        if found is None:
            raise BomError(f"{GUIDE.name}: no <!-- bom:{build} --> ... <!-- /bom --> markers")
        filled = f"<!-- bom:{build} -->\n{table(rows, build)}\n<!-- /bom -->"
        guide = guide[: found.start()] + filled + guide[found.end() :]
    return guide


def main(argv: list[str] | None = None) -> int:
    """Update the guide, or with ``--check`` say whether it is up to date."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the guide is stale")
    args = parser.parse_args(argv)
    wanted_csv = csv_text(read_parts())
    if args.check:
        if BOM.read_text(encoding="utf-8") != wanted_csv:
            print(f"{BOM}: stale; run make hardware", file=sys.stderr)
            return 1
    else:
        BOM.write_text(wanted_csv, encoding="utf-8")
        print(f"wrote {BOM}")
    rows = read_bom()
    current = GUIDE.read_text(encoding="utf-8")
    wanted = render(current, rows)
    if args.check:
        if wanted != current:
            print(f"{GUIDE}: the BOM tables are stale; run make hardware", file=sys.stderr)
            return 1
        return 0
    GUIDE.write_text(wanted, encoding="utf-8")
    print(f"wrote the BOM tables into {GUIDE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

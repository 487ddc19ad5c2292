"""The page holds no rule data of its own: its new-game form comes from GET /api/rules.

No file under web/static/ names a profile, and none holds a run of the numbers of a
deal table, the sets or an option's values (in any order of appearance).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scorer.profiles import OPTIONS, PROFILES, SETS

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
FILES = sorted(p for p in STATIC.rglob("*") if p.is_file())


def runs() -> dict[str, tuple[int, ...]]:
    """Every run of numbers the rule data holds, by where it comes from."""
    found: dict[str, tuple[int, ...]] = {"sets": SETS}
    for profile in PROFILES.values():
        for name in ("tiles_each", "default_set"):
            rows = getattr(profile, name)
            found[f"{profile.id} {name} values"] = tuple(v for _, _, v in rows)
            found[f"{profile.id} {name} rows"] = tuple(n for row in rows for n in row)
    for option in OPTIONS.values():
        values = tuple(v for v in option.values if not isinstance(v, bool))
        if values:
            found[f"option {option.id}"] = tuple(int(v) for v in values)
        if option.players:
            found[f"option {option.id} players"] = option.players
    return {name: run for name, run in found.items() if len(run) >= 3}


def numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"(?<![\w.#-])\d+(?![\w.])", text)]


def holds(haystack: list[int], run: tuple[int, ...]) -> bool:
    n = len(run)
    return any(tuple(haystack[i : i + n]) == run for i in range(len(haystack) - n + 1))


# The catalogs (web/static/i18n/) hold the words for each profile, keyed by its id
# ("rules.<id>.name"): words, not rule data (tests/page/test_i18n_usage.py holds them).
CODE = [path for path in FILES if path.parent.name != "i18n"]


@pytest.mark.parametrize("path", CODE, ids=lambda p: p.name)
def test_no_profile_id(path):
    text = path.read_text().lower()
    for profile in PROFILES:
        assert not re.search(rf"\b{profile}\b", text), (path.name, profile)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_deal_table_sets_or_option_values(path):
    found = numbers(path.read_text())
    for name, run in runs().items():
        assert not holds(found, run), (path.name, name, run)


def test_the_checks_would_catch_the_old_page():
    """What the page held before GET /api/rules: both checks see it."""
    old = (
        '<label><input type="radio" name="rules" value="consensus" checked> consensus</label>'
        '<option value="6">double-6</option><option value="9">double-9</option>'
        '<option value="12">double-12</option><option value="15">double-15</option>'
        '<option value="18">double-18</option>'
        '<input type="radio" name="db" value="0"> <input value="25"> <input value="50">'
    )
    assert re.search(r"\bconsensus\b", old)
    assert holds(numbers(old), SETS)
    assert holds(numbers(old), (0, 25, 50))
    assert not holds(numbers("[1, 2, 3, 4].map"), SETS)

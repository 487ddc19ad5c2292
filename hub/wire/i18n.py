"""The page's and the hub's words, one catalog per language (``web/static/i18n/<lang>.json``).

One home for each sentence: the page fetches the same files (they are static files) and
the hub's Python side (API messages, the voice) reads them here. A catalog is a flat
JSON object, kept sorted by key, 2-space indented, one key per line, so that two changes
to different keys merge cleanly:

- a key names where the words are used, dotted (``"say.turn"``, ``"error.no_name"``);
- a value is a string with ``{name}`` placeholders, or, for words that depend on a
  count, an object of plural categories (``{"one": "…", "other": "…"}``, the categories
  of ``Intl.PluralRules``; ``other`` is always there and stands in for any missing one).

Every language has every key (a test), and each key has the same placeholders in every
language. English is the fallback for a language the hub does not have.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from functools import cache
from pathlib import Path

# The catalogs stay where the page fetches them (web/ serves them as static files).
CATALOGS = Path(__file__).resolve().parent.parent.parent / "web" / "static" / "i18n"
LANGUAGES = ("en", "es")
DEFAULT = "en"

Entry = str | dict[str, str]


class UnknownKey(KeyError):
    """A key that no catalog has: a bug in the caller, never the user's fault."""


def language(tag: str | None) -> str:
    """The catalog for a language tag or an ``Accept-Language`` header: ``"es-MX"`` and
    ``"es-MX,es;q=0.9,en;q=0.8"`` give ``"es"``; anything unknown gives English."""
    if not tag:
        return DEFAULT
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(tag.split(",")):
        name, _, params = part.strip().partition(";")
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                quality = 0.0
        base = name.strip().lower().split("-")[0]
        if base in LANGUAGES and quality > 0:
            ranked.append((-quality, index, base))
    return min(ranked)[2] if ranked else DEFAULT


@cache
def catalog(lang: str) -> Mapping[str, Entry]:
    """The whole catalog of ``lang`` (read once; English for an unknown language)."""
    if lang not in LANGUAGES:
        lang = DEFAULT
    with (CATALOGS / f"{lang}.json").open(encoding="utf-8") as f:
        loaded: dict[str, Entry] = json.load(f)
    return loaded


def plural(lang: str, count: int) -> str:
    """The plural category of ``count`` in ``lang`` (English and Spanish: one, other)."""
    return "one" if abs(count) == 1 else "other"


def text(lang: str, key: str, /, count: int | None = None, **params: object) -> str:
    """The words for ``key`` in ``lang``, placeholders filled from ``params`` (``count``
    chooses the plural form and is also the ``{count}`` placeholder)."""
    words = catalog(lang).get(key)
    if words is None:
        words = catalog(DEFAULT).get(key)
    if words is None:
        raise UnknownKey(key)
    if isinstance(words, dict):
        if count is None:
            raise TypeError(f"{key} needs a count")
        words = words.get(plural(lang, count), words["other"])
    if count is not None:
        params = {"count": count, **params}
    return words.format_map(params) if params else words


def placeholders(entry: Entry) -> frozenset[str]:
    """The ``{name}`` placeholders of an entry (all its plural forms together)."""
    forms = entry.values() if isinstance(entry, dict) else [entry]
    return frozenset(
        name for form in forms for _, name, _, _ in string.Formatter().parse(form) if name
    )


def canonical(entries: Mapping[str, Entry]) -> str:
    """A catalog's file text as it must be stored: sorted, 2-space indented, UTF-8."""
    return json.dumps(dict(sorted(entries.items())), ensure_ascii=False, indent=2) + "\n"

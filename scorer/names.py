"""Players' names: what a name may hold, and when two names are the same.

A name enters the hub in a new game's ``players`` and as a key of a score body
(``points.Ann``, ``tiles.Ann``, ``went_out``). Every one of them passes :func:`clean`:

- it is normalised to Unicode NFC (so "é" typed as "e" + accent is the stored "é");
- leading and trailing white space is trimmed; it may not be empty or longer than
  :data:`MAX_NAME` characters;
- invisible and control characters are refused: the Unicode categories Cc (controls),
  Cf (format: zero-width space, joiners, bidirectional marks), Zl, Zp (line and
  paragraph separators), Co (private use), Cn (unassigned) and Cs (lone surrogates);
- a name that shows nothing is refused (:func:`blank`): one of only combining marks,
  spaces and the letters that draw nothing (the Hangul fillers, the blank Braille
  pattern) would be an empty box on the page;
- "Mexican" (in any case) names the Mexican Train, not a player.

Two names are the same when their :func:`skeleton` is: NFKC, then casefold, then each
character that commonly stands in for a Latin letter (Cyrillic "а", Greek "ο", the
digit-like "О"...) replaced by that letter (:data:`HOMOGLYPHS`), white space runs
collapsed. "Ann" and "ANN", "Ann" and "Аnn" (Cyrillic A) or "ﬁ" and "fi" cannot sit
at one table: a table must be able to tell its players apart on a small screen.
The map is deliberately small (the letters a person can type by mistake or to fool
the table); it is not Unicode's full confusables table.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from scorer.errors import FieldError, clip

MAX_NAME = 24
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})
# Letters and symbols that draw nothing: Hangul fillers (Lo), the blank Braille pattern (So).
DRAW_NOTHING = frozenset("\u115f\u1160\u3164\uffa0\u2800")

# Cyrillic and Greek letters that look like a Latin letter (lower case: the skeleton is
# taken after casefold). Sources: Unicode's confusables.txt, the Latin look-alikes only.
HOMOGLYPHS: dict[str, str] = {
    # Cyrillic
    "а": "a",
    "в": "b",
    "с": "c",
    "ԁ": "d",
    "е": "e",
    "ѐ": "è",
    "ё": "ë",
    "һ": "h",
    "і": "i",
    "ї": "ï",
    "ј": "j",
    "к": "k",
    "ӏ": "l",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "ԛ": "q",
    "ѕ": "s",
    "т": "t",
    "у": "y",
    "ԝ": "w",
    "х": "x",
    "ү": "y",
    "ɡ": "g",
    # Greek
    "α": "a",
    "β": "b",
    "ε": "e",
    "η": "n",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "ϲ": "c",
    "ϳ": "j",
    "ѵ": "v",
    # Latin look-alikes of other Latin letters
    "ı": "i",
    "ł": "l",
}
_TABLE = str.maketrans(HOMOGLYPHS)


class BadName(FieldError):
    """A name that cannot be used; ``field`` names the request field it came in."""


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def clean(name: object, field: str = "players") -> str:
    """``name`` normalised (NFC) and trimmed; :class:`BadName` naming ``field`` if unusable."""
    if not isinstance(name, str):
        raise BadName(f"{field}: {clip(name)!r} is not a name", field, code="not_a_name")
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            raise BadName(
                f"{field}: {clip(name)!r} holds an invisible or control character "
                f"({_describe(char)})",
                field,
                code="name_invisible",
                name=name,
                char=_describe(char),
            )
    if not name.strip():
        raise BadName(f"{field}: {name!r} is not a name", field, code="not_a_name")
    name = unicodedata.normalize("NFC", name).strip()
    if blank(name):
        raise BadName(
            f"{field}: {clip(name)!r} shows nothing (only marks or spaces)",
            field,
            code="name_blank",
            name=name,
        )
    if len(name) > MAX_NAME:
        raise BadName(
            f"{field}: {clip(name)!r} is longer than {MAX_NAME} characters",
            field,
            code="name_too_long",
            name=name,
            most=MAX_NAME,
        )
    if skeleton(name) == "mexican":
        raise BadName(
            f"{field}: {name!r} names the Mexican Train, not a player",
            field,
            code="name_mexican",
            name=name,
        )
    return name


def blank(name: str) -> bool:
    """Whether ``name`` has no character that shows by itself: only combining marks
    (category M), spaces (Z) and :data:`DRAW_NOTHING`."""
    return all(
        unicodedata.category(char)[0] in "MZ" or char in DRAW_NOTHING or char.isspace()
        for char in name
    )


def skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, casefolded, homoglyphs replaced, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = unicodedata.normalize("NFKC", folded.translate(_TABLE))
    return " ".join(folded.split())


def same(one: str, other: str) -> bool:
    """Whether ``one`` and ``other`` are the same name once case and width are ignored
    (NFKC, casefold) - rather than only looking alike."""

    def fold(name: str) -> str:
        return unicodedata.normalize("NFKC", name).casefold()

    return fold(one) == fold(other)


def clash(field: str, one: str, other: str) -> BadName:
    """Why ``one`` and ``other`` cannot both be players (naming ``field``)."""
    if same(one, other):
        words = f"{field}: {one!r} and {other!r} are the same name"
        return BadName(words, field, code="same_name", one=one, other=other)
    words = (
        f"{field}: {one!r} and {other!r} look the same: give each player a name "
        "the table can tell apart"
    )
    return BadName(words, field, code="names_alike", one=one, other=other)


def first_clash(names: Iterable[str]) -> tuple[str, str] | None:
    """The first pair of ``names`` that look the same, or None."""
    seen: dict[str, str] = {}
    for name in names:
        key = skeleton(name)
        if key in seen:
            return seen[key], name
        seen[key] = name
    return None

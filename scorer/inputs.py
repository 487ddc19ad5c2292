"""The checks every request passes at the edge, before a handler looks at it.

- :func:`parse_body`: a JSON body is an object, nested at most :data:`MAX_DEPTH` levels
  (counted before it is parsed, so a deep body never reaches the recursive parser),
  with no key twice in one object, no ``NaN``/``Infinity`` and no number beyond
  :data:`MAX_NUMBER` in size.
- :func:`query_whole`: a whole-number query parameter is ASCII digits within bounds.
- :data:`MAX_ID`: ids and numbers in paths are at most 2^31 - 1 (the routes' int
  converters say so: a larger or negative id is a 404, never an overflow).

Each refusal is a :class:`BadInput` (a :class:`scorer.errors.FieldError`) with its code
and the part at fault; ``docs/api.md`` ("Input rules") lists them all. The HTTP API
and the MQTT commands read their bodies here.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from scorer.errors import FieldError, clip

MAX_DEPTH = 32
MAX_NUMBER = 2**53  # the largest whole number a phone's JavaScript holds exactly
MAX_DIGITS = 40  # a longer number is refused before Python converts it
MAX_ID = 2**31 - 1
ID = f"int(max={MAX_ID})"  # the converter of ids and numbers in paths
SLOT = f"int(signed=True, max={MAX_ID})"  # a slot: negative ones are a 404 beyond

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(rb"[\[\]{}]")


class BadInput(FieldError):
    """Input refused at the edge; ``field`` names the request field when one is at fault."""

    def __init__(
        self, message: str, field: str | None = None, *, code: str, **params: object
    ) -> None:
        super().__init__(message, field, code=code, **params)


def depth(raw: bytes) -> int:
    """How deeply ``raw`` (JSON text) nests arrays and objects; strings are skipped."""
    deepest = level = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", raw)):
        if bracket in b"[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def _no_twins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise BadInput(
                f"body: the key {clip(key)!r} appears twice in one object",
                code="key_twice",
                key=key,
            )
        obj[key] = value
    return obj


def _constant(name: str) -> Any:
    raise BadInput(f"body: {name} is not a number JSON allows", code="not_json_number", value=name)


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS or abs(value := int(text)) > MAX_NUMBER:
        raise BadInput(
            f"body: the number {clip(text, 20)} is too large "
            f"(at most {MAX_NUMBER} either side of 0)",
            code="number_too_large",
            value=clip(text, 20),
        )
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        raise BadInput(
            f"body: the number {clip(text, 20)} is too large",
            code="number_too_large",
            value=clip(text, 20),
        )
    return value


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object in ``raw`` (``{}`` for an empty body), or :class:`BadInput`."""
    if not raw.strip():
        return {}
    if depth(raw) > MAX_DEPTH:
        raise BadInput(
            f"body: nested more than {MAX_DEPTH} levels deep", code="too_deep", most=MAX_DEPTH
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput("body: not UTF-8 text", code="not_utf8") from None
    try:
        body = json.loads(
            text,
            object_pairs_hook=_no_twins,
            parse_constant=_constant,
            parse_int=_int,
            parse_float=_float,
        )
    except BadInput:
        raise
    except (ValueError, RecursionError):
        raise BadInput("body: not valid JSON", code="not_json") from None
    if not isinstance(body, dict):
        raise BadInput("body: expected a JSON object", code="not_an_object")
    return body


def query_whole(raw: str, name: str, low: int, high: int) -> int:
    """The query parameter ``name`` (text ``raw``) as a whole number from ``low`` to ``high``."""
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS:
        raise BadInput(
            f"{name}: {clip(raw, 40)!r} is not a whole number",
            name,
            code="whole_number",
            value=raw,
        )
    value = int(text)
    if not low <= value <= high:
        raise BadInput(
            f"{name}: must be between {low} and {high}",
            name,
            code="out_of_range",
            value=value,
            low=low,
            high=high,
        )
    return value

"""The journal's encoding: every event and the whole table as JSON, losslessly.

Events and the table are frozen dataclasses of a few kinds of value: numbers, text,
booleans, None, tuples, frozensets and other such dataclasses (``hub.core.events`` and
``hub.core.state``). Each dataclass becomes an object tagged with its class name
(``{"_": "Tapped", "slot": 3, "at": 12.5}``), a tuple a list, a frozenset
``{"set": [...]}``; decoding reverses it. Floats survive exactly (JSON writes the
shortest repr that reads back the same). A game option's value is a bool or an
int, so no list hides among them where a tuple was meant.
"""

from __future__ import annotations

import dataclasses
from typing import Any, get_args

from hub.core import events, state

TAG = "_"
SET = "set"


class CodecError(ValueError):
    """A record that does not decode into an event or a table (damaged, or written by
    another version of the hub)."""


def _registry() -> dict[str, type]:
    """Every dataclass of the events and the table, by class name."""
    found: dict[str, type] = {}
    for module in (events, state):
        for name, value in vars(module).items():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and (value.__module__ == module.__name__)
            ):
                found[name] = value
    return found


CLASSES = _registry()
_FIELDS = {name: tuple(f.name for f in dataclasses.fields(cls)) for name, cls in CLASSES.items()}


def encode(value: object) -> Any:
    """``value`` (an event, a table, or anything inside one) as JSON-ready data."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple):
        return [encode(v) for v in value]
    if isinstance(value, frozenset):
        return {SET: sorted((encode(v) for v in value), key=repr)}
    name = type(value).__name__
    names = _FIELDS.get(name)
    if names is None or CLASSES[name] is not type(value):
        raise CodecError(f"{type(value).__qualname__}: not an event or table type")
    found = {TAG: name}
    for field_name in names:
        found[field_name] = encode(getattr(value, field_name))
    return found


def decode(data: Any) -> Any:
    """The value :func:`encode` made ``data`` from; :class:`CodecError` if it is not one."""
    if data is None or isinstance(data, bool | int | float | str):
        return data
    if isinstance(data, list):
        return tuple(decode(v) for v in data)
    if not isinstance(data, dict):
        raise CodecError(f"unexpected {type(data).__name__} in a record")
    if set(data) == {SET} and isinstance(data[SET], list):
        return frozenset(decode(v) for v in data[SET])
    name = data.get(TAG)
    cls = CLASSES.get(name) if isinstance(name, str) else None
    if cls is None or not isinstance(name, str):
        raise CodecError(f"unknown record type {name!r}")
    values = {k: decode(v) for k, v in data.items() if k != TAG}
    if set(values) != set(_FIELDS[name]):
        raise CodecError(f"{name}: fields {sorted(values)}, expected {sorted(_FIELDS[name])}")
    try:
        return cls(**values)
    except TypeError as exc:
        raise CodecError(f"{name}: {exc}") from None


def decode_event(data: Any) -> events.Event:
    """An event from a record; :class:`CodecError` when it is anything else."""
    event = decode(data)
    if type(event) not in EVENT_TYPES:
        raise CodecError(f"{type(event).__name__}: not an event")
    return event  # type: ignore[no-any-return]


def decode_table(data: Any) -> state.Table:
    """A table from a checkpoint record; :class:`CodecError` when it is anything else."""
    table = decode(data)
    if not isinstance(table, state.Table):
        raise CodecError(f"{type(table).__name__}: not a table")
    return table


EVENT_TYPES: tuple[type, ...] = get_args(events.Event)
"""The events the loop applies (and so the journal holds)."""

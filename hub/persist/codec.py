"""The journal's encoding: every event and the whole table as JSON, losslessly.

Events and the table are frozen dataclasses of a few kinds of value: numbers, text,
booleans, None, tuples, frozensets and other such dataclasses (``hub.core.events`` and
``hub.core.state``). Each dataclass becomes an object tagged with its class name
(``{"_": "Tapped", "slot": 3, "at": 12.5}``), a tuple a list, a frozenset
``{"set": [...]}``; decoding reverses it. Floats survive exactly (JSON writes the
shortest repr that reads back the same). A game option's value is a bool or an
int, so no list hides among them where a tuple was meant.

A journal written before the undo named its action as data holds a moment's ``what``
in words the hub itself wrote (``"marker slot 2 present True"``): :func:`legacy_action`
reads those back into an :class:`~hub.core.news.Action`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, get_args

from hub.core import events, news, state
from hub.core.news import SOME_ACTION, Action, Fixed, Kind

TAG = "_"
SET = "set"


class CodecError(ValueError):
    """A record that does not decode into an event or a table (damaged, or written by
    another version of the hub)."""


def _registry() -> dict[str, type]:
    """Every dataclass of the events and the table, by class name."""
    found: dict[str, type] = {}
    for module in (events, state, news):
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
# Fields added since journals were first written (an older record lacks them: their
# defaults stand), and fields gone (an older record's are dropped: a waiting claim
# never outlives a restart anyway).
_ADDED = {"Table": {"actions", "claims"}, "Moment": {"stamp"}, "Claim": {"at"}}
_GONE = {"Table": {"claim"}}


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
    if cls is state.Moment and isinstance(values.get("what"), str):
        values["what"] = legacy_action(values["what"])
    for gone in _GONE.get(name, set()) & set(values):
        del values[gone]
    known = set(_FIELDS[name])
    if not set(values) <= known or not known - _ADDED.get(name, set()) <= set(values):
        raise CodecError(f"{name}: fields {sorted(values)}, expected {sorted(_FIELDS[name])}")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:  # ValueError: a word no enum of news knows
        raise CodecError(f"{name}: {exc}") from None


# The fields an old journal's ``what`` named after its kind, in the order written.
_LEGACY_FIELDS = ("what", "slot", "held_s", "present", "public", "covers_left")


def legacy_action(words: str) -> Action:
    """The action an old journal's moment named in words (``"tap slot 3"``,
    ``"fix what public slot 2 public True"``, ``"round-over round 2 went_out Ann"``,
    ``"table action"``): the hub wrote them as ``kind`` then ``name value`` pairs."""
    head, _, rest = words.partition(" ")
    try:
        kind = Kind(head)
    except ValueError:  # "table action": a change no log entry named
        return SOME_ACTION
    found: dict[str, str] = {}
    if kind is Kind.ROUND_OVER:  # last, the name that went out (it may hold spaces)
        _, _, went_out = rest.partition(" went_out ")
        found["went_out"] = went_out
    else:
        tokens = rest.split(" ")
        for name, value in zip(tokens[::2], tokens[1::2], strict=False):
            if name in _LEGACY_FIELDS:
                found[name] = value
    flag = {"True": True, "False": False}
    slot = found.get("slot", "")
    fixed = found.get("what", "")
    return Action(
        kind,
        slot=int(slot) if slot.isdigit() else None,
        present=flag.get(found.get("present", "")),
        fixed=Fixed(fixed) if fixed in {f.value for f in Fixed} else None,
        public=flag.get(found.get("public", "")),
        went_out=None if found.get("went_out", "None") == "None" else found["went_out"],
    )


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

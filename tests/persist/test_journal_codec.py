"""The journal's codec: every event type and the whole table survive a round trip
through JSON unchanged (values drawn from each field's type by hypothesis), and tables
of real games do too."""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub import core
from hub.core import state
from hub.core.events import ButtonChanged, MarkersRead, Tapped
from hub.core.news import Action, Fixed, Kind
from hub.persist.codec import (
    CLASSES,
    EVENT_TYPES,
    CodecError,
    decode,
    decode_event,
    decode_table,
    encode,
)

OPTION = st.one_of(st.booleans(), st.integers(-100, 100))  # a game option's value
FLOATS = st.floats(allow_nan=False, allow_infinity=False)


def strategy(hint: object) -> st.SearchStrategy[typing.Any]:
    """Values of type ``hint`` as the events' and the table's fields declare them."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is type(None) or hint is None:
        return st.none()
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(-(2**40), 2**40)
    if hint is float:
        return FLOATS
    if hint is str:
        return st.text(max_size=12)
    if hint is object:
        return OPTION
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(strategy(a) for a in args))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(strategy(args[0]), max_size=4).map(tuple)
        return st.tuples(*(strategy(a) for a in args))
    if origin is frozenset:
        return st.frozensets(strategy(args[0]), max_size=4)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return dataclass_strategy(hint)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    raise AssertionError(f"no strategy for {hint!r}: teach the test (and the codec)")


def dataclass_strategy(cls: type) -> st.SearchStrategy[typing.Any]:
    hints = typing.get_type_hints(cls)
    fields = {
        f.name: st.deferred(lambda h=hints[f.name]: strategy(h)) for f in dataclasses.fields(cls)
    }
    return st.builds(cls, **fields)


def round_trip(value: object) -> object:
    return decode(json.loads(json.dumps(encode(value))))


def test_every_event_type_is_a_frozen_dataclass_the_codec_knows():
    assert len(EVENT_TYPES) >= 15 and ButtonChanged in EVENT_TYPES
    for cls in EVENT_TYPES:
        assert CLASSES[cls.__name__] is cls
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_event_survives_a_round_trip(cls, data):
    event = data.draw(dataclass_strategy(cls))
    back = decode_event(json.loads(json.dumps(encode(event))))
    assert type(back) is cls and back == event


@settings(max_examples=40, deadline=None)
@given(table=dataclass_strategy(state.Table))
def test_any_table_survives_a_round_trip(table):
    back = decode_table(json.loads(json.dumps(encode(table))))
    assert back == table


def test_tables_of_a_real_game_survive_a_round_trip():
    """Every table a scripted round goes through (doubles, history, markers)."""
    from hub.core.events import GameStarted

    table = core.new_table()
    started = GameStarted(
        game_id=1,
        rules="consensus",
        players=("Ann", "Bob"),
        seats=(1, 3),
        mexican_slot=8,
        set_max=6,
        rounds=2,
        at=1.0,
        first=1,
        options=(("chickenfoot", False),),
    )
    events = [started, MarkersRead((False,) * 8, 1.0)]
    t = 2.0
    for slot, held in [(1, 0.2), (3, 1.5), (1, 0.2), (3, 0.2), (1, 0.2)]:
        events += [ButtonChanged(slot, True, t), ButtonChanged(slot, False, t + held)]
        t += held + 1.0
    for event in events:
        table, _ = core.apply(table, event)
        assert round_trip(table) == table
    assert table.history  # the round's moments were in it


@pytest.mark.parametrize(
    "data, why",
    [
        ({"_": "Nonsense"}, "unknown record type"),
        ({"_": "Tapped", "slot": 1}, "fields"),
        ({"_": "Tapped", "slot": 1, "at": 1.0, "more": 2}, "fields"),
        ([1, 2], "not an event"),
        ({"no": "tag"}, "unknown record type"),
    ],
)
def test_what_is_not_an_event_is_refused(data, why):
    with pytest.raises(CodecError, match=why):
        decode_event(data)


def test_a_table_record_must_hold_a_table():
    with pytest.raises(CodecError, match="not a table"):
        decode_table(encode(Tapped(1, 2.0)))


OLD_MOMENT = {  # a moment as a journal written before the undo named its action as data
    "_": "Moment",
    "game": None,
    "turn": 2,
    "doubles": [],
    "first_turns_left": 0,
    "went_out": None,
    "out_pending": None,
    "by_hand": {"set": []},
    "one_tile": {"set": []},
    "last_end": None,
    "lifted": None,
    "plays": [],
}


@pytest.mark.parametrize(
    "words, action",
    [
        ("tap slot 3", Action(Kind.TAP, 3)),
        ("hold slot 2 held_s 1.5", Action(Kind.HOLD, 2)),
        ("long-hold slot 0", Action(Kind.LONG_HOLD, 0)),
        ("marker slot 2 present True", Action(Kind.MARKER, 2, present=True)),
        ("marker slot 5 present False", Action(Kind.MARKER, 5, present=False)),
        ("fix what turn slot 3", Action(Kind.FIX, 3, fixed=Fixed.TURN)),
        (
            "fix what public slot 2 public False",
            Action(Kind.FIX, 2, fixed=Fixed.PUBLIC, public=False),
        ),
        ("fix what double slot None", Action(Kind.FIX, fixed=Fixed.DOUBLE)),
        (
            "fix what double slot 4 covers_left 2 responsible 1",
            Action(Kind.FIX, 4, fixed=Fixed.DOUBLE),
        ),
        ("round-over round 2 went_out Ann Lee", Action(Kind.ROUND_OVER, went_out="Ann Lee")),
        ("round-over round 2 went_out None", Action(Kind.ROUND_OVER)),
        ("table action", Action(None)),
        ("", Action(None)),
    ],
)
def test_an_old_journals_moment_names_its_action_as_data(words, action):
    moment = decode({**OLD_MOMENT, "what": words})
    assert isinstance(moment, state.Moment) and moment.what == action
    assert type(moment.what.kind) is type(action.kind)
    assert round_trip(moment) == moment  # and is written back as data


def test_a_word_no_kind_knows_is_a_damaged_record():
    record = {**OLD_MOMENT, "what": {"_": "Action", **Action(Kind.TAP, 1).__dict__}}
    assert decode(record).what == Action(Kind.TAP, 1)
    record["what"] = {**record["what"], "kind": "somersault"}
    with pytest.raises(CodecError, match="Action"):
        decode(record)


def test_what_is_not_a_journal_type_does_not_encode():
    with pytest.raises(CodecError, match="not an event or table type"):
        encode(object())


def test_a_table_written_before_the_stamps_and_claims_decodes():
    """The undo's stamps and claims side by side came later: an older checkpoint takes
    their defaults, and its one waiting claim (always None by then) is dropped."""
    from hub.core.events import GameStarted

    table, _ = core.apply(
        core.new_table(),
        GameStarted(1, "consensus", ("Ann", "Bob"), (1, 2), None, 12, 13, at=0.0),
    )
    record = encode(table)
    del record["actions"], record["claims"]
    record["claim"] = None  # as the hub wrote it before several claims could wait
    old = decode_table(record)
    assert old.actions == 0 and old.claims == () and old.game == table.game
    record["surprise"] = 1  # a field no version wrote is still damage
    with pytest.raises(CodecError):
        decode_table(record)

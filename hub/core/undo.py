"""Putting mistakes right: undo the last table action, and fix the table by hand.

Each table action that changes the play (whose turn, the open doubles, the phase, who
went out, the trains set public by hand, the last-tile calls) leaves a
:class:`~hub.core.state.Moment` in the round's bounded history; an undo (the centre
button's long hold, or the scorekeeper's phone) puts the latest back, so repeated
undos walk back through the round. Inputs are never undone: a marker on a sensor is
the truth. The scorekeeper's fixes (whose turn, the open double, a train's public flag
when its marker is missing) are table actions too, so a wrong fix can be undone.
"""

from __future__ import annotations

from functools import lru_cache

from hub.core import entries
from hub.core.effects import (
    Effect,
    LogEntry,
    PlaySound,
    PressRefused,
    RoundReopened,
    TablePlayed,
)
from hub.core.events import DoubleFixed, EngineSet, PublicFixed, SeatsRenamed, TurnFixed
from hub.core.news import ACTIONS, SOME_ACTION, Action, Fixed, Kind, Play, Sound
from hub.core.state import HISTORY, PLAYING, Double, Moment, Table, evolve
from scorer.errors import FieldError

Result = tuple[Table, list[Effect]]
Fix = TurnFixed | DoubleFixed | PublicFixed

PLAY = (
    "game",
    "turn",
    "doubles",
    "first_turns_left",
    "went_out",
    "out_pending",
    "by_hand",
    "one_tile",
    "last_end",
    "lifted",
)
# What makes an action worth undoing: ``last_end`` and ``lifted`` only qualify a later
# gesture, so a change to them alone is not a table action of its own.
CHANGES = PLAY[:8]


def record(before: Table, after: Table, effects: list[Effect]) -> Table:
    """``after`` with ``before``'s play in its history, when an action changed the play
    within one round (a new round or game starts a fresh history).

    This runs on every press, between the press and its sound: it reads the fields
    straight from the tables' dicts and builds the :class:`Moment` without its
    ``__init__`` (both frozen dataclasses, never mutated; see ``evolve``).
    """
    old, new = before.game, after.game
    if old is None or new is None or old.id != new.id or old.round != new.round:
        return after
    if after.history is not before.history:  # an undo: it is not an action itself
        return after
    was, now = before.__dict__, after.__dict__
    for f in CHANGES:
        a, b = was[f], now[f]
        if a is not b and a != b:
            break
    else:
        # A double on one's own train after lifting the marker (Galt's second
        # exception) changes only ``lifted``, the turn staying: a table action too.
        if not (was["lifted"] is not None and now["lifted"] is None):
            return after
    moment = object.__new__(Moment)
    plays = tuple(
        (e.game_id, e.round, e.player, e.kind) for e in effects if isinstance(e, TablePlayed)
    )
    stamp = before.actions + 1
    moment.__dict__.update({f: was[f] for f in PLAY}, what=_what(effects), plays=plays, stamp=stamp)
    history = before.history
    kept = (*history, moment) if len(history) < HISTORY else (*history[1 - HISTORY :], moment)
    return evolve(after, history=kept, actions=stamp)


def _what(effects: list[Effect]) -> Action:
    """The action, from its log entry: ``Action(Kind.TAP, slot=3)``."""
    for effect in effects:
        if isinstance(effect, LogEntry) and effect.kind in ACTIONS:
            return action_of(effect)
    return SOME_ACTION


def action_of(entry: LogEntry) -> Action:
    """The table action log ``entry`` names (one of :data:`hub.core.news.ACTIONS`)."""
    what = entry.what
    if isinstance(what, entries.TapEntry | entries.HoldEntry | entries.LongHoldEntry):
        return _gesture(entry.kind, what.slot)  # a press's path: made once each
    if isinstance(what, entries.MarkerEntry):
        return Action(Kind.MARKER, slot=what.slot, present=what.present)
    if isinstance(what, entries.FixEntry):
        return Action(Kind.FIX, slot=what.slot, fixed=what.what, public=what.public)
    if isinstance(what, entries.RoundOverEntry):
        return Action(Kind.ROUND_OVER, went_out=what.went_out)
    return Action(entry.kind)


@lru_cache(maxsize=32)
def _gesture(kind: Kind, slot: int) -> Action:
    return Action(kind, slot=slot)


def stamp(table: Table) -> int:
    """The stamp of the action the next undo takes back (0: nothing to undo)."""
    return table.history[-1].stamp if table.history else 0


def moved_since(table: Table, seen: int | None, stamped: int | None = None) -> FieldError | None:
    """Why an undo asked for by a phone that saw ``seen`` actions to undo (the
    snapshot's ``undo``) and, as the last of them, the action stamped ``stamped`` (its
    ``undo_stamp``) must not be done: the table has taken or lost an action since, and
    the undo would take back one the asker never saw. The stamp names the action
    itself, so an undo and a new action since (the same count again) are seen too.
    None: it is that table."""
    now, last = len(table.history), stamp(table)
    if (seen is None or now == seen) and (stamped is None or last == stamped):
        return None
    field = "undo" if stamped is None else "stamp"
    then, now = (seen, now) if stamped is None else (stamped, last)
    return FieldError(
        f"undo: the table changed since this phone looked ({field} {then} then, "
        f"{now} now): look again",
        field,
        code="undo_moved",
        then=then,
        now=now,
    )


def undo(table: Table, at: float, by: str, pressed: int | None = None) -> Result:
    """Put back the play before the round's last table action (``turn_back``).

    ``pressed``: the button whose press asked for it (the centre's long hold), refused
    with :class:`PressRefused` when there is nothing to undo; None for a request that
    is no press (a phone, MQTT)."""
    game = table.running_game
    if game is None or not table.history:
        why = "nothing to undo in this round"
        refused: list[Effect] = [] if pressed is None else [PressRefused(pressed)]
        return table, [
            PlaySound(Sound.NOPE),
            *refused,
            LogEntry(entries.UndoEntry(by, None, why), at),
        ]
    moment = table.history[-1]
    restored = evolve(table, history=table.history[:-1], **{f: getattr(moment, f) for f in PLAY})
    if restored.game is not None and restored.game.engine_set != game.engine_set:
        # The engine is the scorekeeper's, in the store too: an undo keeps it.
        restored = evolve(restored, game=evolve(restored.game, engine_set=game.engine_set))
    effects: list[Effect] = [
        PlaySound(Sound.TURN_BACK),
        LogEntry(entries.UndoEntry(by, moment.what.as_json()), at),
        *(  # the statistics too
            TablePlayed(gid, rnd, player, Play(kind), undone=True)
            for gid, rnd, player, kind in moment.plays
        ),
    ]
    if (
        game.phase == "round-over"
        and restored.game is not None
        and (restored.game.phase in PLAYING)
    ):
        effects.append(RoundReopened(game.id, game.round))
    return restored, effects


def fix_refusal(table: Table, fix: Fix) -> FieldError | None:
    """Why ``fix`` cannot be made on ``table`` now, or None when it can: the refusal's
    ``field`` is the request's (``turn``, ``public``, ``double``)."""
    field = (
        "turn"
        if isinstance(fix, TurnFixed)
        else "public"
        if isinstance(fix, PublicFixed)
        else "double"
    )
    game = table.game
    if game is None or game.phase not in PLAYING:
        return FieldError("no round is being played", code="fix_no_round")
    seats = game.seats
    slot = fix.slot
    if isinstance(fix, TurnFixed):
        if fix.slot in seats:
            return None
        return FieldError(
            f"slot {slot}: no player sits there", field, code="fix_no_player", slot=slot
        )
    if isinstance(fix, PublicFixed):
        if fix.slot not in seats:
            why = f"slot {slot}: only a player's train has a marker"
            return FieldError(why, field, code="fix_not_a_train", slot=slot)
        if not fix.public and table.marker(fix.slot):
            why = f"slot {slot}: a marker sits there; take it off instead"
            return FieldError(why, field, code="fix_marker_there", slot=slot)
        return None
    if fix.slot is None:
        return (
            None if table.doubles else FieldError("no double is open", field, code="fix_no_double")
        )
    if fix.slot not in seats and fix.slot != game.mexican:
        why = f"slot {slot}: neither a player's train nor the Mexican Train"
        return FieldError(why, field, code="fix_no_train", slot=slot)
    if not 1 <= fix.covers_left <= 3:
        why = f"covers_left {fix.covers_left}: 1 to 3"
        return FieldError(why, field, code="fix_covers", value=fix.covers_left)
    if fix.responsible is not None and fix.responsible not in seats:
        why = f"responsible {fix.responsible}: no player sits there"
        return FieldError(why, field, code="fix_responsible", slot=fix.responsible)
    if fix.responsible is None and table.turn is None:
        why = "responsible: say who must cover it (nobody's turn yet)"
        return FieldError(why, field, code="fix_who_covers")
    return None


def fix(table: Table, event: Fix) -> Result:
    """Set the table right by hand: whose turn, the open double, a public flag."""
    error = fix_refusal(table, event)
    if error is not None:
        refused = entries.FixRefusedEntry(event.by, error.code, str(error))
        return table, [LogEntry(refused, event.at)]
    if isinstance(event, TurnFixed):
        table = evolve(table, turn=event.slot, last_end=None, lifted=None)
        what = entries.FixEntry(Fixed.TURN, event.slot, event.by)
    elif isinstance(event, PublicFixed):
        flags = table.by_hand | {event.slot} if event.public else table.by_hand - {event.slot}
        table = evolve(table, by_hand=flags)
        what = entries.FixEntry(Fixed.PUBLIC, event.slot, event.by, public=event.public)
    else:
        table, what = _fix_double(table, event)
    return table, [LogEntry(what, event.at)]


def _fix_double(table: Table, event: DoubleFixed) -> tuple[Table, entries.FixEntry]:
    if event.slot is None:
        return evolve(table, doubles=()), entries.FixEntry(Fixed.DOUBLE, None, event.by)
    responsible = event.responsible if event.responsible is not None else table.turn
    assert responsible is not None
    double = Double(event.slot, event.covers_left, responsible)
    table = evolve(table, doubles=(double,), turn=responsible, last_end=None, lifted=None)
    fixed = entries.FixEntry(
        Fixed.DOUBLE, event.slot, event.by, None, event.covers_left, responsible
    )
    return table, fixed


def set_engine(table: Table, event: EngineSet) -> Result:
    """The scorekeeper named this round's engine: the table shows it from now on."""
    game = table.running_game
    if game is None:
        return table, []
    table = evolve(table, game=evolve(game, engine_set=event.engine))
    return table, [LogEntry(entries.EngineSetEntry(game.round, event.engine, event.by), event.at)]


def rename_seats(table: Table, event: SeatsRenamed) -> Result:
    """A player of the game on the table was forgotten: the table shows the store's
    anonymous names from now on, in its undo history too (nothing else changes)."""
    game = table.game
    if game is None or game.id != event.game_id:
        return table, []
    names = dict(event.renamed)
    players = tuple(names.get(name, name) for name in game.players)
    history = tuple(
        evolve(
            moment,
            game=moment.game and evolve(moment.game, players=players),
            plays=tuple((g, r, names.get(who, who), kind) for g, r, who, kind in moment.plays),
        )
        for moment in table.history
    )
    return evolve(table, game=evolve(game, players=players), history=history), []

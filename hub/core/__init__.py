"""The pure core: ``apply(table, event) -> (table, effects)``.

Imports only the standard library and itself; never reads a clock, sleeps, locks
or does I/O (a test enforces it). Inputs are debounced here, gestures classified,
and the table rules applied; the loop thread is the only caller.
"""

from __future__ import annotations

from hub.core import claim, entries, gestures, reading, turns, undo
from hub.core.effects import Effect, LogEntry, PlaySound
from hub.core.events import (
    CENTRE,
    ButtonChanged,
    ButtonLost,
    ClaimRequested,
    DoubleFixed,
    EngineSet,
    Event,
    GameEnded,
    GameResumed,
    GameStarted,
    Gesture,
    LongHeld,
    MarkerChanged,
    MarkersRead,
    PlayerWentOut,
    PublicFixed,
    RoundBlocked,
    RoundScored,
    SeatsRenamed,
    TurnFixed,
    UndoRequested,
)
from hub.core.news import Sound
from hub.core.state import (
    PLAYING,
    Double,
    Game,
    MarkerInput,
    Table,
    Timings,
    evolve,
)
from scorer.profiles import PROFILES, SLOTS

__all__ = ["apply", "next_deadline", "new_table", "snapshot"]

Result = tuple[Table, list[Effect]]


def new_table(timings: Timings | None = None) -> Table:
    """An empty table: no game, nothing pressed, no markers."""
    return Table(timings=timings or Timings())


def apply(table: Table, event: Event) -> Result:
    """Apply ``event``; return the new table and the effects to carry out."""
    before = table
    effects: list[Effect] = []
    at = event.at
    if table.due is not None and table.due <= at:
        table, effects = _tick(table, at)  # deadlines before this event fire first
    table, more = _apply(table, event)
    effects += more
    if table.game is not None and not isinstance(event, EngineSet):
        table = undo.record(before, table, effects)
    undone = any(isinstance(e, PlaySound) and e.name is Sound.TURN_BACK for e in effects)
    effects += _derived_effects(before, table, at, chime=not undone)
    if (
        table.buttons is not before.buttons
        or table.markers is not before.markers
        or table.centre is not before.centre
        or table.claims is not before.claims
    ):
        table = evolve(table, due=claim.with_deadline(_scan(table), table))
    return table, effects


def _apply(table: Table, event: Event) -> Result:
    if isinstance(event, ButtonChanged):
        return _button(table, event)
    if isinstance(event, ButtonLost):
        return _button_lost(table, event.slot), []
    if isinstance(event, MarkerChanged):
        markers = list(table.markers)
        markers[event.slot - 1] = gestures.marker_edge(
            markers[event.slot - 1], event.present, event.at
        )
        return evolve(table, markers=tuple(markers)), []
    if isinstance(event, MarkersRead):
        read = tuple(MarkerInput(raw=p, raw_at=event.at, present=p) for p in event.present)
        return evolve(table, markers=read), []
    if isinstance(event, GameStarted | GameResumed):
        return _game(table, event)
    if isinstance(event, RoundScored):
        return turns.next_round(table, event.at, event.engine)
    if isinstance(event, UndoRequested):
        return undo.undo(table, event.at, event.by)
    if isinstance(event, TurnFixed | DoubleFixed | PublicFixed):
        return undo.fix(table, event)
    if isinstance(event, EngineSet):
        return undo.set_engine(table, event)
    if isinstance(event, SeatsRenamed):
        return undo.rename_seats(table, event)
    if isinstance(event, ClaimRequested):
        return claim.request(table, event)
    if isinstance(event, RoundBlocked | PlayerWentOut):
        out = event.slot if isinstance(event, PlayerWentOut) else None
        game = table.game
        if game is None or game.phase not in PLAYING or out not in (None, *game.seats):
            return table, []
        return turns.round_over(table, out, event.at)
    if isinstance(event, GameEnded):
        if table.game is None:
            return table, []
        game = evolve(table.game, phase="finished")
        return evolve(table, game=game, turn=None, doubles=()), []
    return table, []


def _button(table: Table, event: ButtonChanged) -> Result:
    if event.slot == CENTRE:
        inp, found = gestures.button_edge(
            CENTRE, table.centre, event.pressed, event.at, _centre_timings(table.timings)
        )
        return _gestures(evolve(table, centre=inp), found)
    buttons = list(table.buttons)
    inp, found = gestures.button_edge(
        event.slot, buttons[event.slot - 1], event.pressed, event.at, table.timings
    )
    buttons[event.slot - 1] = inp
    return _gestures(evolve(table, buttons=tuple(buttons)), found)


def _button_lost(table: Table, slot: int) -> Table:
    if slot == CENTRE:
        return evolve(table, centre=gestures.button_lost(table.centre))
    buttons = list(table.buttons)
    buttons[slot - 1] = gestures.button_lost(buttons[slot - 1])
    return evolve(table, buttons=tuple(buttons))


def _gestures(table: Table, found: list[Gesture]) -> Result:
    effects: list[Effect] = []
    for g in found:
        if isinstance(g, LongHeld) and g.slot == CENTRE:
            table, more = undo.undo(table, g.at, "centre", pressed=CENTRE)
            more.insert(0, LogEntry(entries.LongHoldEntry(CENTRE), g.at))
        else:
            table, more = turns.on_gesture(table, g)
        effects += more
    return table, effects


def _centre_timings(timings: Timings) -> Timings:
    """The centre button's own long hold (undo) replaces the slots' one."""
    return evolve(timings, long_hold=timings.centre_long_hold)


def next_deadline(table: Table) -> float | None:
    """The earliest time the core needs a :class:`ClockTicked`, or None."""
    return table.due


def _scan(table: Table) -> float | None:
    """The earliest deadline of the 16 inputs (inline: this runs on every input event).

    A bounce window whose raw level already matches the accepted one would end with
    nothing to do: it is left out, so the loop thread does not wake for it (the next
    edge of that input closes it; ``gestures.button_edge`` reads the time, not a tick).
    """
    best = None
    for button in (*table.buttons, table.centre):
        t = button.settle_at
        if t is not None and button.raw != button.pressed and (best is None or t < best):
            best = t
        if not button.consumed:
            t = button.long_at
            if t is not None and (best is None or t < best):
                best = t
    flicker = table.timings.flicker
    for marker in table.markers:
        if marker.raw != marker.present:
            t = marker.raw_at + flicker
            if best is None or t < best:
                best = t
    return best


def _tick(table: Table, at: float) -> Result:
    """Fire every deadline up to ``at`` in time order."""
    effects: list[Effect] = []
    for _ in range(64):
        due = table.due
        if due is None or due > at:
            break
        table, more = _fire(table, due)
        effects += more
    return table, effects


def _fire(table: Table, due: float) -> Result:
    """Tick only the inputs whose deadline is ``due`` or earlier (and the claims: a
    chord completed, a window ended)."""
    table, granted = claim.complete(table, due)  # consumes its presses before their ticks
    table, expired = claim.expire(table, due)
    buttons, markers, found = list(table.buttons), list(table.markers), []
    timings = table.timings
    for i, slot in enumerate(SLOTS):
        when = gestures.button_deadline(buttons[i])
        if when is not None and when <= due:
            buttons[i], g = gestures.button_tick(slot, buttons[i], due, timings)
            found += g
        when = gestures.marker_deadline(markers[i], timings)
        if when is not None and when <= due:
            markers[i], g = gestures.marker_tick(slot, markers[i], due, timings)
            found += g
    centre = table.centre
    when = gestures.button_deadline(centre)
    if when is not None and when <= due:
        centre, g = gestures.button_tick(CENTRE, centre, due, _centre_timings(timings))
        found += g
    table = evolve(table, buttons=tuple(buttons), markers=tuple(markers), centre=centre)
    table = evolve(table, due=claim.with_deadline(_scan(table), table))
    table, effects = _gestures(table, sorted(found, key=lambda g: g.at))
    return table, granted + expired + effects


def _game(table: Table, ev: GameStarted | GameResumed) -> Result:
    options = dict(ev.options)
    options["first_named"] = ev.first is not None
    first = ev.first if ev.first is not None else ev.seats[0]
    round_no = ev.round if isinstance(ev, GameResumed) else 1
    engine = ev.engine if isinstance(ev, GameResumed) else None
    game = Game(
        id=ev.game_id,
        rules=ev.rules,
        players=ev.players,
        seats=ev.seats,
        # A profile without a Mexican Train has no slot for it (a game stored before
        # that was decided may name one: the slot is an empty one now).
        mexican_slot=ev.mexican_slot if PROFILES[ev.rules].mexican_train else None,
        set_max=ev.set_max,
        rounds=ev.rounds,
        round=round_no,
        first=first,
        phase="first-turn",
        options=tuple(sorted(options.items())),
        engine_set=engine,
    )
    log = LogEntry(entries.GameEntry(ev.game_id, ev.rules, ev.players), ev.at)
    table, effects = turns.start_round(table, game, ev.at)
    if isinstance(ev, GameResumed) and ev.round_over:
        table = evolve(table, game=evolve(game, phase="round-over"), turn=None)
    return table, [log, *effects]


def _derived_effects(before: Table, after: Table, at: float, chime: bool = True) -> list[Effect]:
    """The turn chime, read off the difference between two tables (the ring is drawn
    from the snapshot, by ``hub/io/lights.py``: no LED effects).

    A new game chimes its first turn even where the last game's turn stood; an undo,
    the centre's or the scorekeeper's alike, plays its own chime (``turn_back``) and
    no ``turn``.
    """
    effects: list[Effect] = []
    new_game = after.game is not None and (before.game is None or before.game.id != after.game.id)
    if (
        after.turn is not None
        and after.game is not None
        and (after.turn != before.turn or new_game)
    ):
        if chime:
            effects.append(PlaySound(Sound.TURN))
        player = after.game.owner(after.turn)
        effects.append(LogEntry(entries.TurnEntry(after.turn, player), at))
    return effects


def snapshot(table: Table, backend: str) -> dict[str, object]:
    """The hub snapshot served at ``GET /api/state`` (see docs/api.md)."""
    game = table.game
    double = table.doubles[0] if table.doubles else None
    timings = table.timings
    return {
        "backend": backend,
        # The hands' thresholds (the config's [gestures]): the page's virtual hub holds by these.
        "gestures": {
            "tap_max_ms": round(timings.tap_max * 1000),
            "long_hold_ms": round(timings.long_hold * 1000),
            "centre_long_hold_ms": round(timings.centre_long_hold * 1000),
        },
        "game": None if game is None else _game_json(game, table.first_turns_left),
        "turn": table.turn,
        "slots": [
            {
                "slot": s,
                "owner": game.owner(s) if game else None,
                "public": table.public(s),
                "marker": table.marker(s),
                "by_hand": s in table.by_hand,
                "one_tile": s in table.one_tile,
            }
            for s in SLOTS
        ],
        "double": None if double is None else _double_json(double),
        "doubles": [_double_json(d) for d in table.doubles],
        "went_out": game.owner(table.went_out) if game and table.went_out else None,
        "one_tile": sorted(table.one_tile),
        "undo": len(table.history),
        # The action the next undo takes back, by its own number (0: none): what a
        # phone's undo names, so an undo and a new action since are never mistaken.
        "undo_stamp": undo.stamp(table),
        # What the next undo takes back (the page words it): null with nothing to undo.
        "undoes": table.history[-1].what.as_json() if table.history else None,
        "mexican_at": None if game is None else game.mexican,
        # The claims waiting for the table's chord (the ring lights each); ``claim``:
        # the oldest of them, as before several could wait.
        "claim": {"slot": table.claims[0].slot} if table.claims else None,
        "claims": [{"slot": c.slot} for c in table.claims],
    }


def _game_json(game: Game, first_turns_left: int) -> dict[str, object]:
    return {
        "id": game.id,
        "rules": game.rules,
        "round": game.round,
        "rounds": game.rounds,
        "engine": game.engine,
        "phase": game.phase,
        "playing": game.phase in PLAYING,
        "set": game.set_max,
        "engine_named": reading.profile_of(game).engine_chosen,
        "players": list(game.players),
        "seats": list(game.seats),
        "mexican_slot": game.mexican_slot,
        "first_turns_left": first_turns_left if game.phase == "first-turn" else 0,
    }


def _double_json(double: Double) -> dict[str, object]:
    return {
        "slot": double.slot,
        "covers_left": double.covers_left,
        "responsible": double.responsible,
        "waiting": double.waiting,
        "queued": double.queued,
    }

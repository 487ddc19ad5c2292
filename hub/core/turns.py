"""The table rules: what a gesture means for whose turn it is and which double is open.

Each function takes the table and returns ``(table, effects)``. Turn changes and
LED states are derived from before/after in :func:`hub.core.apply`, so these only
say what changed in the game. See ``docs/rules.md`` for the profile decisions.
"""

from __future__ import annotations

from hub.core import entries
from hub.core.effects import Effect, LogEntry, PlaySound, RoundEnded, TrainPublic
from hub.core.events import CENTRE, Gesture, Held, MarkerPlaced, MarkerRemoved, Tapped
from hub.core.news import Play, Reason, Sound
from hub.core.reading import (
    active_double,
    called_last_tile,
    covered,
    dismissed,
    engine_placed,
    gesture_log,
    is_last_tile_call,
    keep_drawing,
    lifted_without_playing,
    marker_lifted,
    may_play,
    may_queue,
    must_keep_drawing,
    nope,
    pass_double,
    played,
    profile_of,
    reminder,
    satisfies_elsewhere,
    string_double,
    tap_was_a_pass,
    uncalled,
)
from hub.core.state import PLAYING, Double, Game, Table, evolve

Result = tuple[Table, list[Effect]]


def start_round(table: Table, game: Game, at: float) -> Result:
    """Begin ``game.round``: first-turn phase, the starter's turn (or null until the engine)."""
    game = evolve(game, phase="first-turn")
    table = evolve(
        table,
        game=game,
        turn=_round_starter(game),
        doubles=(),
        first_turns_left=len(game.seats),
        went_out=None,
        out_pending=None,
        by_hand=frozenset(),
        one_tile=frozenset(),
        last_end=None,
        lifted=None,
        history=(),
    )
    log = LogEntry(entries.RoundEntry(game.round, game.engine), at)
    return table, [log]


def _round_starter(game: Game) -> int | None:
    profile = profile_of(game)
    if profile.starter == "rotate":
        order = game.clockwise()
        return order[(order.index(game.first) + game.round - 1) % len(order)]
    if game.round == 1 and game.option("first_named"):
        return game.first
    return None


def next_round(table: Table, at: float, engine: int | None = None) -> Result:
    """The round was scored: start the next one (with ``engine`` when the store names
    it; after a round whose engine the table chose, the next lower double), or finish
    the game after the last."""
    game = table.game
    if game is None:
        return table, []
    if game.round >= game.rounds:
        table = evolve(
            table, game=evolve(game, phase="finished"), turn=None, doubles=(), history=()
        )
        return table, [LogEntry(entries.GameOverEntry(game.id), at)]
    if engine is None and game.engine_set is not None:
        engine = game.engine_set - 1 if game.engine_set > 0 else game.set_max
    return start_round(table, evolve(game, round=game.round + 1, engine_set=engine), at)


def round_over(table: Table, went_out: int | None, at: float) -> Result:
    """End the round: someone went out (their slot) or, with None, it was blocked."""
    game = table.game
    assert game is not None
    name = game.owner(went_out) if went_out is not None else None
    table = evolve(
        table,
        game=evolve(game, phase="round-over"),
        turn=None,
        doubles=(),
        went_out=went_out,
        out_pending=None,
    )
    log = LogEntry(entries.RoundOverEntry(game.round, name), at)
    return table, [log, RoundEnded(game.id, game.round, name)]


def on_gesture(table: Table, g: Gesture) -> Result:
    """Apply one classified gesture to the table."""
    log = gesture_log(g)
    table, ended = _string_went_on(table, g)
    if ended:
        log = LogEntry(entries.StringEndEntry(ended[0]), g.at)
        ended_log: list[Effect] = [log, *ended[1]]
        table, effects = on_gesture(table, g)
        return table, [*ended_log, *effects]
    if isinstance(g, MarkerPlaced | MarkerRemoved):
        table, effects = _marker(table, g)
        return table, [log, *effects]
    game = table.game
    if game is None or game.phase not in PLAYING:
        return table, [log]
    if isinstance(g, Tapped) and is_last_tile_call(table, g):
        return called_last_tile(table, g.slot, g.at, log)
    if g.slot == CENTRE:  # the centre stands for the Mexican Train
        mexican = game.mexican
        if mexican is None:  # none in this game: a tap or hold there means nothing
            table, effects = nope(table, CENTRE)
            return table, [log, *effects]
        g = (
            Tapped(mexican, g.at)
            if isinstance(g, Tapped)
            else (Held(mexican, g.held_s, g.at) if isinstance(g, Held) else g)
        )
    player, lifted = table.turn, table.lifted
    if player is None:
        table, effects = engine_placed(table, g)
    elif isinstance(g, Tapped):
        table, effects = _tap(table, g.slot, g.at)
        if table.turn != player:
            table = evolve(table, last_end=(player, g.at))
    elif isinstance(g, Held):
        table, effects = _hold(table, g.slot, g.at)
        if g.slot == player and table.turn == player and table.lifted == player:
            lifted = None  # a double on one's own train: it was played on; may go private
            table = evolve(table, lifted=None)
    else:
        table, effects = _long_hold(table, g.slot, g.at)
    if lifted == player and player is not None and table.turn != player:
        effects += lifted_without_playing(table, player, g)
    return table, [log, *effects]


def _string_went_on(table: Table, g: Gesture) -> tuple[Table, tuple[int, list[Effect]] | None]:
    """After a double in a first-turn string (``triples``): a tap on the player's own
    slot says the string went on past it (their next tile satisfied it: it closes) and
    ends there; a gesture anywhere else is the next player's, so the string ended on
    the double: the turn passes first and the double waits for its player's second
    turn. Returns the table and, when the turn passed, who played and its effects."""
    double, player = string_double(table), table.turn
    if double is None or player is None:
        return table, None
    if g.slot == player:
        if isinstance(g, Tapped):
            table = evolve(table, doubles=tuple(d for d in table.doubles if d is not double))
        return table, None
    table, effects = end_turn(table, g.at)
    return table, (player, effects)


def _tap(table: Table, slot: int, at: float) -> Result:
    player = table.turn
    assert player is not None
    double = active_double(table)
    if double is None:
        return end_turn(table, at) if may_play(table, slot, player) else nope(table, slot)
    if slot == double.slot:
        return end_turn(covered(table, double, 1), at)
    if satisfies_elsewhere(table, slot, player):
        return end_turn(covered(table, double, double.covers_left), at)
    if slot == player and must_keep_drawing(table, double):
        return keep_drawing(table, slot, at)
    if slot == player:
        return _failed_to_cover(table, double, at)
    return nope(table, slot)


def _failed_to_cover(table: Table, double: Double, at: float) -> Result:
    """The responsible player passes with a tap; remind them if the profile wants a
    marker (from everyone who fails, or from the doubler who cannot answer)."""
    game = table.game
    assert game is not None and table.turn is not None
    profile = profile_of(game)
    effects: list[Effect] = []
    must_mark = profile.fail_reminder or (profile.doubler_must_mark and double.player == table.turn)
    if must_mark and double.covers_done == 0 and not table.public(table.turn):
        reason = Reason.NO_MARKER if profile.fail_reminder else Reason.OWN_DOUBLE
        effects.append(PlaySound(Sound.REMINDER))
        effects.append(reminder(table.turn, at, reason))
    table, more = end_turn(table, at)
    return table, effects + more


def _hold(table: Table, slot: int, at: float) -> Result:
    """A double was played on train ``slot``: chicken, and the double opens.

    A hold on the open double's own slot cannot be a double played there (the only
    double matching it is itself): it says the double is dead, the last of its number,
    and needs no more covers. The turn stays with the player, who now plays normally.
    """
    game, player = table.game, table.turn
    assert game is not None and player is not None
    profile = profile_of(game)
    double = active_double(table)
    if double is not None and slot == double.slot:
        return dismissed(table, double, at)
    if double is not None and may_queue(table, double, slot, player):
        return _queued(table, slot, at)
    if double is None:
        legal = may_play(table, slot, player)
    else:
        legal = satisfies_elsewhere(table, slot, player)
    if not legal:
        return nope(table, slot)
    effects: list[Effect] = [PlaySound(Sound.CHICKEN), played(game, player, Play.DOUBLE)]
    if not profile.tracks_doubles:
        return table, effects
    if double is None and slot == player == table.lifted and profile.privatising_double_free:
        # Galt's second exception: a double that made one's own public train private
        # again (the marker came off this turn) needs no cover. The turn stays: the
        # player may still lay a tile on it, or anywhere they may, and any play (a tap
        # on their own slot when they have none) ends the turn.
        log = LogEntry(entries.DoubleFreeEntry(slot), at)
        return table, [*effects, log]
    if double is not None:
        table = covered(table, double, double.covers_left)
    if game.phase == "first-turn" and profile.double_waits_in_first_turn:
        # A double in the first turn's string: the string may go on (the next tile
        # satisfies it) or end on it (it waits for the player's second turn). The
        # turn stays, as under ``aces``; the next gesture says which (see
        # :func:`_string_went_on`).
        rest = tuple(d for d in table.doubles if d is not string_double(table))
        waiting = Double(slot, 1, player, waiting=True, player=player)
        return evolve(table, doubles=(*rest, waiting)), effects
    covers = profile.covers(dict(game.options), on_mexican=slot == game.mexican)
    opened = Double(slot, covers, player, player=player)
    return evolve(table, doubles=(opened, *table.doubles)), effects


def _queued(table: Table, slot: int, at: float) -> Result:
    """Doubled doubles: another double in the same turn waits behind the first; the
    player covers only the first, the next players the others, in order."""
    game, player = table.game, table.turn
    assert game is not None and player is not None
    queued = Double(slot, 1, player, player=player, queued=True)
    effects: list[Effect] = [PlaySound(Sound.CHICKEN), played(game, player, Play.DOUBLE)]
    log = LogEntry(entries.DoubleQueuedEntry(slot, len(table.doubles)), at)
    return evolve(table, doubles=(*table.doubles, queued)), [*effects, log]


def _long_hold(table: Table, slot: int, at: float) -> Result:
    """The turn owner went out: fanfare, and the round ends (``aces``: after first turns)."""
    game, player = table.game, table.turn
    assert game is not None and player is not None
    if slot != player:
        return nope(table, slot)
    effects: list[Effect] = [PlaySound(Sound.OUT)]
    if uncalled(table, game, player):
        # Noted, not sounded: the seeds' penalty (draw two) applies only before the
        # next player draws, so a reminder now, as the round ends, comes too late.
        effects.append(reminder(player, at, Reason.LAST_TILE, uncalled=True))
    if game.phase == "first-turn" and profile_of(game).out_waits_first_turns:
        first_out = player if table.out_pending is None else table.out_pending
        table, more = end_turn(evolve(table, out_pending=first_out), at)
        return table, effects + [e for e in more if e != PlaySound(Sound.OUT)]
    table, more = round_over(table, player, at)
    return table, effects + more


def _marker(table: Table, g: MarkerPlaced | MarkerRemoved) -> Result:
    """Public state follows the sensor; the turn owner marking their own train ends the
    turn. Only a train's owner takes its marker off: anyone else's lifting is reminded."""
    game = table.game
    if game is not None and g.slot == game.mexican_slot:
        return table, []
    if g.slot in table.by_hand:  # the sensor is the truth again
        table = evolve(table, by_hand=table.by_hand - {g.slot})
    if isinstance(g, MarkerRemoved):
        return marker_lifted(table, g)
    effects: list[Effect] = [PlaySound(Sound.CHOO), TrainPublic(g.slot)]
    if game is None or game.phase not in PLAYING:
        return table, effects
    double = active_double(table)
    if table.turn == g.slot and double is not None and must_keep_drawing(table, double):
        return keep_drawing(table, g.slot, g.at)  # the train is public (the sensor)
    if table.turn != g.slot:
        passed = tap_was_a_pass(table, g.slot)
        if passed is None:
            return table, effects
        table = passed
        effects.append(LogEntry(entries.PassEntry(g.slot), g.at))
    table, more = end_turn(table, g.at)
    return table, effects + more


def end_turn(table: Table, at: float) -> Result:
    """The turn passes clockwise; responsibility for an open double goes with it."""
    game, player = table.game, table.turn
    assert game is not None and player is not None
    nxt = game.next_seat(player)
    left = table.first_turns_left - 1 if game.phase == "first-turn" else table.first_turns_left
    if game.phase == "first-turn" and left <= 0:
        game = evolve(game, phase="play")
    doubles = tuple(pass_double(d, nxt, game.phase) for d in table.doubles)
    table = evolve(
        table,
        game=game,
        turn=nxt,
        doubles=doubles,
        first_turns_left=max(left, 0),
        one_tile=table.one_tile - {player},
        lifted=None,
    )
    if game.phase == "play" and table.out_pending is not None:
        table, effects = round_over(table, table.out_pending, at)
        return table, [PlaySound(Sound.OUT), *effects]  # the round ends now: the fanfare
    return table, []

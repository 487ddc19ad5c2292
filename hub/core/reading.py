"""What the table says, for the turn rules (:mod:`hub.core.turns`): the profile of a
game, which double is open and who may answer it, what a tap or a marker means there,
and the small effects those rules share (a refusal, a log line). Pure reads of the
table; whose turn it is changes only in :mod:`hub.core.turns`.
"""

from __future__ import annotations

from hub.core import entries
from hub.core.effects import Effect, LogEntry, PlaySound, PressRefused, TablePlayed
from hub.core.events import Gesture, Held, LongHeld, MarkerPlaced, MarkerRemoved, Tapped
from hub.core.news import Action, Kind, Play, Reason, Sound
from hub.core.state import PLAYING, Double, Game, Table, evolve
from scorer.profiles import PROFILES, Profile

Result = tuple[Table, list[Effect]]
# The play a table action changed (``hub.core.undo.PLAY`` without the last-tile state).
RESTORED = ("game", "turn", "doubles", "first_turns_left", "went_out", "out_pending")


def profile_of(game: Game) -> Profile:
    """The rule profile the game is played under, with its variants switched on."""
    return PROFILES[game.rules].played(dict(game.options))


def string_double(table: Table) -> Double | None:
    """The double the turn owner laid in their first turn's string (``triples``), while
    that turn lasts: the string may still go on past it."""
    game, player = table.game, table.turn
    if game is None or game.phase != "first-turn" or player is None:
        return None
    for double in table.doubles:
        if double.waiting and double.player == player:
            return double
    return None


def lifted_without_playing(table: Table, player: int, g: Gesture) -> list[Effect]:
    """The turn owner lifted their marker and ended the turn without playing on their
    own train: every seed makes a train private only by its owner's play on it."""
    if g.slot == player or table.public(player) or table.game is None:
        return []
    if table.game.phase not in PLAYING:
        return []
    return [PlaySound(Sound.REMINDER), reminder(player, g.at, Reason.LIFTED)]


def reminder(slot: int, at: float, reason: Reason, uncalled: bool = False) -> LogEntry:
    """The log's reminder to ``slot``'s player: its ``reason`` (the page and the voice
    word it) and ``why``, the same in English for people reading the log; ``uncalled``:
    the ``uncalled`` entry (went out without calling the last tile)."""
    kind = entries.UncalledEntry if uncalled else entries.ReminderEntry
    return LogEntry(kind(slot, reason), at)


def is_last_tile_call(table: Table, g: Tapped) -> bool:
    """A second tap on one's own slot right after the tap that ended one's turn, unless
    the turn owner may play on that train now: then it is their play (a call is never
    taken for a play, nor a play lost to a call)."""
    last = table.last_end
    if last is None or last[0] != g.slot or g.at - last[1] > table.timings.last_tile:
        return False
    return table.turn is None or not accepts_tap(table, g.slot)


def accepts_tap(table: Table, slot: int) -> bool:
    """True when a tap on ``slot`` is a play (or a cover) for the turn owner."""
    player = table.turn
    assert player is not None
    double = active_double(table)
    if double is None:
        return may_play(table, slot, player)
    return slot in (double.slot, player) or satisfies_elsewhere(table, slot, player)


def called_last_tile(table: Table, slot: int, at: float, log: LogEntry) -> Result:
    """``slot``'s player announced their last tile ("uno"; the table is tapped)."""
    game = table.game
    assert game is not None
    table = evolve(table, one_tile=table.one_tile | {slot}, last_end=None)
    called = LogEntry(entries.LastTileEntry(slot, game.owner(slot)), at)
    return table, [log, PlaySound(Sound.LAST_TILE), called, played(game, slot, Play.LAST_TILE)]


def played(game: Game, slot: int, kind: Play) -> TablePlayed:
    """``slot``'s player made a play the statistics count (see :class:`TablePlayed`)."""
    return TablePlayed(game.id, game.round, str(game.owner(slot)), kind)


def gesture_log(g: Gesture) -> LogEntry:
    if isinstance(g, Tapped):
        return LogEntry(entries.TapEntry(g.slot), g.at)
    if isinstance(g, Held):
        return LogEntry(entries.HoldEntry(g.slot, round(g.held_s, 3)), g.at)
    if isinstance(g, LongHeld):
        return LogEntry(entries.LongHoldEntry(g.slot), g.at)
    present = isinstance(g, MarkerPlaced)
    return LogEntry(entries.MarkerEntry(g.slot, present), g.at)


def nope(table: Table, slot: int) -> Result:
    """A refused press on ``slot``: the table stays as it is."""
    return table, [PlaySound(Sound.NOPE), PressRefused(slot)]


def engine_placed(table: Table, g: Gesture) -> Result:
    """Round start, turn unknown: a tap on one's own slot says who placed the engine."""
    game = table.game
    assert game is not None
    if not isinstance(g, Tapped) or g.slot not in game.seats:
        return nope(table, g.slot)
    starter = g.slot
    if profile_of(game).starter == "engine-left":
        starter = game.next_seat(g.slot)
    log = LogEntry(entries.EngineEntry(g.slot, game.owner(g.slot)), g.at)
    return evolve(table, turn=starter), [log]


def active_double(table: Table) -> Double | None:
    """The double that must be covered now, if any (waiting and queued ones do not
    bind yet)."""
    for double in table.doubles:
        if not (double.waiting or double.queued):
            return double
    return None


def may_queue(table: Table, double: Double, slot: int, player: int) -> bool:
    """Doubled doubles: ``player`` laid ``double`` this turn and has not covered it;
    another double on a train open to them (not one where a double waits) joins the
    queue behind it."""
    game = table.game
    assert game is not None
    return (
        profile_of(game).doubled_doubles
        and double.player == player
        and double.responsible == player
        and not double.went_round
        and double.covers_done == 0
        and all(d.slot != slot for d in table.doubles)
        and may_play(table, slot, player)
    )


def must_keep_drawing(table: Table, double: Double) -> bool:
    """Continuous draw: ``double`` went round the table uncovered and is its player's
    again; they draw until they can cover it, so no failure of theirs is accepted."""
    game = table.game
    return (
        game is not None
        and profile_of(game).continuous_draw
        and double.went_round
        and double.player is not None
        and double.responsible == double.player == table.turn
    )


def keep_drawing(table: Table, slot: int, at: float) -> Result:
    """The doubler's pass or marker while they must keep drawing: refused, and said."""
    log = reminder(slot, at, Reason.DRAW)
    return table, [PlaySound(Sound.NOPE), PressRefused(slot), log]


def may_play(table: Table, slot: int, player: int) -> bool:
    """True when ``player`` may play a tile on train ``slot`` with no double pending."""
    game = table.game
    assert game is not None
    if slot == player or slot == game.partner(player):
        return True
    if game.phase == "first-turn":
        profile = profile_of(game)
        if slot == game.mexican:
            return profile.mexican_in_first_turn
        if not profile.public_in_first_turn:
            return False
    return table.public(slot)


def satisfies_elsewhere(table: Table, slot: int, player: int) -> bool:
    """``satisfy`` profiles: a tile on another public train (or the Mexican) satisfies."""
    game = table.game
    assert game is not None
    return profile_of(game).after_double == "satisfy" and slot != player and table.public(slot)


def covered(table: Table, double: Double, covers: int) -> Table:
    left = double.covers_left - covers
    rest = tuple(d for d in table.doubles if d is not double)
    if left <= 0:
        return evolve(table, doubles=next_in_queue(rest, table.turn))
    done = evolve(double, covers_left=left, covers_done=double.covers_done + covers)
    return evolve(table, doubles=(done, *rest))


def next_in_queue(doubles: tuple[Double, ...], turn: int | None) -> tuple[Double, ...]:
    """The open double was closed: the first queued one (doubled doubles) is the one
    to cover now, the turn owner's (a cover ends the turn: the next player's)."""
    for i, double in enumerate(doubles):
        if double.queued:
            now = evolve(double, queued=False, responsible=turn or double.responsible)
            return (now, *doubles[:i], *doubles[i + 1 :])
    return doubles


def dismissed(table: Table, double: Double, at: float) -> Result:
    rest = tuple(d for d in table.doubles if d is not double)
    table = evolve(table, doubles=next_in_queue(rest, table.turn))
    log = LogEntry(entries.DoubleDeadEntry(double.slot), at)
    return table, [PlaySound(Sound.TURN), log]  # the player plays on: their turn again


def uncalled(table: Table, game: Game, player: int) -> bool:
    """True when ``player`` goes out having held a single tile without calling it, as
    far as the hub can tell: the call is in force (``mexicantrainfun``; ``consensus``
    with the ``last_tile_call`` option), it was not made, and the player did not lay a
    double this turn (a double and its cover went out together: never a single tile)."""
    if not profile_of(game).last_tile_call(dict(game.options)) or player in table.one_tile:
        return False
    return not any(d.player == player and opened_this_turn(table, d, player) for d in table.doubles)


def opened_this_turn(table: Table, double: Double, player: int) -> bool:
    """True when ``double`` was laid in ``player``'s current turn (the round's history
    reaches a moment of this turn without it)."""
    for moment in reversed(table.history):
        if moment.turn != player:
            return False
        if not any(d.slot == double.slot and d.player == player for d in moment.doubles):
            return True
    return False


def tap_was_a_pass(table: Table, slot: int) -> Table | None:
    """A doubler who cannot answer their own double puts their marker down (every
    profile that tracks doubles). When they tapped their own slot first (as a follower
    passes under ``mexicantrainfun``) and the tap, the table's last action, closed
    their double on their own train, the marker says the tap was a pass: the table
    before the tap (the double still open, their turn), which the marker then ends
    like any failing doubler's. None otherwise."""
    game = table.game
    last = table.history[-1] if table.history else None
    if game is None or last is None or not profile_of(game).tracks_doubles:
        return None
    if last.turn != slot or last.what != Action(Kind.TAP, slot) or table.doubles:
        return None
    own = [d for d in last.doubles if d.slot == slot and d.player == slot and not d.waiting]
    if not own or own[0].covers_done != 0:
        return None
    if own[0].went_round and profile_of(game).continuous_draw:
        return None  # it came back uncovered: its player draws until they cover it
    return evolve(table, **{f: getattr(last, f) for f in RESTORED})


def marker_lifted(table: Table, g: MarkerRemoved) -> Result:
    game, turn = table.game, table.turn
    if game is None or game.phase not in PLAYING or turn is None:
        return table, []
    if turn == g.slot:
        return evolve(table, lifted=g.slot), []
    if game.owner(g.slot) is None or just_played_own(table, g.slot):
        return table, []
    return table, [PlaySound(Sound.REMINDER), reminder(g.slot, g.at, Reason.PRIVATE)]


def just_played_own(table: Table, slot: int) -> bool:
    """True when the table's last action was ``slot``'s owner playing on their own
    train, which ended their turn: lifting their marker now is the natural next move."""
    last = table.history[-1] if table.history else None
    return last is not None and last.turn == slot and last.what == Action(Kind.TAP, slot)


def pass_double(double: Double, nxt: int, phase: str) -> Double:
    if double.waiting:
        if phase == "play" and double.responsible == nxt:
            return evolve(double, waiting=False)
        return double
    if double.queued:
        return double
    return evolve(double, responsible=nxt, went_round=double.went_round or nxt != double.player)

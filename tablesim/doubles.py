"""The open double's rules in a simulated round: opening one, the moves of the player
who must answer it, a cover (or, in ``triples``, a play elsewhere that satisfies it), a
dead double, and whether failing to answer obliges a marker.

:class:`~tablesim.round.Round` keeps the one open double (a
:class:`~tablesim.table.OpenDouble`), passes the turn and its responsibility on and
makes the gestures; these functions decide, and change only the double and the
tiles on the table they are given.
"""

from __future__ import annotations

from tablesim.config import GameConfig
from tablesim.profiles import OracleProfile
from tablesim.table import Layout, Move, OpenDouble
from tablesim.tiles import is_double


def opened(table: Layout, config: GameConfig, player: int, slot: int, value: int) -> OpenDouble:
    """``player`` laid the double of ``value`` on train ``slot``: only covers go on it
    now (as many as the train needs), and ``player`` answers it first."""
    table.take_end(slot, value)
    return OpenDouble(slot, value, config.covers_on(slot), player, player)


def legal_moves(
    table: Layout, config: GameConfig, double: OpenDouble | None, p: int, public: set[int]
) -> list[Move]:
    """``p``'s legal moves: the covers of ``double`` when ``p`` must answer it (with
    ``satisfy``, also a tile on another ``public`` train); else a tile on every train
    open to ``p``, doubles left out while a double waits."""
    if double is not None and double.responsible == p:
        moves = []
        if may_queue(config, double, p):  # doubled doubles: more doubles before the cover
            more = table.moves_on(p, config.open_trains(p, public))
            moves += [m for m in more if is_double(m.tile)]
        moves += table.cover_moves(p, double)
        if config.profile.after_double == "satisfy":
            moves += table.moves_on(p, config.public_others(p, public))
        return moves
    # A double waiting for its player's second turn (triples): no second double.
    return table.moves_on(p, config.open_trains(p, public), doubles=double is None)


def may_queue(config: GameConfig, double: OpenDouble, p: int) -> bool:
    """Doubled doubles: ``p`` laid ``double`` this turn and has not covered it, so may
    lay further doubles, which wait behind it."""
    return (
        config.profile.doubled_doubles
        and double.player == p
        and not double.went_round
        and double.covers_done == 0
    )


def keeps_drawing(config: GameConfig, double: OpenDouble | None, p: int) -> bool:
    """Continuous draw: ``double`` went round uncovered and is its player ``p``'s again:
    they draw until they can cover it."""
    return (
        config.profile.continuous_draw
        and double is not None
        and double.went_round
        and double.responsible == double.player == p
    )


def answered(table: Layout, double: OpenDouble, move: Move) -> bool:
    """The responsible player laid ``move``: a cover, or (triples) a tile elsewhere that
    satisfies ``double``. True when the double is closed by it."""
    if move.covers:
        double.covers_left -= 1
        double.covers_done += 1
        return double.covers_left == 0
    table.give_end(double.slot, double.value)
    return True


def dead(table: Layout, double: OpenDouble | None, p: int) -> bool:
    """``p`` must cover ``double`` and nobody ever can: no tile of its number is left in
    a hand or the boneyard."""
    return double is not None and double.responsible == p and not table.holds(double.value)


def must_mark(profile: OracleProfile, double: OpenDouble | None, p: int) -> bool:
    """Whether failing now obliges ``p`` to mark their train public."""
    if double is None or double.responsible != p:
        return True
    if double.covers_done > 0:
        return False  # chickenfoot: the 2nd and 3rd covers need no marker
    if profile.after_double == "answer":
        return p == double.player
    return True

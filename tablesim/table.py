"""The tiles on the table in one round: hands, boneyard and trains.

A train is keyed by its hub slot (a player's, or the Mexican Train's) and has one or
more open ends (a chickenfoot double leaves three). While a tracked double is open
its end is taken off the train: the only way onto it is a cover (:data:`COVER`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from tablesim.tiles import Tile, is_double, matches, other_end

COVER = -1


@dataclass(frozen=True)
class Move:
    """Lay ``tile`` on train ``slot``: at open end index ``end``, or on the double (COVER)."""

    tile: Tile
    slot: int
    end: int

    @property
    def covers(self) -> bool:
        """True when the tile goes on the open double of train ``slot``."""
        return self.end == COVER


@dataclass
class Train:
    """One train: its slot, its owner (None for the Mexican Train) and its open ends."""

    slot: int
    owner: int | None
    ends: list[int]
    tiles: list[Tile] = field(default_factory=list)


@dataclass
class OpenDouble:
    """A double waiting for covers on train ``slot``; ``player`` played it."""

    slot: int
    value: int
    covers_left: int
    player: int
    responsible: int
    covers_done: int = 0
    went_round: bool = False  # the responsibility has left its player


class Layout:
    """Hands, boneyard and trains of one round, with the legal placements of tiles."""

    def __init__(
        self,
        engine: int,
        hands: dict[int, list[Tile]],
        boneyard: list[Tile],
        mexican_slot: int | None,
    ) -> None:
        self.engine = engine
        self.hands = hands
        self.boneyard = boneyard
        self.trains = {slot: Train(slot, slot, [engine]) for slot in hands}
        if mexican_slot is not None:
            self.trains[mexican_slot] = Train(mexican_slot, None, [engine])

    def draw(self, player: int) -> Tile | None:
        """Take the top boneyard tile into ``player``'s hand; None if the boneyard is empty."""
        if not self.boneyard:
            return None
        drawn = self.boneyard.pop()
        self.hands[player].append(drawn)
        return drawn

    def holds(self, value: int) -> bool:
        """True while a tile showing ``value`` is in a hand or the boneyard."""
        tiles = [t for hand in self.hands.values() for t in hand] + self.boneyard
        return any(matches(t, value) for t in tiles)

    def moves_on(self, player: int, slots: Iterable[int], doubles: bool = True) -> list[Move]:
        """Every placement of ``player``'s tiles on the open ends of trains ``slots``.

        ``doubles=False`` leaves doubles out unless the double is the last tile.
        """
        hand = self.hands[player]
        last = len(hand) == 1
        moves = []
        for slot in slots:
            for end, value in enumerate(self.trains[slot].ends):
                moves += [
                    Move(t, slot, end)
                    for t in hand
                    if matches(t, value) and (doubles or last or not is_double(t))
                ]
        return moves

    def cover_moves(self, player: int, double: OpenDouble) -> list[Move]:
        """Every tile of ``player``'s that covers ``double`` (a double never can)."""
        return [Move(t, double.slot, COVER) for t in self.hands[player] if matches(t, double.value)]

    def play(self, player: int, move: Move) -> None:
        """Lay a tile at an open end; a double leaves the same value open."""
        train = self._lay(player, move)
        value = train.ends[move.end]
        train.ends[move.end] = other_end(move.tile, value)

    def cover(self, player: int, move: Move, double: OpenDouble) -> None:
        """Lay a tile on ``double``: its far end becomes one of the train's open ends."""
        train = self._lay(player, move)
        train.ends.append(other_end(move.tile, double.value))

    def take_end(self, slot: int, value: int) -> None:
        """A tracked double was laid at end ``value`` of train ``slot``: only covers go on."""
        self.trains[slot].ends.remove(value)

    def give_end(self, slot: int, value: int) -> None:
        """A double was satisfied elsewhere: its open face is an ordinary end again."""
        self.trains[slot].ends.append(value)

    def take_back(self, player: int, slot: int) -> Tile:
        """Undo the last tile laid on train ``slot`` (a double: the open end is unchanged)."""
        last = self.trains[slot].tiles.pop()
        self.hands[player].append(last)
        return last

    def hand(self, player: int) -> Sequence[Tile]:
        """``player``'s tiles."""
        return self.hands[player]

    def _lay(self, player: int, move: Move) -> Train:
        self.hands[player].remove(move.tile)
        train = self.trains[move.slot]
        train.tiles.append(move.tile)
        return train


def longest_string(
    hand: Sequence[Tile],
    start: int,
    prefer: Callable[[list[Tile]], Tile],
    budget: int = 5000,
) -> list[Tile]:
    """The longest string of ``hand``'s tiles laid end to end from ``start``.

    A depth-first search that tries ``prefer``'s pick first at every step (so a bot
    breaks ties) and gives up after ``budget`` steps with the longest string found:
    dense hands on small sets have too many strings to try them all.
    """
    best: list[Tile] = []
    path: list[Tile] = []
    left = list(hand)
    steps = 0

    def extend(value: int) -> None:
        nonlocal best, steps
        steps += 1
        if len(path) > len(best):
            best = path.copy()
        fits = [t for t in left if matches(t, value)]
        if fits:
            first = prefer(fits)
            fits.remove(first)
            fits.insert(0, first)
        for t in fits:
            if steps > budget or len(best) == len(hand):
                return
            left.remove(t)
            path.append(t)
            extend(other_end(t, value))
            path.pop()
            left.append(t)

    extend(start)
    return best

"""Bots: each picks one of the legal moves the rules engine offers.

The engine decides everything the rules force (draw, mark, pass, which train a
double binds to); a bot only chooses among legal placements. Randomness comes only
from a bot's own ``random.Random(seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from tablesim.table import Move
from tablesim.tiles import pips


class Bot(Protocol):
    """Chooses one of ``moves`` (never empty)."""

    def choose(self, moves: Sequence[Move]) -> Move:
        """Return one element of ``moves``."""
        ...


class FirstLegal:
    """Plays the first legal move offered (own train first, then hand order)."""

    def choose(self, moves: Sequence[Move]) -> Move:
        """The first of ``moves``."""
        return moves[0]


class LargestPips:
    """Plays the tile with the most pips (the first such move on a tie)."""

    def choose(self, moves: Sequence[Move]) -> Move:
        """The first move laying the heaviest tile."""
        return max(moves, key=lambda m: pips(m.tile))


class RandomLegal:
    """Plays a legal move chosen by its own seeded random generator."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, moves: Sequence[Move]) -> Move:
        """A seeded random choice among ``moves``."""
        return self.rng.choice(moves)

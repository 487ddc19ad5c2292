"""The dealer of a simulated round: shuffle, deal each seat its hand, and say who
starts (or who holds the engine and so places it).

Two ways to deal, by profile: the engine set aside before the deal (its number known
from the round), or the whole set dealt and the highest double held becomes the
engine (``engine_chosen``, as in ``aces``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tablesim.config import GameConfig
from tablesim.table import Layout
from tablesim.tiles import Tile, full_set, is_double


@dataclass(frozen=True)
class DealtRound:
    """A dealt round: the tiles on the table, its engine, and the seat that found the
    engine in its hand (None: it was set aside before the deal)."""

    table: Layout
    engine: int
    found_by: int | None = None


def _hands(config: GameConfig, tiles: list[Tile]) -> tuple[dict[int, list[Tile]], list[Tile]]:
    """Each seat's hand off the top of the shuffled ``tiles``, and the boneyard left."""
    each = config.hand_size
    hands = {s: tiles[i * each : (i + 1) * each] for i, s in enumerate(config.seats)}
    return hands, tiles[len(config.seats) * each :]


def deal_set_aside(config: GameConfig, engine: int, rng: random.Random) -> DealtRound:
    """Set the engine aside, shuffle the rest, deal each seat its hand."""
    assert config.set_max is not None
    tiles = [t for t in full_set(config.set_max) if t != (engine, engine)]
    rng.shuffle(tiles)
    hands, boneyard = _hands(config, tiles)
    return DealtRound(Layout(engine, hands, boneyard, config.mexican), engine)


def deal_whole_set(config: GameConfig, rng: random.Random) -> DealtRound:
    """Deal the whole set; the engine is the highest double anyone holds (if nobody
    holds one, everyone draws until someone does), placed by whoever holds it."""
    assert config.set_max is not None
    tiles = full_set(config.set_max)
    rng.shuffle(tiles)
    hands, boneyard = _hands(config, tiles)
    while boneyard and not any(is_double(t) for h in hands.values() for t in h):
        for s in config.seats:
            if boneyard:
                hands[s].append(boneyard.pop())
    best = max(t for h in hands.values() for t in h if is_double(t))
    found_by = next(s for s in config.seats if best in hands[s])
    hands[found_by].remove(best)
    return DealtRound(Layout(best[0], hands, boneyard, config.mexican), best[0], found_by)


def starter(
    config: GameConfig, number: int, found_by: int | None, rng: random.Random
) -> tuple[int | None, int | None]:
    """(engine holder, starter) of round ``number``: one of them is known at its start."""
    seats, first = config.seats, config.first
    if config.profile.starter == "rotate":
        first = first if first is not None else seats[0]
        at = (seats.index(first) + number - 1) % len(seats)
        return None, seats[at]
    if number == 1 and first is not None:
        return None, first
    if found_by is not None:
        return found_by, None
    # The engine was set aside, so who "found" it is drawn by lot.
    return rng.choice(seats), None

"""Helpers for the tablesim tests: scripted rounds played to the end."""

from __future__ import annotations

from tablesim import FirstLegal, GameConfig, Round


def scripted(rules, hands, boneyard=(), number=1, **options):
    """A round with these hands (slot → tiles), FirstLegal bots and round 1 starting at 1."""
    seats = tuple(sorted(hands))
    options.setdefault("first", seats[0])
    options.setdefault("set_max", 12)
    config = GameConfig(rules, seats, **options)
    bots = {s: FirstLegal() for s in seats}
    rnd = Round.with_tiles(config, number, bots, hands, list(boneyard))
    rnd.calls = 0.0  # scripted players never call their last tile unless a test says so
    return rnd


def play(rnd, turns=None):
    """Play ``turns`` turns (default: to the round's end); return the steps."""
    steps = list(rnd.drain())
    rnd.begin()
    steps += rnd.drain()
    count = 0
    while not rnd.over and (turns is None or count < turns):
        rnd.play_turn()
        steps += rnd.drain()
        count += 1
    return steps


def actions(steps):
    """Only the actions of ``steps``."""
    return [a for a, _ in steps]

"""What a soak plays: a run (:class:`Spec`: the rules, how many games, the player
counts, the options, the seed) and each of its games (:class:`Plan`: a seed that fixes
its seats, deal, bots and the hand's timing), and the command that replays one game.

Pure tablesim: nothing here touches the hub; :mod:`tablesim.soak` plays the plans at it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from scorer.profiles import SLOTS
from tablesim import Bot, FirstLegal, GameConfig, LargestPips, RandomLegal
from tablesim.motions import Hand
from tablesim.profiles import PROFILES

BOTS = ("mixed", "first", "largest", "random")
MISTAKES = 0.03  # the share of gestures a wrong press comes before


@dataclass(frozen=True)
class Plan:
    """One soak game. Its seed fixes all but the player count and the run's options:
    seats, the Mexican slot, the starter, the double-blank value, the deal, the bots
    and the hand's timing. ``number`` is its place in the run."""

    number: int
    rules: str
    players: int
    seed: int
    rounds: int | None = None
    chickenfoot: bool = False
    partnerships: bool = False
    bots: str = "mixed"
    blanks: bool = False
    mistakes: float = MISTAKES
    variants: tuple[str, ...] = ()

    def game(self) -> tuple[GameConfig, dict[int, Bot], Hand]:
        """The simulator's set-up, one bot per seat, and the hand that plays them."""
        rng = random.Random(self.seed)
        seats = tuple(sorted(rng.sample(SLOTS, self.players)))
        free = [s for s in SLOTS if s not in seats]
        mexican = rng.choice(free) if free else None
        if not PROFILES[self.rules].has_mexican:
            mexican = None  # drawn all the same, so the other profiles' games stay as they were
        first = rng.choice(seats) if rng.random() < 0.5 else None
        config = GameConfig(
            self.rules,
            seats,
            seed=rng.getrandbits(32),
            mexican_slot=mexican,
            first=first,
            rounds=self.rounds,
            chickenfoot=self.chickenfoot,
            partnerships=self.partnerships,
            double_blank=rng.choice((0, 50) if self.blanks else (0, 25, 50)),
            blanks=self.blanks,
            variants=self.variants,
        )
        bots = {s: _bot(self.bots, rng) for s in seats}
        return config, bots, Hand(random.Random(rng.getrandbits(64)))


def _bot(kind: str, rng: random.Random) -> Bot:
    if kind == "mixed":
        kind = rng.choice(BOTS[1:])
    if kind == "first":
        return FirstLegal()
    if kind == "largest":
        return LargestPips()
    return RandomLegal(rng.getrandbits(32))


@dataclass(frozen=True)
class Spec:
    """A soak run: ``games`` games of ``rules``, each with a player count in ``players``
    and ``rounds`` rounds (None: the whole game)."""

    rules: str
    games: int
    players: tuple[int, int] = (2, len(SLOTS))
    seed: int = 1
    game_seed: int | None = None
    rounds: int | None = None
    chickenfoot: bool = False
    partnerships: bool = False
    bots: str = "mixed"
    blanks: bool = False
    mistakes: float = MISTAKES
    variants: tuple[str, ...] = ()  # the consensus variations switched on

    def plans(self) -> Iterator[Plan]:
        """Each game's plan, from the run's seed (the first one's seed may be given)."""
        rng = random.Random(self.seed)
        low, high = self.players
        counts = [n for n in range(low, high + 1) if not self.partnerships or n in (4, 6, 8)]
        if not counts:
            raise ValueError(f"partnerships: need 4, 6 or 8 players, not {low}..{high}")
        for number in range(1, self.games + 1):
            players, seed = rng.choice(counts), rng.getrandbits(32)
            if number == 1 and self.game_seed is not None:
                seed = self.game_seed
            yield Plan(
                number,
                self.rules,
                players,
                seed,
                self.rounds,
                self.chickenfoot,
                self.partnerships,
                self.bots,
                self.blanks,
                self.mistakes,
                self.variants,
            )

    def replay(self, plan: Plan) -> str:
        """The command that plays exactly ``plan``'s game again."""
        words = [
            "mtrain-hub soak",
            f"--rules {self.rules}",
            "--games 1",
            f"--players {plan.players}..{plan.players}",
            f"--seed {self.seed}",
            f"--game-seed {plan.seed}",
        ]
        words += [f"--rounds {self.rounds}"] if self.rounds is not None else []
        words += ["--chickenfoot"] * self.chickenfoot + ["--partnerships"] * self.partnerships
        words += ["--blanks"] * self.blanks
        words += [f"--variant {name}" for name in self.variants]
        words += [f"--mistakes {self.mistakes}"] if self.mistakes != MISTAKES else []
        words += [f"--bots {self.bots}"] if self.bots != "mixed" else []
        return " ".join(words)

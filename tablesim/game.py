"""A whole simulated game: rounds of :class:`~tablesim.round.Round`, as a step stream.

:func:`iter_actions` yields ``(action, truth)`` pairs: ``NewGame`` first, then every
gesture of every round, ``Blocked`` when a round is blocked, the markers taken back
(``MarkerOff``) and ``EnterScores`` with the round's tiles and points; the truth after
``EnterScores`` is the next round's start (or ``phase="finished"``).

Conventions where ``docs/rules.md`` leaves a choice or cannot express a play:

- The engine is set aside before shuffling. In the engine profiles (``aces``,
  ``mexicantrainfun``, ``triples``) whoever "found" it is drawn by seeded lot; they
  tap their own slot before anyone's first turn (``first`` skips this in round 1).
- First turns lay tiles on one's own train only. A ``string`` first turn is the
  longest string found (bounded search) and one gesture: a tap on one's own slot
  (``triples``: a hold if it ends on a double, which then waits for the player's
  second turn; ``aces``: a tap even so, no double is tracked).
- Going out is only the long hold on one's own slot, whatever the last tile was;
  ``mexicantrainfun`` players cannot go out on a double (it is held and answered).
  In ``aces``' first turn a second player emptying their hand also long-holds;
  ``went_out`` stays the first one.
- A player who lays a tile on their own public train lifts the marker first.
- Failing with the open double on one's own train: a tap there would read as a
  cover, so the player puts the marker down (lifting it first if it was down).
- Partnerships: a tile on the partner's train is a tap (hold) on the partner's slot;
  markers stay per player.
- With 8 players there is no free slot: the Mexican Train is played at the hub's
  centre (slot 0), a tap or hold on the centre button.
- ``aces``: the whole set is dealt; the engine is the highest double anyone holds
  (everyone draws until someone holds one), placed by its holder. When it is not
  the hub's default (the next lower double than last round's; double-N in round 1)
  the scorekeeper names it (``SetEngine``) before the holder's tap.
- ``mexicantrainfun``: a first turn may start the Mexican Train instead of one's own
  (not with a double); with chickenfoot a double on the Mexican Train needs 1 answer.
- ``consensus``: a double laid on one's own public train (the marker lifted first)
  needs no cover and ends the turn (Galt's second exception).
- A player whose turn ended with a tap and who holds one tile calls it (a quick
  second tap on their own slot, ``LastTile``) four times in five.
- Only one double is ever open: ``triples`` holds back a first-turn string's final
  double while another double waits, and nobody lays a double while one waits
  (unless it is their last tile). A ``triples`` double may satisfy an open one on a
  public train (a hold there).
- A dead double (nobody can ever cover it: no tile of its number is left in a hand
  or the boneyard) is closed by the player responsible for it, at their turn, with a
  hold on its slot (``docs/rules.md``); they then play on, or fail as usual. A player
  whose last tile was that double (``mexicantrainfun``) then goes out.
- A blocked round is announced with ``Blocked``; at every round's end the markers
  come off (``MarkerOff``) before ``EnterScores``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from tablesim.actions import Action, EnterScores, NewGame, RoundResult, Truth
from tablesim.bots import Bot, FirstLegal
from tablesim.config import GameConfig
from tablesim.round import Round

Bots = Bot | Sequence[Bot] | Mapping[int, Bot] | None
Step = tuple[Action, Truth]


class SimGame:
    """A game played by bots; :meth:`steps` plays it, :attr:`results` fills as it goes."""

    def __init__(self, config: GameConfig, bots: Bots = None) -> None:
        self.config = config
        self.bots = seat_bots(config.seats, bots)
        self.results: list[RoundResult] = []
        self.rng = random.Random(config.seed)

    def steps(self) -> Iterator[Step]:
        """Play every round, yielding each action with the truth after it."""
        assert self.config.rounds is not None
        current = Round(self.config, 1, self.rng, self.bots)
        yield NewGame(self.config), current.truth()
        for number in range(1, self.config.rounds + 1):
            current.begin()
            yield from current.drain()
            while not current.over:
                current.play_turn()
                yield from current.drain()
            result = current.result()
            self.results.append(result)
            current.clear_markers()
            yield from current.drain()
            if number < self.config.rounds:
                chosen = current.engine if self.config.profile.engine_chosen else None
                current = Round(self.config, number + 1, self.rng, self.bots, chosen)
                yield EnterScores(result), current.truth()
            else:
                yield EnterScores(result), self._finished(current)

    def _finished(self, last: Round) -> Truth:
        truth = last.truth()
        return Truth(
            None,
            truth.public,
            None,
            "finished",
            truth.round,
            truth.engine,
            truth.went_out,
            truth.one_tile,
        )


def seat_bots(seats: Sequence[int], bots: Bots) -> dict[int, Bot]:
    """One bot per seat: the same bot for all, one per seat in order, or by slot."""
    if bots is None:
        return {s: FirstLegal() for s in seats}
    if isinstance(bots, Mapping):
        missing = [s for s in seats if s not in bots]
        if missing:
            raise ValueError(f"bots: no bot for slots {missing}")
        return {s: bots[s] for s in seats}
    if isinstance(bots, Sequence):
        if len(bots) != len(seats):
            raise ValueError(f"bots: {len(bots)} bots for {len(seats)} seats")
        return dict(zip(seats, bots, strict=True))
    return {s: bots for s in seats}


def iter_actions(config: GameConfig, bots: Bots = None) -> Iterator[Step]:
    """Play a whole game; yield ``(action, truth)`` pairs (see the module docstring)."""
    return SimGame(config, bots).steps()


@dataclass(frozen=True)
class PlayedGame:
    """A played game: every step, and each round's result."""

    steps: tuple[Step, ...]
    results: tuple[RoundResult, ...]


def play_game(config: GameConfig, bots: Bots = None) -> PlayedGame:
    """Play a whole game and keep everything."""
    game = SimGame(config, bots)
    steps = tuple(game.steps())
    return PlayedGame(steps, tuple(game.results))

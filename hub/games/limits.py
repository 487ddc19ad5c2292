"""How fast a phone may make the hub write: corrections and new games (docs/storage.md,
"Writes a phone can repeat").

A correction of a scored round needs only its game's token, and a phone with no token
may start a game whenever none is running (and so own a game, and correct it). Each
such write lands on the SD card (the game's row, its history, a backup asked for), so
each is bounded by a :class:`Budget`: a burst, then one more every so many seconds.
Past it, :class:`TooFast` refuses the write (the API's 429, with ``Retry-After``)
and nothing is written. The budgets are far above what a family does in an evening:
one game at a time, a handful of corrections after it.

Finished games are bounded through the games started: a game finishes at most once.
The budgets live in memory (a restart forgets them) and read the hub's clock port.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

from scorer.errors import FieldError


@dataclass(frozen=True)
class Allowance:
    """``burst`` writes at once, then one more every ``every_s`` seconds."""

    burst: int
    every_s: float


CORRECTIONS_PER_GAME = Allowance(20, 2.0)  # a game's whole sheet put right, then 30 a minute
CORRECTIONS_IN_ALL = Allowance(40, 2.0)  # every game together: no more than one game
GAMES_STARTED = Allowance(20, 60.0)  # an evening of false starts, then one a minute
MOST_GAMES_TRACKED = 256  # per-game budgets kept; the full ones are dropped first


class Budget:
    """A token bucket: :attr:`Allowance.burst` tokens, one back every ``every_s`` seconds."""

    def __init__(self, rate: Allowance, now: float) -> None:
        self.rate = rate
        self._tokens = float(rate.burst)
        self._at = now

    def _refill(self, now: float) -> None:
        gained = max(0.0, now - self._at) / self.rate.every_s
        self._tokens = min(float(self.rate.burst), self._tokens + gained)
        self._at = max(self._at, now)

    def wait(self, now: float) -> float:
        """0 when a write may be made at ``now``, else the seconds until one may."""
        self._refill(now)
        return 0.0 if self._tokens >= 1.0 else (1.0 - self._tokens) * self.rate.every_s

    def spend(self) -> None:
        """Count one write (after :meth:`wait` said 0)."""
        self._tokens -= 1.0

    def full(self, now: float) -> bool:
        """True when nothing is spent (the budget can be forgotten)."""
        self._refill(now)
        return self._tokens >= self.rate.burst


class TooFast(FieldError):
    """A write beyond its budget (the API answers 429 with ``Retry-After``): nothing
    was written; its ``count`` param is the whole seconds until it may be asked again."""


def seconds(wait: float) -> int:
    """``wait`` as the whole seconds a refusal says (at least 1)."""
    return max(1, math.ceil(wait))


class WriteLimits:
    """The budgets of the writes a phone can repeat (thread-safe: any request thread).
    ``now``: monotonic seconds (the hub's clock port)."""

    def __init__(
        self,
        now: Callable[[], float],
        per_game: Allowance = CORRECTIONS_PER_GAME,
        in_all: Allowance = CORRECTIONS_IN_ALL,
        games: Allowance = GAMES_STARTED,
    ) -> None:
        self._now = now
        self._per_game = per_game
        self._lock = threading.Lock()
        start = now()
        self._in_all = Budget(in_all, start)
        self._games = Budget(games, start)
        self._by_game: dict[int, Budget] = {}

    def correction(self, game_id: int) -> None:
        """Count a correction of game ``game_id`` (a round already scored), or raise
        :class:`TooFast` (code ``too_many_corrections``) and count nothing."""
        now = self._now()
        with self._lock:
            mine = self._by_game.get(game_id) or Budget(self._per_game, now)
            wait = max(mine.wait(now), self._in_all.wait(now))
            if wait:
                raise TooFast(
                    f"game {game_id}: too many corrections just now",
                    code="too_many_corrections",
                    count=seconds(wait),
                    game=game_id,
                )
            mine.spend()
            self._in_all.spend()
            self._keep(game_id, mine, now)

    def new_game(self) -> None:
        """Count a game started, or raise :class:`TooFast` (``too_many_games``)."""
        now = self._now()
        with self._lock:
            wait = self._games.wait(now)
            if wait:
                why = "too many new games just now"
                raise TooFast(why, code="too_many_games", count=seconds(wait))
            self._games.spend()

    def _keep(self, game_id: int, budget: Budget, now: float) -> None:
        """Remember ``budget``; beyond :data:`MOST_GAMES_TRACKED`, forget the full ones,
        then the oldest (a forgotten budget starts full again; the budget of every game
        together still bounds them all)."""
        self._by_game[game_id] = budget
        if len(self._by_game) > MOST_GAMES_TRACKED:
            kept = [(k, b) for k, b in self._by_game.items() if not b.full(now)]
            self._by_game = dict(kept[-MOST_GAMES_TRACKED:])

"""The first turn of a round (:class:`tablesim.round.Round`'s, as its base class): each
player starts their own train with one tile or a string (the profile's
``first_turn``), the gestures that makes, and how the string's end reads at the hub.
The rest of the round (:mod:`tablesim.round`) gives it the table and its moves."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from tablesim import doubles
from tablesim.actions import (
    Action,
    DoubleTruth,
    Hold,
    LastTile,
    Tap,
    Truth,
)
from tablesim.bots import Bot
from tablesim.config import GameConfig
from tablesim.table import Layout, Move, OpenDouble, longest_string
from tablesim.tiles import Tile, is_double


class FirstTurns:
    """A round's first turns (see the module); :class:`~tablesim.round.Round` has
    the state and the moves named here."""

    table: Layout
    double: OpenDouble | None
    profile: Any
    rng: random.Random
    config: GameConfig
    markers: set[int]
    one_tile: set[int]
    calls: float
    chicken: float
    bots: Mapping[int, Bot]
    steps: list[tuple[Action, Truth]]
    _progress: bool

    @property
    def over(self) -> bool:
        raise NotImplementedError

    def truth(self) -> Truth:
        raise NotImplementedError

    def _emit(self, action: Action) -> None:
        raise NotImplementedError

    def _pick(self, player: int, legal: Callable[[], list[Move]]) -> Move | None:
        raise NotImplementedError

    def _mark(self, p: int, progress: bool = True) -> None:
        raise NotImplementedError

    def _end_turn(self, p: int, progress: bool) -> None:
        raise NotImplementedError

    def _out(self, p: int) -> None:
        raise NotImplementedError

    def _first_turn(self, p: int) -> None:
        """Start one's own train: one tile, or a string; else draw once, else marker."""
        string = self.profile.first_turn == "string"
        slot = p
        if string:
            placed = self._first_string(p)
        else:
            placed, slot = self._first_single(p)
        if not placed:
            self._mark(p)
        elif not self.table.hands[p]:
            self._out(p)
        elif string:
            self._string_played(p, placed)
        else:
            self._end_turn(p, True)
            self._tap_end(p, slot)

    def _string_played(self, p: int, placed: list[Tile]) -> None:
        """The gestures of a first-turn string: a hold (chicken) for a double inside
        it, now and then, the turn staying with p; then the tap that ends the string.
        ``triples``: a string that ends on a double ends with that double's hold (it
        waits for p's second turn), and the hub passes the turn when the next player
        acts."""
        waits = self.profile.string_double_waits  # triples: a double ending it waits
        # (With another player's double waiting, no hold: the hub keeps one double.)
        chicken = self.chicken if not (waits and self.double is not None) else 0.0
        for i, tile in enumerate(placed):
            last = i == len(placed) - 1
            if is_double(tile) and not (last and waits) and self.rng.random() < chicken:
                truth = self.truth()
                if waits:  # the hub keeps it until the string goes on
                    truth = replace(truth, double=DoubleTruth(p, 1, p))
                self.steps.append((Hold(p), truth))
        if waits and is_double(placed[-1]):
            self.double = doubles.opened(self.table, self.config, p, p, placed[-1][0])
            self._emit(Hold(p))
            self._end_turn(p, True)
            return
        self._end_turn(p, True)
        self._tap_end(p, p)

    def _first_single(self, p: int) -> tuple[list[Tile], int]:
        """One tile on one's own train (``mexican_in_first_turn``: or, not a double, on
        the Mexican Train)."""

        def legal() -> list[Move]:
            moves = self.table.moves_on(p, [p])
            if self.profile.mexican_in_first_turn:
                moves += self.table.moves_on(p, self.config.mexican_trains, doubles=False)
            return moves

        move = self._pick(p, legal)
        if move is None:
            return [], p
        self.table.play(p, move)
        return [move.tile], move.slot

    def _tap_end(self, p: int, slot: int) -> None:
        """p's turn ended with a tap on ``slot``; holding one tile, p mostly calls it
        (not on a public train of their own nor one with a double open on it: the next
        player's quick tap there is a play, so the hub reads none as a call)."""
        self._emit(Tap(slot))
        private = p not in self.markers and (self.double is None or self.double.slot != p)
        if (
            private
            and len(self.table.hands[p]) == 1
            and not self.over
            and self.rng.random() < self.calls
        ):
            self.one_tile.add(p)
            self._emit(LastTile(p))

    def _first_string(self, p: int) -> list[Tile]:
        """Lay the longest string on one's own train (the drawn tile may start it)."""
        if not self.table.moves_on(p, [p]):
            if self.table.draw(p) is None:
                return []
            self._progress = True
        bot = self.bots[p]
        placed = longest_string(
            self.table.hands[p],
            self.table.trains[p].ends[0],
            lambda fits: bot.choose([Move(t, p, 0) for t in fits]).tile,
        )
        for t in placed:
            self.table.play(p, Move(t, p, 0))
        waiting = self.double is not None and self.profile.tracks_doubles
        if waiting and placed and is_double(placed[-1]) and self.table.hands[p]:
            # Another first-turn double already waits: stop before this one rather
            # than leave two doubles open (the truth shows one).
            placed.remove(self.table.take_back(p, p))
        return placed

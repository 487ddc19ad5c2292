"""One round of Mexican Train, tile by tile, with the gestures each play makes.

:class:`Round` deals (:mod:`tablesim.dealer`), runs the turns of ``docs/rules.md``'s
profiles (who sits where: :class:`~tablesim.config.GameConfig`) and records each
gesture with the :class:`~tablesim.actions.Truth` the hub must show after it. The
gesture for a play is chosen so the hub's reading of it (the gesture table in
``docs/rules.md``) lands on the same truth; the module docstring of
:mod:`tablesim.game` lists the conventions. The open double's rules (opening,
answering, covering, who must mark) are :mod:`tablesim.doubles`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace

from hub.core.state import PHASES
from tablesim import dealer, doubles
from tablesim.actions import (
    Action,
    Blocked,
    DoubleTruth,
    Hold,
    LongHold,
    MarkerOff,
    MarkerOn,
    RoundResult,
    SetEngine,
    Tap,
    Truth,
)
from tablesim.bots import Bot
from tablesim.config import GameConfig
from tablesim.first_turns import FirstTurns
from tablesim.table import Layout, Move, OpenDouble
from tablesim.tiles import Tile, hand_points, is_double

FIRST, PLAY, OVER = PHASES[:3]  # the hub's phases (hub/core/state.py)
CALLS = 0.8  # how often a player remembers to call their last tile
CHICKEN = 0.5  # how often a double inside a first-turn string gets its hold (chicken)
TAP_PASS = 0.5  # how often a doubler who cannot answer on their own train taps first


class Round(FirstTurns):
    """Round ``number`` of a game: its tiles, markers, open double, phase and turn."""

    def __init__(
        self,
        config: GameConfig,
        number: int,
        rng: random.Random,
        bots: Mapping[int, Bot],
        last_engine: int | None = None,
    ) -> None:
        assert config.set_max is not None
        self.config, self.profile, self.bots, self.rng = config, config.profile, bots, rng
        self.number, self.engine = number, config.set_max - number + 1
        if last_engine is not None:  # the hub's default: the next lower double
            self.engine = last_engine - 1 if last_engine > 0 else config.set_max
        self.shown_engine = self.engine  # what the hub shows until the table names it
        self.seats = config.seats
        dealt = (
            dealer.deal_whole_set(config, rng)
            if self.profile.engine_chosen
            else dealer.deal_set_aside(config, self.engine, rng)
        )
        self.table, self.engine, self.found_by = dealt.table, dealt.engine, dealt.found_by
        self.markers: set[int] = set()
        self.one_tile: set[int] = set()
        self.calls = CALLS
        self.chicken, self.tap_pass = CHICKEN, TAP_PASS
        self.double: OpenDouble | None = None
        self.queue: list[OpenDouble] = []  # doubled doubles: the ones waiting, in order
        self.phase = FIRST
        self.went_out: int | None = None
        self.blocked = False
        self.first_left = len(self.seats)
        self.idle = 0
        self._progress = False
        self.steps: list[tuple[Action, Truth]] = []
        self.holder, self.turn = dealer.starter(config, number, self.found_by, rng)

    @classmethod
    def with_tiles(
        cls,
        config: GameConfig,
        number: int,
        bots: Mapping[int, Bot],
        hands: Mapping[int, list[Tile]],
        boneyard: list[Tile],
        holder: int | None = None,
    ) -> Round:
        """A round with chosen hands and boneyard (``boneyard[0]`` is drawn first).

        For tests and worked examples; ``holder`` places the engine in the engine
        profiles (default: the first seat), unless ``config.first`` names round 1's
        starter.
        """
        made = cls(config, number, random.Random(0), bots)
        made.chicken = made.tap_pass = 0.0  # the plain gestures; a test may ask for more
        made.engine = made.shown_engine
        made.table = Layout(
            made.engine,
            {s: list(hands[s]) for s in made.seats},
            list(reversed(boneyard)),
            config.mexican,
        )
        if made.holder is not None:
            made.holder = holder if holder is not None else made.seats[0]
        return made

    # -- set-up ---------------------------------------------------------------------

    def begin(self) -> None:
        """The scorekeeper names the engine if the hub cannot know it (``aces``); the
        engine holder (if the profile needs one) taps their slot: engine placed."""
        if self.engine != self.shown_engine:
            self.shown_engine = self.engine
            self._emit(SetEngine(self.number, self.engine))
        if self.holder is None:
            return
        holder_starts = self.profile.starter == "engine-holder"
        self.turn = self.holder if holder_starts else self.config.next_seat(self.holder)
        self._emit(Tap(self.holder))

    # -- what the hub shows -------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once someone went out or the round is blocked."""
        return self.phase == OVER

    def truth(self) -> Truth:
        """The hub's state as it must be now."""
        public = set(self.markers)
        if self.config.mexican_slot is not None:
            public.add(self.config.mexican_slot)
        d = self.double
        double = None if d is None else DoubleTruth(d.slot, d.covers_left, d.responsible)
        queued = tuple(DoubleTruth(q.slot, q.covers_left, q.responsible) for q in self.queue)
        went_out = self.went_out if self.phase == OVER else None
        return Truth(
            self.turn,
            frozenset(public),
            double,
            self.phase,
            self.number,
            self.shown_engine,
            went_out,
            frozenset(self.one_tile),
            queued,
        )

    def drain(self) -> Iterator[tuple[Action, Truth]]:
        """Hand out the steps recorded since the last drain."""
        steps, self.steps = self.steps, []
        return iter(steps)

    def _emit(self, action: Action) -> None:
        self.steps.append((action, self.truth()))

    # -- turns --------------------------------------------------------------------------

    def play_turn(self) -> None:
        """The turn owner plays one whole turn (bonus and covering plays included)."""
        assert self.turn is not None and not self.over
        self._progress = False
        if self.phase == FIRST:
            self._first_turn(self.turn)
        else:
            self._turn(self.turn)
        if self.phase == PLAY and not self.table.boneyard and self.idle >= len(self.seats):
            self._block()

    def _pick(self, player: int, legal: Callable[[], list[Move]]) -> Move | None:
        """The bot's choice among the legal moves, drawing once if there are none."""
        moves = legal()
        while not moves:
            drawn = self.table.draw(player)
            if drawn is None:
                return None
            self._progress = True
            moves = [m for m in legal() if m.tile == drawn]
            if not doubles.keeps_drawing(self.config, self.double, player):
                break  # one draw; continuous draw: until the double can be covered
        return self.bots[player].choose(moves) if moves else None

    def _turn(self, p: int) -> None:
        """A turn after the first: play, else draw and play, else mark (or pass)."""
        while True:
            if self._close_dead_double(p) and not self.table.hands[p]:
                self._out(p)  # a last-tile double that needs no answer: out
                return
            move = self._pick(p, lambda: self._legal(p))
            if move is None:
                self._fail(p)
                return
            if not self._place(p, move):
                return

    def _close_dead_double(self, p: int) -> bool:
        """p must cover a double nobody ever can (no tile of its number is left in a
        hand or the boneyard): p holds its slot, the hub closes it, p plays on."""
        d = self.double
        if d is None or not doubles.dead(self.table, d, p):
            return False
        self.double = self._next_double(p)
        self._progress = True
        self._emit(Hold(d.slot))
        return True

    def _legal(self, p: int) -> list[Move]:
        return doubles.legal_moves(self.table, self.config, self.double, p, self.markers)

    def _place(self, p: int, move: Move) -> bool:
        """Lay the tile and make its gesture; True when the same player goes on."""
        d, double = self.double, is_double(move.tile)
        self._progress = True
        if move.covers:
            assert d is not None
            self.table.cover(p, move, d)
        else:
            self.table.play(p, move)
        if not self.table.hands[p] and not (double and self.profile.after_double == "answer"):
            self._out(p)
            return False
        privatised = move.slot == p and p in self.markers
        if privatised:
            self.markers.discard(p)
            self._emit(MarkerOff(p))
        if double and d is not None and not move.covers and self.profile.doubled_doubles:
            # Doubled doubles: it waits behind the open one; p goes on (covers the first).
            self.table.take_end(move.slot, move.tile[0])
            self.queue.append(OpenDouble(move.slot, move.tile[0], 1, p, p))
            self._emit(Hold(move.slot))
            return True
        if d is not None and d.responsible == p and doubles.answered(self.table, d, move):
            self.double = self._next_double(p)
        if double and privatised and self.profile.privatising_double_free and d is None:
            # Galt's second exception: it made the train private again; no cover owed.
            # p may still lay a tile (on it or anywhere open to them); with none, p
            # ends the turn with a tap on their own slot.
            self._emit(Hold(move.slot))
            self._after_free_double(p)
            return False
        if double:
            if self.profile.tracks_doubles:
                self.double = doubles.opened(self.table, self.config, p, move.slot, move.tile[0])
            self._emit(Hold(move.slot))
            return True
        self._end_turn(p, True)
        self._tap_end(p, move.slot)
        return False

    def _next_double(self, p: int) -> OpenDouble | None:
        """The open double was closed: the first waiting one (doubled doubles) is to be
        covered now, by ``p`` until their turn ends (then by the next player)."""
        if not self.queue:
            return None
        nxt = self.queue.pop(0)
        nxt.responsible = p
        return nxt

    def _after_free_double(self, p: int) -> None:
        """p's play after a double that needed no cover: a tile if p has one (no
        draw: nothing is owed), else the tap that ends the turn."""
        moves = self._legal(p)
        if moves and self._place(p, self.bots[p].choose(moves)):
            self._turn(p)  # that tile was a double: p goes on as after any double
        elif not moves:
            self._end_turn(p, True)
            self._tap_end(p, p)

    def _fail(self, p: int) -> None:
        """No tile to lay after drawing: marker down, or pass with a tap."""
        d, had = self.double, p in self.markers
        if d is not None and d.slot == p:
            # A tap here would read as a cover of the double on p's own train: the
            # pass is shown by (lifting and) putting down p's marker instead.
            if had:
                self.markers.discard(p)
                self._emit(MarkerOff(p))
            elif (
                d.player == p
                and (d.covers_left, d.covers_done) == (1, 0)
                and not self.queue  # the hub reads the tap as the cover, the next double due
                and self.rng.random() < self.tap_pass
            ):
                # A tap first, as followers pass: the hub reads it as the answer until
                # the marker says it was a pass.
                self._emit_misread_answer(p)
            self._mark(p, progress=self._progress or not had)
        elif not had and doubles.must_mark(self.profile, self.double, p):
            self._mark(p)
        else:
            self._end_turn(p, self._progress)
            self._tap_end(p, p)

    def _emit_misread_answer(self, p: int) -> None:
        """A tap on p's own slot while p's double is open there: the hub reads it as
        the answer (the double closed, the next player's turn) until p's marker."""
        truth = self.truth()
        shown = replace(
            truth, turn=self.config.next_seat(p), double=None, one_tile=truth.one_tile - {p}
        )
        self.steps.append((Tap(p), shown))

    def _mark(self, p: int, progress: bool = True) -> None:
        self.markers.add(p)
        self._end_turn(p, progress)
        self._emit(MarkerOn(p))

    def _end_turn(self, p: int, progress: bool) -> None:
        """The turn passes clockwise; responsibility for an open double goes with it."""
        d = self.double
        bound = d is None or d.responsible == p
        self.idle = 0 if progress or not bound else self.idle + 1
        if self.phase == PLAY and d is not None and d.responsible == p:
            d.responsible = self.config.next_seat(p)
            d.went_round = d.went_round or d.responsible != d.player
        self.one_tile.discard(p)
        if self.phase == FIRST:
            self.first_left -= 1
            if self.first_left == 0:
                self.phase = PLAY if self.went_out is None else OVER
        self.turn = self.config.next_seat(p)
        if self.phase == OVER:
            self._close()

    # -- the end ------------------------------------------------------------------------

    def _out(self, p: int) -> None:
        """p laid their last tile: long hold (aces' first turn: the others finish theirs)."""
        if self.went_out is None:
            self.went_out = p
        if self.phase == FIRST and self.profile.out_waits_first_turns:
            self._end_turn(p, True)
        else:
            self.phase = OVER
            self._close()
        self._emit(LongHold(p))

    def _block(self) -> None:
        self.blocked = True
        self.phase = OVER
        self._close()
        self._emit(Blocked(self.number))

    def _close(self) -> None:
        self.turn = None
        self.double = None
        self.queue = []

    def clear_markers(self) -> None:
        """Everyone takes their marker back before the scores go in."""
        for slot in sorted(self.markers):
            self.markers.discard(slot)
            self._emit(MarkerOff(slot))

    def result(self) -> RoundResult:
        """Each seat's remaining tiles and points (partner of who went out: 0)."""
        hands = {s: tuple(self.table.hands[s]) for s in self.seats}
        points = {
            s: hand_points(h, self.config.double_blank, self.config.blanks)
            for s, h in hands.items()
        }
        if self.went_out is not None:
            points[self.went_out] = 0
            partner = self.config.partner(self.went_out)
            if partner is not None:
                points[partner] = 0
        return RoundResult(self.number, self.engine, self.went_out, self.blocked, hands, points)

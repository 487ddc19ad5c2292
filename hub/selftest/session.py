"""The self-test on the page: the running hub walks a person through its parts.

While a walk-through runs, the hub's input edges go to it instead of the table (a press
during the test plays no turn), its light steps show on the ring in place of the
table's lights, and its sounds play on the hub's speaker. When it ends (done or
stopped, or a game started meanwhile: its first edge ends the test and goes to the
table; a game started from a phone ends it at once, and the web layer lets only the
table's proof do that) the ring shows the table again and the markers are read afresh,
so the table knows where every marker is. It starts only while no game is unfinished,
and only with the table's proof (a claim at the hub; the web layer counts no game's
token: the newest game may be a stranger's own): a stranger's phone must not take the
hub's inputs (issue 25, LOW 15; issue 33, 11). Once started, the phone that started it
(the tokens it showed) or anyone with the proof answers it.

Before the first step every input's level is read: a button that reads pressed or a
sensor that reads a marker fails its steps at once, named, instead of after a wait.
With no hub box attached there is no ring to ask about: the lights steps are left out,
and the status says why.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from typing import Any

from hub.core.events import CENTRE, ButtonChanged, Event, MarkerChanged
from hub.selftest.steps import Wiring, plan, ring_frame
from hub.selftest.walkthrough import STUCK, Walkthrough
from scorer.errors import Refused

ACTIONS = ("start", "yes", "no", "skip", "stop")


class SelftestRefused(Refused):
    """An action the self-test cannot take now; ``status`` is the HTTP status."""


def _refused(code: str, status: int, why: str) -> SelftestRefused:
    """The refusal ``code`` of the body's ``action`` (``why``: the log's words)."""
    return SelftestRefused(status, f"action: {why}", "action", code=code)


class SelftestSession:
    """At most one walk-through of the running hub, driven from the page.

    ``show(pixels | None)`` puts a frame on the ring (None: the table's lights again),
    ``play(name)`` plays a sound, ``running_game()`` says whether a game is unfinished,
    ``reread_markers()`` tells the table to read the markers afresh, ``levels()`` lists
    the inputs that read active now (None: not known), ``ring`` says whether a hub box
    drives a ring, ``voice()`` says whether a walk-through starting now ends with the
    voice's step (``play("say")`` speaks).
    """

    def __init__(
        self,
        wiring: Wiring,
        *,
        show: Callable[[Any], None],
        play: Callable[[str], None],
        running_game: Callable[[], int | None],
        reread_markers: Callable[[], None],
        levels: Callable[[], list[tuple[str, int]] | None] = lambda: None,
        ring: bool = True,
        voice: Callable[[], bool] = lambda: False,
    ) -> None:
        self._wiring = wiring
        self._levels = levels
        self._ring = ring
        self._voice = voice
        self._stuck: list[tuple[str, int]] | None = None
        self._holders: frozenset[str] = frozenset()  # digests of the starter's tokens
        self._show = show
        self._play = play
        self._running_game = running_game
        self._reread = reread_markers
        self._walk: Walkthrough | None = None
        self._active = False
        self._lock = threading.RLock()

    def take(self, event: Event) -> bool:
        """An input edge: True when the self-test took it (the table must not see it)."""
        if not self._active or not isinstance(event, ButtonChanged | MarkerChanged):
            return False
        with self._lock:
            if self._walk is None or not self._active:
                return False
            if self._running_game() is not None:  # a game started: the table's again
                self._end()
                return False
            self._walk.feed(event)
            self._end_if_done()
            return True

    def status(self) -> dict[str, Any]:
        """``running``, the step waiting and the results (of the last run, when over)."""
        with self._lock:
            if self._walk is None:
                return {
                    "running": False,
                    "step": None,
                    "steps": 0,
                    "done": False,
                    "passed": False,
                    "results": [],
                }
            return {"running": self._active, **self._walk.status(), **self._found()}

    def _found(self) -> dict[str, Any]:
        """What the start found: the inputs active before any step (``stuck``: part,
        pin and what it reads; None: levels not known) and ``lights`` (false: no ring)."""
        stuck = None
        if self._stuck is not None:
            stuck = [
                {
                    "kind": kind,
                    "slot": slot,
                    "pin": self._wiring.input_pin("centre" if slot == CENTRE else f"{kind}s", slot),
                    "reads": STUCK["button" if kind == "button" else "marker-on"],
                }
                for kind, slot in self._stuck
            ]
        return {"stuck": stuck, "lights": self._ring}

    def act(
        self,
        action: str,
        tokens: Iterable[str] = (),
        proven: bool = False,
        step: int | None = None,
    ) -> dict[str, Any]:
        """``start``, ``yes``/``no`` (the light or sound step), ``skip``, ``stop``.

        ``proven``: the request showed the table's proof or a scorekeeper's token;
        ``tokens``: every token it showed. ``start`` needs the proof; the other actions
        the proof or one of the tokens the start was made with (403 otherwise).
        ``step``: the number of the step an answer or a skip was meant for; another
        step waiting is a 409 (a double tap, or a tap on a page behind the hub, must
        not answer the next step unseen)."""
        digests = frozenset(_digest(t) for t in tokens)
        with self._lock:
            if action == "start":
                self._start(digests, proven)
            elif not self._active or self._walk is None:
                raise _refused("selftest_not_running", 409, "no self-test is running (start one)")
            elif not proven and not digests & self._holders:
                why = "only the phone that started it, or one with the table's proof, may answer"
                raise _refused("selftest_not_yours", 403, why)
            elif step is not None and action != "stop" and self._walk.number() != step:
                raise SelftestRefused(
                    409,
                    f"step: the self-test is at step {self._walk.number()} now, "
                    f"not {step} (look again)",
                    "step",
                    code="selftest_moved",
                    now=self._walk.number(),
                )
            elif action in ("yes", "no"):
                waiting = self._walk.current()
                if waiting is None or not waiting.needs_answer:
                    why = "this step waits for the hub, not an answer (or skip it)"
                    raise _refused("selftest_no_answer", 409, why)
                self._walk.answer(action == "yes")
            elif action == "skip":
                self._walk.skip()
            else:  # stop: what was done stays in the results
                self._end()
            self._end_if_done()
            return self.status()

    def _start(self, holders: frozenset[str], proven: bool) -> None:
        if self._active:
            raise _refused("selftest_running", 409, "a self-test is running already")
        if self._running_game() is not None:
            why = "a game is being played: finish it (or end it) before the self-test takes the hub"
            raise _refused("selftest_game", 409, why)
        if not proven:
            why = (
                "the self-test takes the hub's buttons and lights: it needs the "
                "table's proof (claim it at the hub)"
            )
            raise _refused("selftest_proof", 403, why)
        self._active = True
        self._holders = holders
        self._stuck = self._levels()  # read before anyone presses anything
        steps = plan(self._wiring, lights=self._ring, voice=self._voice())
        self._walk = Walkthrough(steps, self._light, self._play, self._stuck or ())

    def game_started(self) -> None:
        """A game was started (from a phone): the hub is the table's again, at once."""
        with self._lock:
            if self._active:
                self._end()

    def _light(self, slot: int | None) -> None:
        self._show(ring_frame(slot, self._wiring.pixels))

    def _end_if_done(self) -> None:
        if self._active and self._walk is not None and self._walk.done:
            self._end()

    def _end(self) -> None:
        self._active = False
        self._show(None)
        self._reread()


def _digest(token: str) -> str:
    """What the session keeps of a token: its SHA-256, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()

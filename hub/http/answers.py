"""The players' statistics, computed once per change of the store and one at a time.

A player's page, head to head, the season, the players' list and an evening are sums
over every finished game the players played (scorer/player_stats.py: SQL over the
indexes): with ten years of games, tens of milliseconds of a PC's core each, most of
a second on a Pi Zero's share. Sixteen phones opening the same page at once must not
cost sixteen sums (issue 33, item 10: 7 s on the Pi budget). So an answer is kept,
keyed by its question and the store's count of writes (:attr:`GameStore.changes`:
any write makes every kept answer stale, so none is ever shown stale), and phones
asking a question while it is being computed wait for that one computation. Other
questions are computed one at a time: the interpreter's lock runs them one at a time
anyway, and queued they hold one reader's memory, not sixteen.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any

KEPT = 32  # answers kept, the least recently asked dropped first


class Answers:
    """Kept answers, each valid while ``changes()`` (the store's count of writes) is
    what it was when the answer was computed."""

    def __init__(self, changes: Callable[[], int], kept: int = KEPT) -> None:
        self._changes = changes
        self._max = kept
        self._lock = threading.Lock()
        self._one_at_a_time = threading.Lock()
        self._kept: OrderedDict[Hashable, tuple[int, Any]] = OrderedDict()
        self._computing: dict[tuple[Hashable, int], Future[Any]] = {}

    def ask(self, question: Hashable, compute: Callable[[], Any]) -> Any:
        """The answer to ``question`` (a copy: the caller may change it), computed by
        ``compute()`` unless it is kept for the store as it is now or being computed
        for it; ``compute``'s error reaches every caller waiting for it, and is not kept."""
        with self._lock:
            now = self._changes()
            if any(version != now for version, _ in self._kept.values()):
                self._kept.clear()  # stale: none is shown again, no old name is held
            kept = self._kept.get(question)
            if kept is not None and kept[0] == now:
                self._kept.move_to_end(question)
                return copy.deepcopy(kept[1])
            waiting = self._computing.get((question, now))
            if waiting is None:
                mine: Future[Any] = Future()
                self._computing[question, now] = mine
        if waiting is not None:
            return copy.deepcopy(waiting.result())
        return copy.deepcopy(self._compute(question, now, compute, mine))

    def clear(self) -> None:
        """Drop every kept answer (a player forgotten: their name is held nowhere)."""
        with self._lock:
            self._kept.clear()

    def _compute(
        self, question: Hashable, now: int, compute: Callable[[], Any], mine: Future[Any]
    ) -> Any:
        try:
            with self._one_at_a_time:
                answer = compute()
        except BaseException as exc:
            with self._lock:
                del self._computing[question, now]
            mine.set_exception(exc)
            raise
        with self._lock:
            del self._computing[question, now]
            if now == self._changes():  # else written meanwhile: kept for no one
                self._kept[question] = (now, answer)
                self._kept.move_to_end(question)
            while len(self._kept) > self._max:
                self._kept.popitem(last=False)
        mine.set_result(answer)
        return answer

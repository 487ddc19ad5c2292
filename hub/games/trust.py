"""The table's proof, at run time: claims of the scorekeeper role and table tokens.

A phone asks to be the scorekeeper (``POST /api/claim``): :meth:`TableTrust.start`
posts :class:`~hub.core.events.ClaimRequested` with a free slot chosen at random (one
waiting claim per asker, each on its own slot), and the core lights that slot and
chimes. The table's chord there (the slot and the centre held together) within the
claim window ends in :class:`~hub.core.effects.ClaimAnswered` ``granted`` (on the loop
thread), and
:meth:`TableTrust.answered` turns it into a token for that phone:

- a game is running: a new scorekeeper token of that game, stored (hashed) by the
  store writer thread, never the loop's; the game's earlier tokens stay valid;
- no game is running: a *table token*, kept (hashed) in memory for
  :data:`TABLE_TOKEN_S`; it authorises the settings and starting a game.

The phone learns the answer by asking with the claim's secret id
(:meth:`TableTrust.status`): only the phone that asked knows it.
"""

from __future__ import annotations

import hmac
import itertools
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

from hub.core.claim import MOST_WAITING
from hub.core.effects import ClaimAnswered
from hub.core.events import ClaimRequested, Event
from hub.core.state import Table
from scorer.errors import Refused
from scorer.profiles import SLOTS
from scorer.tokens import hash_token, new_token, tokens_match

TABLE_TOKEN_S = 600.0  # a table token authorises settings and a new game this long
KEPT_CLAIMS = 32  # answers kept for phones to fetch; older claims are forgotten
SLOT_REST_S = 5.0  # a slot whose claim lapsed is not lit for another this long


def _waiting(wait: float) -> Refused:
    return Refused(
        409,
        f"claim: this phone's claim is waiting, or every slot is lit for one; "
        f"ask again in {max(0.0, wait):.0f} s",
        code="claim_waiting",
        count=max(1, round(wait)),
    )


@dataclass
class _Claim:
    secret: str
    slot: int
    asker: str = ""  # the phone's address: one waiting claim each
    state: str = "waiting"  # then "granted" or "expired"
    game: int | None = None
    token: str | None = None


class TableLoop(Protocol):
    """What trust needs of the hub loop (:class:`hub.runtime.loop.HubLoop`)."""

    @property
    def table(self) -> Table:
        """The table now (immutable)."""
        ...

    def submit(self, event: Event) -> Future[dict[str, Any]]:
        """Queue ``event``; the future resolves once the loop has applied it."""
        ...


class WriterThread(Protocol):
    """The store writer's thread (:class:`hub.persist.store_writer.StoreWriter`)."""

    def submit(self, job: Callable[[], Any]) -> Future[Any]:
        """Run ``job`` on the writer thread, after every job submitted before it."""
        ...

    def flush(self, timeout: float = 5.0) -> None:
        """Wait until every job submitted so far has run."""


class TableTrust:
    """Claims and table tokens (thread-safe: requests and the loop use it).

    ``loop`` runs the claim (the core lights the slot, a press answers it); a token a
    granted claim gives during a game is stored by ``add_token(game_id, token)`` on
    ``writer``'s thread; ``now`` is the hub's monotonic clock (table tokens expire).
    """

    def __init__(
        self,
        loop: TableLoop,
        writer: WriterThread,
        add_token: Callable[[int, str], object],
        now: Callable[[], float],
    ) -> None:
        self._loop = loop
        self._writer = writer
        self._add_token = add_token
        self._now = now
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._claims: dict[int, _Claim] = {}
        self._table_tokens: dict[str, float] = {}  # hash -> when it expires
        self._asking = threading.Lock()
        self._lapsed: dict[int, float] = {}  # slot -> when its last claim lapsed

    def start(self, asker: str = "") -> dict[str, Any]:
        """Open a claim for ``asker`` (the phone's address): ``{"claim": secret id,
        "slot": n, "seconds": window}``, on a slot of its own. Refused 409 while this
        asker's own claim waits, or while no slot is free (each waiting claim holds one;
        a slot whose claim just lapsed rests :data:`SLOT_REST_S` first, so a chord made
        late for it never lands on a newer claim there)."""
        with self._asking:  # one at a time: two asks never pick the same slot
            table = self._loop.table
            now = self._now()
            with self._lock:
                mine = [c for c in table.claims if self._asker_of(c.number) == asker]
                rested = {s for s, t in self._lapsed.items() if t > now - SLOT_REST_S}
            busy = {c.slot for c in table.claims} | rested
            free = [s for s in SLOTS if s not in busy]
            if mine or not free or len(table.claims) >= MOST_WAITING:
                soonest = mine or sorted(table.claims, key=lambda c: c.until)
                wait = soonest[0].until - now if soonest else SLOT_REST_S
                raise _waiting(wait)
            slot = secrets.choice(free)
            claim = _Claim(secret=secrets.token_urlsafe(18), slot=slot, asker=asker)
            with self._lock:
                number = next(self._numbers)
                self._claims[number] = claim
                for old in list(self._claims)[:-KEPT_CLAIMS]:
                    del self._claims[old]
            self._loop.submit(ClaimRequested(number, slot, now)).result(5.0)
        window = self._loop.table.timings.claim_window
        return {"claim": claim.secret, "slot": slot, "seconds": window}

    def _asker_of(self, number: int) -> str | None:
        claim = self._claims.get(number)
        return None if claim is None else claim.asker

    def answered(self, effect: ClaimAnswered) -> None:
        """The core's answer to a claim (loop thread: returns at once)."""
        with self._lock:
            claim = self._claims.get(effect.number)
        if claim is None:
            return
        if not effect.granted:
            claim.state = "expired"
            with self._lock:
                self._lapsed[claim.slot] = self._now()
            return
        game = self._loop.table.running_game
        if game is None:
            claim.token, claim.state = self.table_token(), "granted"
            return

        token = new_token()

        def store_token() -> None:  # on the writer thread: SQLite waits for the disk
            self._add_token(game.id, token)
            claim.game, claim.token, claim.state = game.id, token, "granted"

        self._writer.submit(store_token)

    def table_token(self) -> str:
        """A new table token (what a granted claim with no game running gives)."""
        token = new_token()
        with self._lock:
            self._table_tokens[hash_token(token)] = self._now() + TABLE_TOKEN_S
        return token

    def status(self, secret: str) -> dict[str, Any]:
        """Where the claim ``secret`` stands: ``state`` (``waiting``, ``granted``,
        ``expired``), ``slot``, and once granted ``game`` (None: a table token) and
        ``token``. Refused 404 for a claim nobody made (or one long forgotten)."""
        self._writer.flush()
        with self._lock:
            claims = list(self._claims.values())
        found = [c for c in claims if hmac.compare_digest(c.secret.encode(), secret.encode())]
        if not found:
            raise Refused(
                404,
                "claim: no such claim (it may be long over: ask again)",
                "claim",
                code="claim_missing",
            )
        claim = found[0]
        answer: dict[str, Any] = {"state": claim.state, "slot": claim.slot}
        if claim.state == "granted":
            answer |= {"game": claim.game, "token": claim.token}
        return answer

    def check_table(self, token: str) -> bool:
        """Whether ``token`` is a live table token (its hash compared in constant time)."""
        now = self._now()
        with self._lock:
            self._table_tokens = {h: t for h, t in self._table_tokens.items() if t > now}
            hashes = list(self._table_tokens)
        return sum(tokens_match(h, token) for h in hashes) > 0

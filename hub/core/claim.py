"""Claiming the scorekeeper role with hands on the hub (docs/security.md, the trust model).

A phone asks (:class:`ClaimRequested`); the table lights the claim's slot (the
snapshot's ``claim``, drawn by the ring) and chimes. A *hold* on that slot (longer than
a tap: a held or long-held press) within the claim window is the table's proof: it is
consumed by the claim (it does not also act on the game) and answers
:class:`ClaimAnswered` ``granted``, which the runtime turns into a token for that phone
(and only that phone: it alone holds the claim's secret). An ordinary tap never grants
a claim, so a claim left waiting during play is not granted by the game's own taps. A
claim waiting is never replaced: a newer one is refused at once. The window's end is a
deadline like the inputs' ones.
"""

from __future__ import annotations

from hub.core import entries
from hub.core.effects import ClaimAnswered, Effect, LogEntry, PlaySound
from hub.core.events import ClaimRequested, Gesture, Held, LongHeld
from hub.core.news import Sound
from hub.core.state import Claim, Table, evolve

Result = tuple[Table, list[Effect]]


def request(table: Table, event: ClaimRequested) -> Result:
    """Open a claim window on ``event.slot``; while one waits, the new one is refused
    (the waiting claim is never replaced: its phone keeps its chance)."""
    effects: list[Effect] = []
    if table.claim is not None:
        return table, [ClaimAnswered(event.number, granted=False)]
    until = event.at + table.timings.claim_window
    claim = Claim(number=event.number, slot=event.slot, until=until)
    effects += [PlaySound(Sound.TURN), LogEntry(entries.ClaimEntry(event.slot), event.at)]
    return evolve(table, claim=claim), effects


def takes(table: Table, gesture: Gesture) -> bool:
    """Whether ``gesture`` is the press the waiting claim asks for: a hold (never a
    tap, the game's ordinary press) on its slot within the window."""
    claim = table.claim
    return (
        claim is not None
        and isinstance(gesture, Held | LongHeld)
        and gesture.slot == claim.slot
        and gesture.at <= claim.until
    )


def grant(table: Table, gesture: Gesture) -> Result:
    """The press on the lit slot: the claim is granted, the press goes no further."""
    assert table.claim is not None
    number = table.claim.number
    log = LogEntry(entries.ClaimGrantedEntry(gesture.slot), gesture.at)
    return evolve(table, claim=None), [log, ClaimAnswered(number, granted=True)]


def expire(table: Table, at: float) -> Result:
    """The window closed with no press: the claim is refused."""
    claim = table.claim
    if claim is None or claim.until > at:
        return table, []
    log = LogEntry(entries.ClaimExpiredEntry(claim.slot), claim.until)
    return evolve(table, claim=None), [log, ClaimAnswered(claim.number, granted=False)]


def with_deadline(due: float | None, table: Table) -> float | None:
    """The inputs' deadline ``due``, or the claim window's end when that is sooner."""
    claim = table.claim
    if claim is None:
        return due
    return claim.until if due is None or claim.until < due else due

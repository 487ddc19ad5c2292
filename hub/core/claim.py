"""Claiming the scorekeeper role with hands on the hub (docs/security.md, the trust model).

A phone asks (:class:`ClaimRequested`); the table lights the claim's slot (the
snapshot's ``claims``, drawn by the ring) and chimes. The table's proof is a *chord*:
the lit slot's button and the centre button held down together for longer than a tap
(``Timings.tap_max``), begun after the slot lit and within the claim window. It is a
gesture the game never makes (every game gesture is one button: a tap, a hold for a
double, a long hold for going out or undo), so no play on the lit slot can grant a
claim and no chord is a play: both presses are consumed (neither acts on the game).
It answers :class:`ClaimAnswered` ``granted``, which the runtime turns into a token
for that phone (and only that phone: it alone holds the claim's secret).

Several claims may wait at once, each on a slot of its own (the runtime gives each
asker one; :data:`MOST_WAITING` at most): the chord on a slot answers the claim lit
there and no other, so a stranger's waiting claim never keeps the family's from being
lit, and never takes the family's chord. A waiting claim is never replaced. The
window's end is a deadline like the inputs' ones.
"""

from __future__ import annotations

from hub.core import entries
from hub.core.effects import ClaimAnswered, Effect, LogEntry, PlaySound
from hub.core.events import ClaimRequested
from hub.core.news import Sound
from hub.core.state import Claim, Table, evolve

Result = tuple[Table, list[Effect]]
MOST_WAITING = 8  # claims lit at once: a slot each


def request(table: Table, event: ClaimRequested) -> Result:
    """Light ``event.slot`` for a claim; refused at once when a claim waits there
    already or every slot waits (a waiting claim is never replaced)."""
    waiting = table.claims
    if len(waiting) >= MOST_WAITING or any(c.slot == event.slot for c in waiting):
        return table, [ClaimAnswered(event.number, granted=False)]
    until = event.at + table.timings.claim_window
    claim = Claim(number=event.number, slot=event.slot, until=until, at=event.at)
    effects: list[Effect] = [
        PlaySound(Sound.TURN),
        LogEntry(entries.ClaimEntry(event.slot), event.at),
    ]
    return evolve(table, claims=(*waiting, claim)), effects


def chord(table: Table) -> tuple[Claim, float] | None:
    """The waiting claim whose chord is under way, and when it completes: the centre
    and the claim's slot both down (neither consumed by a gesture), pressed together
    after the slot lit, completing within the window. None: no chord is on."""
    centre = table.centre
    if not table.claims or not centre.pressed or centre.consumed:
        return None
    for claim in table.claims:
        button = table.buttons[claim.slot - 1]
        if not button.pressed or button.consumed:
            continue
        began = max(button.since, centre.since)
        done = began + table.timings.tap_max
        if began >= claim.at and done <= claim.until:
            return claim, done
    return None


def complete(table: Table, at: float) -> Result:
    """The chord held long enough by ``at``: its claim is granted, and both presses are
    consumed (their release does nothing, the long holds never fire)."""
    found = chord(table)
    if found is None or found[1] > at:
        return table, []
    claim, done = found
    buttons = list(table.buttons)
    buttons[claim.slot - 1] = evolve(buttons[claim.slot - 1], consumed=True)
    table = evolve(
        table,
        buttons=tuple(buttons),
        centre=evolve(table.centre, consumed=True),
        claims=tuple(c for c in table.claims if c is not claim),
    )
    log = LogEntry(entries.ClaimGrantedEntry(claim.slot), done)
    return table, [log, ClaimAnswered(claim.number, granted=True)]


def expire(table: Table, at: float) -> Result:
    """Every window closed by ``at`` with no chord: those claims are refused."""
    ended = [c for c in table.claims if c.until <= at]
    if not ended:
        return table, []
    effects: list[Effect] = []
    for claim in ended:
        effects += [
            LogEntry(entries.ClaimExpiredEntry(claim.slot), claim.until),
            ClaimAnswered(claim.number, granted=False),
        ]
    return evolve(table, claims=tuple(c for c in table.claims if c.until > at)), effects


def with_deadline(due: float | None, table: Table) -> float | None:
    """The inputs' deadline ``due``, or a claim's when that is sooner: a window's end,
    or the moment a chord under way completes."""
    for claim in table.claims:
        if due is None or claim.until < due:
            due = claim.until
    found = chord(table)
    if found is not None and (due is None or found[1] < due):
        due = found[1]
    return due

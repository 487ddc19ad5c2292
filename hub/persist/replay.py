"""After a crash: the table the journal rebuilds, brought in line with the store and
the sensors.

1. **Replay.** The journal's checkpoint, then every journaled event through the pure
   core (``core.apply``), the effects thrown away: no sound, no light, no store write
   happens twice.
2. **Settle.** Times in the table are the old process's monotonic clock, which means
   nothing to the new one (after a power cut it starts again near zero). Everything
   that waits on such a time is dropped: a button held or a marker moved while the hub
   died (its release or its flicker window never came), a last-tile call's window, a
   claim waiting for a press. The play itself (turn, doubles, public trains, history
   for undo) is kept whole; the new config's timings replace the old.
3. **Catch up with the store.** The journal is never ahead of the store (they share a
   writer thread) but may be behind it by its last batch: a round scored or ended,
   reopened by an undo, an engine named, the game ended. Those steps, the core
   events :func:`hub.core.follow.steps` names (the ones a live hub posts when a score is
   stored, and the round's end), are applied to the table through ``core.apply``;
   when the store is on another game or round, the journal is no help and the round
   starts from the store, as it did before the journal.
4. **Reconcile with the sensors** (by the caller, who reads them): the magnets are
   the truth, each difference is logged and the sensors' reading applied.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from hub import core
from hub.core import follow
from hub.core.events import Event
from hub.core.state import ButtonInput, MarkerInput, Table, Timings, evolve
from hub.persist.codec import CodecError, decode_event, decode_table
from hub.persist.journal import VERSION, Journal
from scorer.profiles import SLOTS

log = logging.getLogger("hub.persist.journal")


class Store(Protocol):
    """What recovery reads of the game store (:class:`scorer.store.GameStore`)."""

    def current_game(self) -> dict[str, Any] | None:
        """The unfinished game to resume, or None."""

    def get_game(self, game_id: int) -> dict[str, Any]:
        """A game as the API shows it (raises when there is none)."""


@dataclass(frozen=True)
class Recovered:
    """What the hub starts from: ``table`` (settled, caught up with the store),
    ``resume`` (True: the store's current game must still be put on the table),
    and ``markers`` (where the journal's table had markers, for the sim backend's
    virtual ones)."""

    table: Table
    resume: bool
    markers: tuple[bool, ...]


def read(journal: Journal) -> tuple[Table, list[Event]] | None:
    """The checkpoint and the events after it, up to the first that does not decode;
    None when there is no journal (or no usable checkpoint)."""
    try:
        records = journal.load()
    except OSError as exc:
        log.warning("journal: cannot read it (%s); the table starts from the store", exc)
        return None
    if not records:
        return None
    try:
        if records[0].get("v") != VERSION:
            raise CodecError(f"version {records[0].get('v')!r}, this hub reads {VERSION}")
        table = decode_table(records[0].get("table"))
    except CodecError as exc:
        log.warning(
            "journal: its checkpoint is unusable (%s); the table starts from the store", exc
        )
        return None
    events: list[Event] = []
    for number, record in enumerate(records[1:], 2):
        try:
            events.append(decode_event(record.get("event")))
        except CodecError as exc:
            log.warning(
                "journal: record %d does not decode (%s); replaying the %d events before it",
                number,
                exc,
                len(events),
            )
            break
    return table, events


def replay(table: Table, events: list[Event]) -> Table:
    """``table`` after ``events``, through the pure core, effects discarded."""
    for event in events:
        try:
            table, _ = core.apply(table, event)
        except Exception:  # the loop dropped it then too
            log.exception("journal: core failed on %r during replay; skipped", event)
    return table


def settle(table: Table, timings: Timings) -> Table:
    """``table`` without anything timed by the old process's clock (see the module)."""
    markers = tuple(MarkerInput(raw=m.present, present=m.present) for m in table.markers)
    history = tuple(evolve(m, last_end=None) for m in table.history)
    return evolve(
        table,
        timings=timings,
        buttons=tuple(ButtonInput() for _ in SLOTS),
        centre=ButtonInput(),
        markers=markers,
        due=None,
        claims=(),
        last_end=None,
        history=history,
    )


def recover(journal: Journal, store: Store, timings: Timings, now: float) -> Recovered:
    """The table to start from: the journal replayed, settled and caught up with the
    store; or a fresh one with ``resume`` set when the journal cannot say."""
    fresh = core.new_table(timings)
    found = read(journal)
    if found is None:
        return Recovered(fresh, resume=True, markers=_markers(fresh))
    start, events = found
    table = settle(replay(start, events), timings)
    markers = _markers(table)
    caught = catch_up(table, store, now)
    if caught is None:
        game = table.game
        log.warning(
            "journal: the store has moved on from %s; the round starts from the store",
            "no game" if game is None else f"game {game.id} round {game.round}",
        )
        return Recovered(fresh, resume=True, markers=markers)
    log.info("journal: table rebuilt from %d events: %s", len(events), describe(caught))
    return Recovered(caught, resume=False, markers=markers)


def catch_up(table: Table, store: Store, now: float) -> Table | None:
    """``table`` with the steps the store took after the journal's last record
    (:func:`hub.core.follow.steps`); None when the store is on another game or round."""
    current = store.current_game()
    if current is None:  # none to resume: the table's game, if the store finished it
        game = table.running_game
        if game is None:
            return table
        try:
            current = store.get_game(game.id)
        except Exception:  # the store does not know it: no game on the table
            return None
    events = follow.steps(table, current, now, restart=True)
    if events is None:
        return None
    for event in events:
        table = core.apply(table, event)[0]
    return table


def _markers(table: Table) -> tuple[bool, ...]:
    return tuple(table.marker(slot) for slot in SLOTS)


def describe(table: Table) -> str:
    """The table in a few words, for the log."""
    game = table.game
    if game is None:
        return "no game"
    public = [s for s in SLOTS if table.public(s)]
    doubles = [d.slot for d in table.doubles]
    return (
        f"game {game.id} round {game.round} {game.phase}, turn {table.turn}, "
        f"public {public}, doubles {doubles}"
    )


def log_differences(markers: tuple[bool, ...], read: tuple[bool, ...]) -> None:
    """Log each slot where the sensors read otherwise than the rebuilt table: the
    sensor wins (the caller applies the reading)."""
    for slot, (had, has) in enumerate(zip(markers, read, strict=True), 1):
        if had != has:
            log.warning(
                "journal: slot %d: marker %s in the journal, %s on the sensor; the sensor wins",
                slot,
                _on(had),
                _on(has),
            )


def _on(present: bool) -> str:
    return "on" if present else "off"


class VirtualMarkers(Protocol):
    """The sim backend's simulated sensors (:class:`hub.io.pins.SimPins`)."""

    def marker(self, slot: int, present: bool) -> None:
        """Put a marker on ``slot``'s sensor, or take it off."""

    def marker_present(self, slot: int) -> bool:
        """What ``slot``'s simulated sensor reads."""


def put_back(sim: VirtualMarkers, markers: tuple[bool, ...]) -> None:
    """The sim backend's markers are where the journal left them: a real table's
    magnets stay on the hub while it restarts, the virtual ones died with the process."""
    for slot, present in enumerate(markers, 1):
        if sim.marker_present(slot) != present:
            sim.marker(slot, present)

"""The journal: its file (framed lines, torn and damaged records dropped, a new segment
renamed into place), and its writer (batches from the loop, written and synced on the
writer thread, a new segment per round and per long stretch, a failing disk survived)."""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading
from collections.abc import Callable
from concurrent.futures import Future

import pytest

from hub import core
from hub.core.events import ButtonChanged, GameStarted, MarkersRead, RoundScored
from hub.persist.codec import decode_event, decode_table
from hub.persist.journal import (
    BATCH,
    FileJournal,
    JournalWriter,
    frame,
    unframe,
)
from hub.persist.store_writer import StoreWriter
from hub.runtime.loop import HubLoop
from tablesim.virtual import FakeClock
from tests.doubles import MemoryJournal


def started(game_id: int = 1, at: float = 1.0) -> GameStarted:
    return GameStarted(
        game_id=game_id,
        rules="consensus",
        players=("Ann", "Bob"),
        seats=(1, 3),
        mexican_slot=8,
        set_max=6,
        rounds=3,
        at=at,
        first=1,
    )


def tap(slot: int, at: float) -> list[ButtonChanged]:
    return [ButtonChanged(slot, True, at), ButtonChanged(slot, False, at + 0.1)]


# --- the file -------------------------------------------------------------------------


def test_a_line_is_its_crc_then_its_json_and_reads_back():
    line = frame({"event": {"_": "Tapped", "slot": 3, "at": 1.5}})
    assert line.endswith(b"\n") and line[8:9] == b" "
    assert unframe(line) == {"event": {"_": "Tapped", "slot": 3, "at": 1.5}}


@pytest.mark.parametrize(
    "damage",
    [
        lambda line: line[:-1],  # no newline: torn
        lambda line: line[: len(line) // 2],  # torn in the middle
        lambda line: line.replace(b'"slot":3', b'"slot":4'),  # a flipped digit
        lambda line: b"zzzzzzzz" + line[8:],  # not a CRC
        lambda line: b"\n",
    ],
)
def test_a_torn_or_damaged_line_is_refused(damage):
    assert unframe(damage(frame({"event": {"_": "Tapped", "slot": 3, "at": 1.5}}))) is None


def test_the_file_keeps_the_segment_and_drops_a_torn_last_record(tmp_path, caplog):
    journal = FileJournal(tmp_path / "state" / "table.journal")
    assert journal.load() == []
    journal.begin([{"v": 1, "table": "t"}, {"event": 1}])
    journal.append([{"event": 2}, {"event": 3}])
    journal.sync()
    journal.close()
    with open(journal.path, "ab") as f:  # a power cut half-way through a record
        f.write(frame({"event": 4})[:-5])
    with caplog.at_level(logging.WARNING, "hub.persist.journal"):
        assert FileJournal(journal.path).load() == [
            {"v": 1, "table": "t"},
            {"event": 1},
            {"event": 2},
            {"event": 3},
        ]
    assert "line 5 of 5 is torn or damaged" in caplog.text
    assert stat.S_IMODE(os.stat(journal.path).st_mode) == 0o600


def test_a_damaged_record_in_the_middle_ends_what_is_replayed(tmp_path, caplog):
    path = tmp_path / "table.journal"
    lines = [frame({"n": n}) for n in range(4)]
    lines[2] = lines[2].replace(b'"n":2', b'"n":7')
    path.write_bytes(b"".join(lines))
    with caplog.at_level(logging.WARNING, "hub.persist.journal"):
        assert FileJournal(path).load() == [{"n": 0}, {"n": 1}]
    assert "line 3 of 4" in caplog.text and "the 2 records before it" in caplog.text


def test_a_new_segment_replaces_the_old_one_whole(tmp_path):
    journal = FileJournal(tmp_path / "table.journal")
    journal.begin([{"n": 1}])
    journal.append([{"n": 2}])
    journal.begin([{"n": 3}])
    journal.append([{"n": 4}])
    journal.close()
    assert FileJournal(journal.path).load() == [{"n": 3}, {"n": 4}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.journal"]


# --- the writer -----------------------------------------------------------------------


class CountingWriter(StoreWriter):
    """The store writer, counting the jobs it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs = 0

    def submit(self, job):  # type: ignore[no-untyped-def]
        self.jobs += 1
        return super().submit(job)


def loop_with(journal: MemoryJournal, writer: StoreWriter | None = None, **options):
    writer = writer or StoreWriter()
    recorder = JournalWriter(journal, writer, **options)
    loop = HubLoop(core.new_table(), FakeClock(), "sim", journal=recorder)
    return loop, recorder


def replayed(journal: MemoryJournal):
    records = journal.load()
    table = decode_table(records[0]["table"])
    events = [decode_event(r["event"]) for r in records[1:]]
    for event in events:
        table, _ = core.apply(table, event)
    return table, events


def test_every_event_the_loop_applies_is_journaled_and_replays_to_its_table():
    journal = MemoryJournal()
    loop, _ = loop_with(journal)
    loop.restore(loop.table)
    for event in [started(), MarkersRead((False,) * 8, 1.0), *tap(1, 2.0), *tap(3, 3.0)]:
        loop.post(event)
    loop.drain()
    table, events = replayed(journal)
    assert table == loop.table and table.turn == 1  # Ann, Bob, Ann again
    assert [type(e).__name__ for e in events] == ["MarkersRead"] + ["ButtonChanged"] * 4
    assert journal.synced == len(journal.records)  # drained: all of it on disk


def test_the_loop_hands_events_off_in_batches_not_one_job_each():
    writer = CountingWriter()
    loop, _ = loop_with(MemoryJournal(), writer)
    loop.post(started())
    for n in range(BATCH * 2):
        loop.post(ButtonChanged(1, n % 2 == 0, 2.0 + n))
    loop.drain()
    assert writer.jobs <= 4  # a batch at BATCH events, and the rest when drained


def test_a_new_round_or_game_starts_a_new_segment():
    journal = MemoryJournal()
    loop, _ = loop_with(journal)
    loop.post(started())
    loop.drain()
    loop.post(ButtonChanged(1, True, 2.0))
    loop.post(RoundScored(3.0))  # round 2: its start is the checkpoint
    loop.post(ButtonChanged(1, False, 3.5))
    loop.drain()
    records = journal.load()
    assert decode_table(records[0]["table"]).game.round == 2
    assert len(records) == 2 and replayed(journal)[0] == loop.table
    loop.post(started(game_id=2, at=4.0))
    loop.drain()
    assert decode_table(journal.load()[0]["table"]).game.id == 2


def test_a_long_segment_is_compacted_into_a_fresh_checkpoint():
    journal = MemoryJournal()
    loop, _ = loop_with(journal, compact_after=10)
    loop.post(started())
    for n in range(25):
        loop.post(ButtonChanged(5, n % 2 == 0, 2.0 + n))  # an empty slot: nothing else
    loop.drain()
    assert len(journal.load()) <= 11 and replayed(journal)[0] == loop.table


def test_only_the_newest_batch_pays_for_the_fsync():
    journal = MemoryJournal()
    writer = StoreWriter()
    recorder = JournalWriter(journal, writer)
    table = core.apply(core.new_table(), started())[0]
    recorder.restart(table)
    recorder.hand_off()
    gate = threading.Event()
    writer.start()
    try:
        writer.submit(gate.wait)  # the writer is busy while three batches queue up
        for n in range(3):
            recorder.record(ButtonChanged(5, n % 2 == 0, 2.0 + n), table)
            recorder.hand_off()
        gate.set()
        recorder.written().result(5)
    finally:
        writer.stop()
    assert journal.syncs == 1 and len(journal.records) == 4
    assert journal.synced == 4


class SteppedWriter:
    """A writer thread the test runs one job at a time (``step``), so the order in
    which the loop and a waiting request hand jobs over can be set exactly."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Callable[[], object], Future[object]]] = []

    def submit(self, job: Callable[[], object]) -> Future[object]:
        future: Future[object] = Future()
        self.jobs.append((job, future))
        return future

    def step(self) -> None:
        job, future = self.jobs.pop(0)
        future.set_result(job())


def test_an_answer_waits_for_the_fsync_a_batch_left_to_one_handed_off_after_it():
    # The loop hands off batch 1, a request asks to wait for the disk, and the loop
    # hands off batch 2 before the writer gets to batch 1, which then leaves its fsync
    # to batch 2. The request's wait must not end before that fsync: what it answers
    # would be lost in a power cut.
    journal, writer = MemoryJournal(), SteppedWriter()
    recorder = JournalWriter(journal, writer)
    table = core.apply(core.new_table(), started())[0]
    recorder.restart(table)
    recorder.hand_off()
    writer.step()  # the segment's checkpoint
    recorder.record(ButtonChanged(5, True, 2.0), table)
    recorder.hand_off()  # batch 1: the press the request answers with
    written = recorder.written()
    recorder.record(ButtonChanged(5, False, 2.1), table)
    recorder.hand_off()  # batch 2
    writer.step()  # batch 1, appended, its fsync left to batch 2
    writer.step()  # the request's wait
    assert written.done()
    journal.power_cut()
    assert len(journal.load()) == 2  # the checkpoint and the answered press
    writer.step()  # batch 2 syncs itself
    assert journal.synced == len(journal.records) == 3


def test_a_failing_disk_is_logged_once_and_the_next_write_starts_a_whole_segment(caplog):
    journal = MemoryJournal()
    loop, _ = loop_with(journal)
    loop.post(started())
    loop.drain()
    journal.fail = OSError(28, "No space left on device")
    with caplog.at_level(logging.ERROR, "hub.persist.journal"):
        for n in range(3):
            loop.post(ButtonChanged(1, n % 2 == 0, 2.0 + n))
            loop.drain()
    assert caplog.text.count("cannot write") == 1 and "No space left" in caplog.text
    journal.fail = None
    loop.post(ButtonChanged(1, False, 9.0))
    loop.drain()
    assert replayed(journal)[0] == loop.table  # a checkpoint after the gap, not a hole


def test_an_answer_after_a_failed_write_says_the_table_was_not_saved():
    """Issue 25, LOW 10: a press answered while the disk refuses writes must not read
    as kept. ``settled_later`` carries the problem, and ``watch`` hears it and the end."""
    journal = MemoryJournal()
    loop, recorder = loop_with(journal)
    heard: list[dict | None] = []
    recorder.watch(heard.append)
    loop.post(started())
    assert "storage" not in loop.settled_later().result(5)
    journal.fail = OSError(errno.EROFS, "Read-only file system")
    loop.post(ButtonChanged(1, True, 2.0))
    answer = loop.settled_later().result(5)
    assert answer["storage"] == {
        "saved": False,
        "problem": "read_only",
        "path": "the journal",
        "detail": "Read-only file system",
    }
    loop.post(ButtonChanged(1, False, 2.1))  # still failing: heard once
    assert loop.settled_later().result(5)["storage"]["problem"] == "read_only"
    journal.fail = None
    loop.post(ButtonChanged(1, True, 3.0))
    assert "storage" not in loop.settled_later().result(5)
    assert [None if h is None else h["problem"] for h in heard] == ["read_only", None]


def test_a_power_cut_loses_only_what_was_not_synced():
    journal = MemoryJournal()
    loop, _ = loop_with(journal)
    loop.post(started())
    loop.drain()
    acknowledged = loop.table
    journal.append([{"event": "never synced"}])
    journal.power_cut()
    assert replayed(journal)[0] == acknowledged


class OrderedJournal(MemoryJournal):
    """A fake journal noting, in ``order``, each event type as it is written."""

    def __init__(self, order: list[str]) -> None:
        super().__init__()
        self.order = order

    def begin(self, records):  # type: ignore[no-untyped-def]
        super().begin(records)
        self.order += [r["event"]["_"] for r in records[1:]]

    def append(self, records):  # type: ignore[no-untyped-def]
        super().append(records)
        self.order += [r["event"]["_"] for r in records]


def test_a_round_the_table_ended_is_stored_before_its_event_is_journaled():
    from hub.core.effects import RoundEnded
    from hub.core.events import RoundBlocked

    order: list[str] = []
    writer = StoreWriter()
    gate = threading.Event()

    def dispatch(effects, table):  # the dispatcher hands a round's end to the store writer
        if any(isinstance(e, RoundEnded) for e in effects):
            writer.submit(lambda: (gate.wait(5), order.append("stored")))

    recorder = JournalWriter(OrderedJournal(order), writer)
    loop = HubLoop(core.new_table(), FakeClock(), "sim", journal=recorder)
    loop.dispatch = dispatch
    writer.start()
    loop.start()
    try:
        loop.post(started())
        loop.post(ButtonChanged(5, True, 2.0))
        loop.post(RoundBlocked(3.0))
        loop.post(ButtonChanged(5, False, 4.0))
        threading.Timer(0.05, gate.set).start()  # a slow fsync in the store
        loop.drain()
    finally:
        loop.stop()
        writer.stop()
    assert order.index("stored") < order.index("RoundBlocked")


def test_settled_later_without_a_loop_thread_resolves_at_once_with_all_of_it_on_disk():
    journal = MemoryJournal()
    loop, _ = loop_with(journal)
    loop.post(started())
    loop.post(ButtonChanged(1, True, 2.0))
    answer = loop.settled_later()
    assert answer.done() and answer.result() is loop.snapshot
    assert loop.table.buttons[0].raw is True
    assert journal.synced == len(journal.records)
    assert {"_": "ButtonChanged", "slot": 1, "pressed": True, "at": 2.0} in [
        r.get("event") for r in journal.records
    ]

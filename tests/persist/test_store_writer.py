"""The store writer: SQLite writes the loop orders run on their own thread, in order."""

from __future__ import annotations

import threading

import pytest

from hub.persist.store_writer import StoreWriter


def test_jobs_run_in_order_on_the_writer_thread():
    writer = StoreWriter()
    writer.start()
    try:
        seen = []
        futures = [
            writer.submit(lambda n=n: seen.append((n, threading.current_thread().name)))
            for n in range(5)
        ]
        writer.flush()
        assert all(f.done() for f in futures)
        assert seen == [(n, "store-writer") for n in range(5)]
    finally:
        writer.stop()


def test_a_failed_job_is_logged_and_the_next_one_runs(caplog):
    writer = StoreWriter()
    writer.start()
    try:
        bad = writer.submit(lambda: 1 / 0)
        good = writer.submit(lambda: "written")
        assert good.result(5) == "written"
        with pytest.raises(ZeroDivisionError):
            bad.result(0)
        assert writer.failures == 1 and "store write failed" in caplog.text
    finally:
        writer.stop()


def test_without_a_thread_jobs_run_inline():
    writer = StoreWriter()
    assert writer.submit(threading.current_thread).result(0) is threading.current_thread()
    writer.flush()  # nothing to wait for


def test_a_round_ended_on_the_table_is_written_off_the_loop_thread(make_hub):
    from hub.runtime.clock import SystemClock

    hub = make_hub(
        threaded=True, clock=SystemClock(), gestures={"tap_max_ms": 100, "long_hold_ms": 500}
    )
    threads = []
    record = hub.store.set_went_out
    hub.store.set_went_out = lambda *a: (
        threads.append(threading.current_thread().name),
        record(*a),
    )[1]
    from scorer.setup import check_setup

    # consensus: going out in one's first turn ends the round (aces waits for every first)
    hub.games.new_game(check_setup({"players": ["Ann", "Bob"], "rules": "consensus", "first": 1}))
    hub.sim.button(1, True)
    hold = hub.loop.table.timings.long_hold + 0.05
    threading.Event().wait(hold)  # a real long hold on the real clock
    hub.sim.button(1, False)
    hub.loop.settled()
    hub.writer.flush()
    assert threads == ["store-writer"]
    assert hub.store.get_game(1)["rounds"][0]["went_out"] == "Ann"

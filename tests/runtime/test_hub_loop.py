"""HubLoop.submit's guard: a look at the table and the event in one step of the one
writer thread (a phone's undo of the table it saw, hub/games/changes.py)."""

from __future__ import annotations

import pytest

from hub import core
from hub.core.events import MarkersRead
from hub.runtime.asks import TableChanged
from hub.runtime.clock import SystemClock
from hub.runtime.loop import HubLoop
from scorer.errors import FieldError

ONE_ON = MarkersRead((True,) + (False,) * 7, 1.0)


def loop(threaded: bool) -> HubLoop:
    made = HubLoop(core.new_table(), SystemClock(), "sim")
    if threaded:
        made.start()
    return made


@pytest.mark.parametrize("threaded", [False, True])
def test_a_reason_leaves_the_table_alone_and_none_applies_the_event(threaded):
    hub = loop(threaded)
    try:
        moved = FieldError("moved", "undo", code="undo_moved", then=1, now=2)
        refused = hub.submit(ONE_ON, unless=lambda table: moved)
        with pytest.raises(TableChanged, match="^moved$") as raised:
            refused.result(5)
        assert (raised.value.code, raised.value.field) == ("undo_moved", "undo")
        assert raised.value.params == {"then": 1, "now": 2}
        assert not any(m.present for m in hub.table.markers)
        looked: list[bool] = []
        done = hub.submit(ONE_ON, unless=lambda table: looked.append(True))  # None: go on
        assert done.result(5)["slots"][0]["marker"] is True and looked == [True]
        assert hub.table.markers[0].present
    finally:
        hub.stop()


def test_a_guard_that_raises_fails_its_own_request_and_the_loop_goes_on():
    hub = loop(threaded=True)
    try:
        broken = hub.submit(ONE_ON, unless=lambda table: 1 / 0)  # type: ignore[arg-type,return-value]
        with pytest.raises(ZeroDivisionError):
            broken.result(5)
        assert not hub.table.markers[0].present
        assert hub.submit(ONE_ON).result(5)["slots"][0]["marker"] is True
    finally:
        hub.stop()


# -- the parts wired to the loop: straight, each once -----------------------------------


@pytest.mark.parametrize("threaded", [False, True])
def test_an_event_reaches_the_dispatcher_and_one_snapshot_with_its_views_drawn(threaded):
    """The loop hands the effects to the dispatcher with the table after them, draws
    each view (the ring) into the snapshot it announces, and announces it once."""
    hub = loop(threaded)
    dispatched: list[tuple[int, bool]] = []
    announced: list[dict] = []
    hub.dispatch = lambda effects, table: dispatched.append(
        (len(effects), table.markers[0].present)
    )
    hub.views["ring"] = lambda snapshot: {"lit": snapshot["slots"][0]["marker"]}
    hub.on_state = announced.append
    try:
        hub.submit(ONE_ON).result(5)
        hub.drain()
        assert dispatched and dispatched[-1][1] is True
        assert [s["ring"] for s in announced] == [{"lit": True}]
        assert hub.snapshot is announced[-1]
    finally:
        hub.stop()


@pytest.mark.parametrize("threaded", [False, True])
def test_a_view_that_changed_by_itself_is_drawn_into_a_new_snapshot(threaded):
    hub = loop(threaded)
    level = [1]
    announced: list[dict] = []
    hub.views["ring"] = lambda snapshot: level[0]
    hub.on_state = announced.append
    try:
        level[0] = 2
        hub.refresh()  # another thread's change (a flash ends)
        hub.drain()
        assert [s["ring"] for s in announced] == [2] and hub.snapshot["ring"] == 2
    finally:
        hub.stop()


def test_a_view_that_fails_leaves_the_snapshot_without_it(caplog):
    hub = loop(threaded=False)
    hub.views["ring"] = lambda snapshot: 1 / 0
    hub.submit(ONE_ON).result(5)
    assert "ring" not in hub.snapshot and hub.snapshot["slots"][0]["marker"] is True
    assert "drawing the snapshot's ring failed" in caplog.text


def test_a_diverted_input_never_reaches_the_table():
    hub = loop(threaded=False)
    taken: list[object] = []
    hub.divert = lambda event: taken.append(event) is None  # the self-test takes it
    hub.post(ONE_ON)
    hub.drain()
    assert taken == [ONE_ON] and not hub.table.markers[0].present
    hub.divert = lambda event: False  # the self-test is over
    hub.post(ONE_ON)
    hub.drain()
    assert hub.table.markers[0].present

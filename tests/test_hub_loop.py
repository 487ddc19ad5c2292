"""HubLoop.submit's guard: a look at the table and the event in one step of the one
writer thread (a phone's undo of the table it saw, hub/games/changes.py)."""

from __future__ import annotations

import pytest

from hub import core
from hub.core.events import MarkersRead
from hub.runtime.clock import SystemClock
from hub.runtime.loop import HubLoop, TableChanged
from scorer.errors import FieldError

ONE_ON = MarkersRead((True,) + (False,) * 7, 1.0)


def loop(threaded: bool) -> HubLoop:
    made = HubLoop(core.new_table(), SystemClock(), lambda effects: None, "sim")
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

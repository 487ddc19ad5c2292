"""The composition root's lifecycle: every part stopped in reverse, even when one fails."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from hub.app import Hub
from hub.io.leds import NoRing
from hub.runtime.clock import SystemClock
from hub.runtime.config import load
from tablesim.virtual import RecordingPlayer


class BrokenPlayer(RecordingPlayer):
    """A player whose device fails to close."""

    def close(self) -> None:
        raise OSError("the sound card went away")


def test_a_part_whose_stop_raises_does_not_keep_the_others_from_stopping(
    tmp_path, mock_factory, caplog
):
    config = load(None, {"hub": {"backend": "sim", "state_dir": str(tmp_path / "state")}})
    hub = Hub(config, clock=SystemClock(), pin_factory=mock_factory, sound=BrokenPlayer())
    hub.start()
    hub.serve("127.0.0.1", 0, block=False, on_listening=lambda host, port: None)
    with caplog.at_level(logging.ERROR, logger="hub"), pytest.raises(OSError, match="went away"):
        hub.stop()
    assert "stopping the sound player failed: OSError" in caplog.text
    # Stopped before the sound player, in reverse order of their start:
    assert hub._server is None  # the web server
    assert hub.broadcaster.closed  # the news
    assert hub.loop._thread is None and hub.writer._executor is None
    # ... and after it, though it raised:
    assert all(button.closed for button in hub.inputs.buttons)  # the pins
    assert hub.journal_file._file is None
    with pytest.raises(sqlite3.ProgrammingError):  # the store is closed
        hub.store._writer.execute("SELECT 1")
    hub.stop()  # a second stop has nothing left to do


def test_a_part_that_fails_to_build_closes_those_built_before_it(tmp_path, mock_factory):
    closed = []

    class Player(RecordingPlayer):
        def close(self) -> None:
            closed.append("sound")

    class DeadRing(NoRing):
        def show(self, pixels) -> None:
            raise OSError("the ring's controller is gone")  # at the first redraw

    config = load(None, {"hub": {"backend": "sim", "state_dir": str(tmp_path / "state")}})
    with pytest.raises(OSError, match="controller is gone"):
        Hub(config, clock=SystemClock(), pin_factory=mock_factory, sound=Player(), leds=DeadRing())
    assert closed == ["sound"]  # built before the ring, closed after it failed

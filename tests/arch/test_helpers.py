"""The tests' own helpers: the one polling loop, the long runs' knob, ports from the OS."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from tests.helpers import SCALE_VARIABLE, eventually, long_run_scale, scaled, until
from tests.ports import PortTaken, closed_port, on_a_free_port, os_port


def test_eventually_gives_the_value_once_another_thread_makes_it():
    box: list[int] = []
    threading.Timer(0.05, box.append, (7,)).start()
    assert eventually(lambda: box and box[0], 5) == 7


def test_eventually_is_false_after_its_timeout():
    started = time.monotonic()
    assert eventually(lambda: None, 0.05) is False
    assert time.monotonic() - started >= 0.05


def test_eventually_on_a_condition_wakes_when_notified():
    changed = threading.Condition()
    box: list[str] = []

    def put() -> None:
        with changed:
            box.append("here")
            changed.notify_all()

    threading.Timer(0.05, put).start()
    assert eventually(lambda: box, 5, condition=changed) == ["here"]


def test_until_names_what_it_waited_for():
    with pytest.raises(AssertionError, match="waited 0.02 s for the hub box, in vain"):
        until(lambda: False, "the hub box", 0.02)
    asked: list[int] = []
    with pytest.raises(AssertionError) as failed:  # what() is asked at the end
        until(lambda: asked.append(1), lambda: f"{len(asked)} answers", 0.02)
    assert f"for {len(asked)} answers" in str(failed.value) and len(asked) > 1
    assert until(lambda: "ok", "anything", 1) == "ok"


def test_until_can_ask_at_a_slower_pace():
    asked: list[float] = []
    with pytest.raises(AssertionError):
        until(lambda: asked.append(time.monotonic()), "nothing", 0.25, every=0.1)
    assert 2 <= len(asked) <= 4


def test_the_long_runs_are_short_unless_the_knob_says_otherwise():
    assert long_run_scale({}) == 0 and scaled(3, 200, {}) == 3
    assert scaled(3, 200, {SCALE_VARIABLE: ""}) == 3
    assert scaled(3, 200, {SCALE_VARIABLE: "0"}) == 3
    assert scaled(3, 200, {SCALE_VARIABLE: "1"}) == 200
    assert scaled(3, 200, {SCALE_VARIABLE: "2"}) == 400
    assert scaled(3, 200, {SCALE_VARIABLE: "0.001"}) == 3  # never fewer than the quick run


@pytest.mark.parametrize("raw", ["lots", "-1", "nan", "1e9"])
def test_a_knob_that_is_not_a_sane_number_is_refused_by_name(raw):
    with pytest.raises(ValueError, match=f"{SCALE_VARIABLE}="):
        long_run_scale({SCALE_VARIABLE: raw})


def test_a_port_from_the_os_can_be_bound():
    with socket.socket() as server:
        server.bind(("127.0.0.1", os_port()))
        server.listen()


def test_a_closed_port_refuses_connections_and_keeps_its_port():
    with closed_port() as holder:
        port = holder.getsockname()[1]
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5)
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", port))


def test_a_taken_port_is_tried_again_on_another():
    tried: list[int] = []

    def start(port: int) -> int:
        tried.append(port)
        if len(tried) < 3:
            raise PortTaken(f"port {port} taken")
        return port

    assert on_a_free_port(start) == tried[-1] and len(tried) == 3
    with pytest.raises(AssertionError, match="every port tried was taken"):
        on_a_free_port(lambda port: (_ for _ in ()).throw(PortTaken(str(port))), tries=2)

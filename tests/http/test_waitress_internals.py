"""The waitress internals hub/http/server.py and hub/http/selector.py build on.

Our server subclasses waitress's channel, task, server and task dispatcher, and runs its
own selector loop over waitress's socket map (docs/architecture.md, "The web server").
None of these names is waitress's public API, so pyproject.toml pins waitress to the
range tested here; a new waitress that renames or drops one fails here, by name, before
it fails in a phone's hands."""

from __future__ import annotations

import inspect
import socket
from importlib import metadata

import pytest
from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher, WSGITask

from hub.http.server import ElasticDispatcher, HandoverServer, LiveChannel, LiveTask, make_server

# (class, method) pairs our subclasses override or call through ``super()``.
METHODS = [
    (ThreadedTaskDispatcher, "add_task"),
    (ThreadedTaskDispatcher, "set_thread_count"),
    (WSGITask, "get_environment"),
    (WSGITask, "finish"),
    (HTTPChannel, "service"),
    (HTTPChannel, "received"),
    (HTTPChannel, "handle_close"),
    (HTTPChannel, "readable"),
    (HTTPChannel, "writable"),
    (TcpWSGIServer, "readable"),
    (TcpWSGIServer, "maintenance"),
    (TcpWSGIServer, "run"),
    (TcpWSGIServer, "close"),
    (MultiSocketServer, "run"),
]


def _installed() -> tuple[int, ...]:
    return tuple(int(part) for part in metadata.version("waitress").split(".")[:3])


def test_the_installed_waitress_is_in_the_pinned_range():
    assert (3, 0, 2) <= _installed() < (3, 1)


@pytest.mark.parametrize(("cls", "name"), METHODS, ids=lambda v: getattr(v, "__name__", v))
def test_each_method_we_override_or_call_still_exists(cls, name):
    assert callable(getattr(cls, name, None)), f"waitress {cls.__name__}.{name} is gone"


def test_our_subclasses_sit_on_waitress_classes():
    assert issubclass(ElasticDispatcher, ThreadedTaskDispatcher)
    assert issubclass(LiveTask, WSGITask)
    assert issubclass(LiveChannel, HTTPChannel)
    assert issubclass(HandoverServer, TcpWSGIServer)
    assert HandoverServer.channel_class is LiveChannel


def test_the_selector_loop_still_has_waitress_s_dispatch():
    # EpollLoop hands each event to wasyncore.readwrite(obj, flags), as waitress's own poll does.
    assert list(inspect.signature(wasyncore.readwrite).parameters) == ["obj", "flags"]
    assert callable(wasyncore.dispatcher.handle_read_event)


def test_the_adjustments_we_set_are_waitress_s():
    for name in ("channel_timeout", "cleanup_interval", "connection_limit", "threads"):
        assert name in Adjustments._param_map, name
    adj = Adjustments(host="127.0.0.1", port=0)
    assert isinstance(adj.asyncore_loop_timeout, int | float)
    assert isinstance(adj.connection_limit, int)


def test_a_running_server_has_the_state_we_read():
    # The attributes read on live objects: the dispatcher's counters and lock, the
    # server's socket map and channels, a channel's buffers and marks.
    served = make_server(lambda environ, start: [], "127.0.0.1", 0, 8)
    try:
        server = served.server
        assert isinstance(server._map, dict) and server.accepting
        assert isinstance(server.active_channels, dict)
        assert int(server.effective_port) > 0 and served.effective_port == int(
            server.effective_port
        )
        dispatcher = server.task_dispatcher
        for name in ("lock", "queue_cv", "threads", "queue", "stop_count", "active_count"):
            assert hasattr(dispatcher, name), name
        ours, theirs = socket.socketpair()
        with ours, theirs:
            channel = LiveChannel(server, ours, ("127.0.0.1", 1), server.adj, map={})
            for name in ("outbuf_lock", "connected", "request", "requests", "last_activity"):
                assert hasattr(channel, name), name
            assert channel._fileno == ours.fileno()
            channel.will_close = True  # our property over waitress's plain attribute
            assert channel.will_close is True
            channel.del_channel()
    finally:
        served.close()

"""Child processes hold no connection of the web server's (issue 32).

The hub starts children while it serves: the evening's PNG is drawn by
``python -m web.evening_png`` (``web/evening_png.py``, started by the pictures' drawer thread)
and the voice by espeak-ng (``hub/voice/engine.py``). Between its fork and its exec a
child holds a copy of every descriptor of the hub that is not closed on exec, and until
then a connection the server closed is not closed for the kernel. A server that forgets
a connection only after closing it (the old selector loop unregistered it from its
epoll a round later) then keeps a registration for the dead connection under a number
the next phone is given, and answers go astray: 27-35 of ~5,300 short requests failed
or were cut short while children were spawned, 0-1 without.

Here four phones send short requests, each on a connection of its own or a few on one
kept alive, for :data:`SECONDS` against the real hub on its real server, while the
product's own spawns run back to back: every answer must come whole.
"""

from __future__ import annotations

import ast
import http.client
import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hub.voice import engine

SECONDS = 30.0
PHONES = 4
PATHS = ("/api/state", "/api/rules", "/api/log?limit=20", "/api/state")
HOLDERS = 3  # stand-in children spawned at once, each holding the descriptors ...
HOLD_S = 0.03  # ... this long
# The product's own children (a picture, a sentence) are started one after another with
# this much rest between: each costs a core for a while, and the stand-ins (back to back)
# are what shows the race every run; these show that the product's own spawns are safe.
PRODUCT_REST_S = 0.25


@pytest.fixture
def served(make_hub):
    """A sim hub on the real clock, served on a free port; its port."""
    from hub.runtime.clock import SystemClock

    hub = make_hub(threaded=True, clock=SystemClock())
    ports: list[int] = []
    hub.serve("127.0.0.1", 0, block=False, on_listening=lambda host, port: ports.append(port))
    return ports[0]


def ask(port: int, paths: tuple[str, ...]) -> None:
    """``paths`` on one connection kept alive, then closed; raises unless every answer
    is a whole 200 with JSON (``http.client`` raises ``IncompleteRead`` on a cut one)."""
    phone = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        for n, path in enumerate(paths):
            last = n == len(paths) - 1
            phone.request("GET", path, headers={"Connection": "close"} if last else {})
            answer = phone.getresponse()
            body = answer.read()
            if answer.status != 200:
                raise AssertionError(f"{path}: {answer.status} {body[:200]!r}")
            json.loads(body)
    finally:
        phone.close()


def phone(port: int, until: float, failures: list[str], asked: list[int]) -> None:
    """Short requests back to back until ``until``: one, two or three a connection."""
    n = 0
    while time.monotonic() < until:
        paths = PATHS[n % 3 : n % 3 + 1 + n % 3]
        n += 1
        try:
            ask(port, paths)
        except (OSError, http.client.HTTPException, ValueError, AssertionError) as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
        asked.append(len(paths))


def spawner(
    spawn: Callable[[], object], until: float, spawned: list[int], rest_s: float = 0.0
) -> None:
    """``spawn`` a child, again and again (``rest_s`` apart), until ``until``."""
    resting = threading.Event()  # never set: a pause of a load generator, not a wait
    while time.monotonic() < until:
        spawn()
        spawned.append(1)
        resting.wait(rest_s)


def evening_png() -> object:
    """The product's PNG drawer (:func:`web.evening_png.render`), started in the hub's
    own process as its drawer thread starts it (``GET /api/evening.png`` keeps a
    picture once drawn, so asking it again would start no child)."""
    from web.evening_png import render

    return render([("title", "Evening of 2026-12-07"), ("body", "Game 1: Ann won")])


def holding_child() -> object:
    """A stand-in child started as the product starts its own (``subprocess.run``,
    output captured, ``close_fds`` left at its default) that holds the hub's descriptors
    :data:`HOLD_S` between its fork and its exec, as a child of a big process on a slow
    Pi does while the kernel copies its memory map (ours execs in microseconds, which
    shows the race a few times a minute; this shows it every run)."""
    try:
        return subprocess.run(
            ["true"], capture_output=True, timeout=10, preexec_fn=lambda: time.sleep(HOLD_S)
        )
    except subprocess.TimeoutExpired:  # a stuck child is not what this test is about
        return None


def test_short_requests_come_whole_while_children_are_spawned(served):
    port = served
    until = time.monotonic() + SECONDS
    failures: list[str] = []
    asked: list[int] = []
    spawned: list[int] = []
    threads = [
        threading.Thread(target=phone, args=(port, until, failures, asked)) for _ in range(PHONES)
    ]
    spawns: list[tuple[Callable[[], object], float]] = [(evening_png, PRODUCT_REST_S)]
    spawns += [(holding_child, 0.0)] * HOLDERS
    if shutil.which(engine.ENGINE):  # the voice's children too
        spawns.append((lambda: engine.render("Ann's turn", "en"), PRODUCT_REST_S))
    threads += [
        threading.Thread(target=spawner, args=(spawn, until, spawned, rest))
        for spawn, rest in spawns
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(SECONDS + 60)
    assert not any(thread.is_alive() for thread in threads)
    assert len(spawned) >= 100, "too few children to show anything"
    assert sum(asked) >= 500, "too few requests to show anything"
    assert failures == [], f"{len(failures)} of {sum(asked)} requests failed: {failures[:5]}"


# --- how the product starts children: never with the server's descriptors --------------

PRODUCT = ("hub", "web", "scorer", "firmware_bridge", "tablesim")
ROOT = Path(__file__).resolve().parents[2]
# Calls that start a child holding every descriptor the process has (no exec, or
# descriptors kept on purpose), and the arguments that keep descriptors open.
FORKS = {"os.fork", "os.forkpty", "pty.fork", "os.set_inheritable", "socket.dup"}
KEEPING = {"close_fds", "pass_fds"}


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                found.append((f"{func.value.id}.{func.attr}", node))
    return found


def test_every_child_is_started_without_the_servers_descriptors():
    """The product starts children only through ``subprocess`` with ``close_fds`` at
    its default (True) and passes none on; sockets stay close-on-exec (Python's
    default); nothing forks without an exec."""
    seen: list[str] = []
    wrong: list[str] = []
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            where = path.relative_to(ROOT)
            for name, call in _calls(tree):
                if name in FORKS:
                    wrong.append(f"{where}:{call.lineno}: {name}")
                if name.startswith("subprocess."):
                    seen.append(f"{where}:{call.lineno}")
                    kept = [k.arg for k in call.keywords if k.arg in KEEPING]
                    wrong += [f"{where}:{call.lineno}: {name}({arg}=...)" for arg in kept]
                if name == "multiprocessing.get_context":
                    seen.append(f"{where}:{call.lineno}")
                    method = call.args[0] if call.args else None
                    if not (isinstance(method, ast.Constant) and method.value == "spawn"):
                        wrong.append(f"{where}:{call.lineno}: {name} (not 'spawn')")
    assert wrong == []
    # The spawns this rule was checked on: the PNG drawer, the voice, the soak's workers
    # (a "spawn" context: a fresh interpreter, no descriptors inherited).
    assert any(place.startswith("web/evening_png.py") for place in seen)
    assert any(place.startswith("hub/voice/engine.py") for place in seen)


def test_the_servers_connections_are_not_inherited(served):
    """A connection the server accepted is close-on-exec, as Python makes every socket."""
    port = served
    before = _sockets()
    phone = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        phone.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert phone.recv(4096).startswith(b"HTTP/1.1 200")
        accepted = _sockets() - before - {phone.fileno()}
        assert accepted  # the server's end of it, in this process
        assert not any(_inherits(fd) for fd in accepted)
    finally:
        phone.close()


def _sockets() -> set[int]:
    found = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                found.add(int(name))
        except OSError:  # closed meanwhile
            pass
    return found


def _inherits(fd: int) -> bool:
    try:
        return os.get_inheritable(fd)
    except OSError:  # closed meanwhile
        return False

"""The table around one hub for ``bench/pi_budget.py`` (see its docstring): the hub box
(the fake microcontroller in a process of its own), 8 phones on the live stream, the
sound port's stamps and systemd's watchdog pings, all read and stamped by one thread,
and the driver that plays a fast table on the box.

Every stamp is ``time.perf_counter_ns()``: CLOCK_MONOTONIC, the same clock in the
bench, the box and the hub, so a stamp taken in one process compares with another's.
"""

from __future__ import annotations

import json
import os
import random
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.benchstats import percentile
from tests.http_client import EventStream

# ``[gestures] flicker_ms``: a marker counts once it has sat this long, by design; its
# latency is timed from then, not from the edge.
FLICKER_NS = 80_000_000
TAP_S = 0.05  # a tap: down this long, then up
HOLD_S = 1.1  # a double: held this long (1.0-3.0 s is a hold)
CADENCE_S = 0.1  # from one gesture's start to the next's (a double: after its hold)
DOUBLE_SHARE = 0.05  # of the gestures with no double open
MARKER_SHARE = 0.08


# --- the hub box ------------------------------------------------------------------------


def box_child(link: str) -> None:
    """The box's process: a FakeMcu on a pty at ``link``, driven from stdin.

    ``b SLOT 0|1`` (a button) and ``m SLOT 0|1`` (a marker) set the level and scan it
    at once on this thread, stamped right before; nothing is answered, so nothing
    wakes the bench while the edge travels. ``s`` answers every stamp so far and the
    LED frames the firmware took, as one JSON line."""
    from firmware_bridge.fake_mcu import FakeMcu

    frames = [0]

    def took(pixels: object) -> None:
        frames[0] += 1

    mcu = FakeMcu(link, on_leds=took)
    print(mcu.path, flush=True)
    stamps: list[int] = []
    for line in sys.stdin:
        words = line.split()
        if words == ["s"]:
            print(json.dumps({"edges": stamps, "frames": frames[0]}), flush=True)
            continue
        what, slot, level = words[0], int(words[1]), words[2] == "1"
        stamps.append(time.perf_counter_ns())
        if what == "b":
            mcu.edge_now(slot, level)
        else:
            mcu.marker_now(slot, level)
    mcu.close()


class Box:
    """The hub box in a process of its own (as a real box is its own hardware, and as
    ``bench/serial_latency.py`` runs it), driven over a pipe."""

    def __init__(self, script: Path, link: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(script), "--box", link],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        assert self.proc.stdout is not None
        self.path = self.proc.stdout.readline().strip()
        if not self.path:
            raise RuntimeError("the fake microcontroller did not start")
        self.sent = 0

    def edge(self, what: str, slot: int, level: bool) -> int:
        """A button (``b``) or marker (``m``) edge on ``slot``; its index among the edges."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{what} {slot} {int(level)}\n")
        self.proc.stdin.flush()
        self.sent += 1
        return self.sent - 1

    def stamps(self) -> tuple[list[int], int]:
        """When each edge was made, in order, and how many LED frames the box took."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("s\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        return answer["edges"], answer["frames"]

    def close(self) -> None:
        """End the box's process."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


# --- what the bench hears -----------------------------------------------------------------


def table_key(state: dict[str, Any]) -> str:
    """The part of a snapshot a gesture changes (not the ring, the sound or link status)."""
    slots = [(s["marker"], s["public"]) for s in state["slots"]]
    game = state["game"]
    return json.dumps([state["turn"], state["doubles"], slots, game and game["phase"]])


class Phone:
    """One phone on ``GET /api/events``: each ``state``'s table key and when it came."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        self.sock.setblocking(False)
        self._stream = EventStream()
        self.states: list[tuple[int, str]] = []
        self.latest: dict[str, Any] | None = None
        self._changed = threading.Condition()

    def take(self, stamp: int, data: bytes) -> None:
        """Bytes read at ``stamp`` (the listener's thread)."""
        for fields in self._stream.feed(data):
            head = self._stream.head or b""
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise RuntimeError(f"a phone was refused: {head[:80]!r}")
            if fields.get(b"event") == b"state":
                state = json.loads(fields[b"data"])
                self.states.append((stamp, table_key(state)))
                with self._changed:
                    self.latest = state
                    self._changed.notify_all()

    def wait(self, check: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """The latest state once ``check(state)`` holds; TimeoutError after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.latest is None or not check(self.latest):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the phone did not see it; last state {self.latest}")
                self._changed.wait(left)
            return self.latest


class Stamps:
    """Lines the hub's sound port writes to a pipe: ``NAME STAMP`` per sound started."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.sounds: list[tuple[str, int]] = []
        self._rest = b""

    def take(self, stamp: int, data: bytes) -> None:
        """Bytes read from the pipe (the stamps in them are the hub's own)."""
        lines = (self._rest + data).split(b"\n")
        self._rest = lines.pop()
        for line in lines:
            name, at = line.decode().split()
            self.sounds.append((name, int(at)))


class Pings:
    """systemd's notify socket as the hub sees it: when each datagram came, and what."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.setblocking(False)
        self.watchdog: list[int] = []
        self.ready: int | None = None

    def take(self, stamp: int, data: bytes) -> None:
        """One datagram, arrived at ``stamp``."""
        lines = data.decode(errors="replace").split("\n")
        if "WATCHDOG=1" in lines:
            self.watchdog.append(stamp)
        if "READY=1" in lines and self.ready is None:
            self.ready = stamp


class Listener:
    """One thread that reads every phone, pipe and socket registered before
    :meth:`start`, stamping each read the moment it returns."""

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._stop_r, self._stop_w = os.pipe()
        self._selector.register(self._stop_r, selectors.EVENT_READ, None)
        self._thread = threading.Thread(target=self._run, name="listener", daemon=True)
        self._closed = False
        self.error: BaseException | None = None
        # what the other end closed while read (a phone's stream the hub ended): when, which
        self.ended: list[tuple[int, socket.socket | int]] = []

    def add(self, source: socket.socket | int, take: Callable[[int, bytes], None]) -> None:
        """Read ``source`` (a socket, or a pipe's fd) and hand each read to ``take``."""
        self._selector.register(source, selectors.EVENT_READ, take)

    def start(self) -> None:
        """Start reading."""
        self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                for key, _ in self._selector.select():
                    if key.data is None:
                        return
                    source = key.fileobj
                    try:
                        if isinstance(source, socket.socket):
                            data = source.recv(65536)
                        else:
                            data = os.read(source, 65536)  # type: ignore[arg-type]
                    except BlockingIOError:
                        continue
                    stamp = time.perf_counter_ns()
                    if not data:
                        self._selector.unregister(source)
                        self.ended.append((stamp, source))
                        continue
                    key.data(stamp, data)
        except BaseException as exc:  # noqa: BLE001 - reported by the bench
            self.error = exc

    def stop(self) -> None:
        """Stop reading and close the sockets registered (once; again does nothing)."""
        if self._closed:
            return
        self._closed = True
        if self._thread.is_alive():
            os.write(self._stop_w, b".")
            self._thread.join(5)
        for key in list(self._selector.get_map().values()):
            if isinstance(key.fileobj, socket.socket):
                key.fileobj.close()
        self._selector.close()
        os.close(self._stop_r)
        os.close(self._stop_w)


# --- the fast table ------------------------------------------------------------------------


@dataclass
class Gesture:
    """One gesture the driver made: which, where, the sound it should start, the index
    of the edge it is timed from, the table key before it, and how long after that
    edge the hub may act (a marker's flicker window)."""

    kind: str
    slot: int
    sound: str | None
    edge: int
    before: str
    after_ns: int = 0


def choose(state: dict[str, Any], rng: random.Random) -> tuple[str, int, str | None]:
    """The next gesture for the table in ``state``: (kind, slot, sound it starts)."""
    turn = state["turn"]
    if turn is None:  # the round waits for its engine: the first seat places it
        return "engine", state["game"]["seats"][0], None
    active = next((d for d in state["doubles"] if not d["waiting"]), None)
    if active is not None:
        return "cover", active["slot"], "turn"
    roll = rng.random()
    if roll < DOUBLE_SHARE:
        return "double", turn, "chicken"
    if roll < DOUBLE_SHARE + MARKER_SHARE:
        if state["slots"][turn - 1]["marker"]:
            return "marker-off", turn, None  # the owner lifts it in their turn: no sound
        return "marker-on", turn, "choo"
    return "tap", turn, "turn"


@dataclass
class Played:
    """What a driver did: its gestures, and how many started late (the last one not
    yet on the control phone when the next was due) or were never shown."""

    gestures: list[Gesture]
    late: int = 0
    unseen: int = 0
    started: float = 0.0
    ended: float = 0.0
    # each gesture never shown: its index and the table key the phone still showed
    unseen_at: list[tuple[int, str]] = field(default_factory=list)


def play(box: Box, control: Phone, seconds: float, seed: int, stop: threading.Event) -> Played:
    """Play a fast table on ``box`` for ``seconds``: a gesture every 100 ms (a double
    held 1.2 s), each chosen from what the control phone shows, as a person looks
    before pressing. A gesture due before the last one shows waits for it (``late``)."""
    rng = random.Random(seed)
    played = Played([], started=time.monotonic())
    due = played.started
    end = played.started + seconds
    while not stop.is_set() and due < end:
        time.sleep(max(0.0, due - time.monotonic()))
        state = control.latest
        assert state is not None
        if played.gestures and table_key(state) == played.gestures[-1].before:
            played.late += 1
            last = played.gestures[-1].before
            try:
                state = control.wait(lambda s, last=last: table_key(s) != last, 5.0)
            except TimeoutError:
                played.unseen += 1
                played.unseen_at.append((len(played.gestures) - 1, last))
        kind, slot, sound = choose(state, rng)
        began = time.monotonic()
        played.gestures.append(_make(box, kind, slot, sound, table_key(state)))
        due = began + CADENCE_S + (HOLD_S if kind == "double" else 0.0)
    played.ended = time.monotonic()
    if played.gestures:  # let the last one show before the figures are read
        last = played.gestures[-1].before
        try:
            control.wait(lambda s: table_key(s) != last, 5.0)
        except TimeoutError:
            played.unseen += 1
            played.unseen_at.append((len(played.gestures) - 1, last))
    return played


def _make(box: Box, kind: str, slot: int, sound: str | None, before: str) -> Gesture:
    """Make one gesture on the box; the gesture as timed (from its last edge)."""
    if kind.startswith("marker"):
        edge = box.edge("m", slot, kind == "marker-on")
        return Gesture(kind, slot, sound, edge, before, FLICKER_NS)
    box.edge("b", slot, True)
    time.sleep(HOLD_S if kind == "double" else TAP_S)
    return Gesture(kind, slot, sound, box.edge("b", slot, False), before)


# --- the figures ------------------------------------------------------------------------------


@dataclass
class Heard:
    """Latencies in milliseconds, and the gestures nothing was heard for."""

    sound: list[float]
    phone: list[float]
    no_sound: int
    no_state: int
    sound_kinds: list[str] = field(default_factory=list)  # each sound's gesture kind
    phone_kinds: list[str] = field(default_factory=list)  # each phone state's


def latencies(
    gestures: list[Gesture], edges: list[int], sounds: list[tuple[str, int]], phones: list[Phone]
) -> Heard:
    """Each gesture's sound at the port and its state at every phone, matched in order:
    the first sound of the right name, and at each phone the first state whose table
    key differs from the one before the gesture, after the gesture's edge."""
    heard = Heard([], [], 0, 0)
    by_name: dict[str, list[int]] = {}
    for name, at in sounds:
        # The voice (on "turns" by default) says "Bea's turn" in the turn chime's place:
        # its first sample is that gesture's sound.
        by_name.setdefault("turn" if name == "say" else name, []).append(at)
    taken = {name: 0 for name in by_name}
    for g in gestures:
        edge = edges[g.edge]
        if g.sound is None:
            continue
        times = by_name.get(g.sound, [])
        i = taken.get(g.sound, 0)
        while i < len(times) and times[i] < edge:
            i += 1
        if i == len(times):
            heard.no_sound += 1
            continue
        taken[g.sound] = i + 1
        heard.sound.append((times[i] - edge - g.after_ns) / 1e6)
        heard.sound_kinds.append(g.kind)
    for phone in phones:
        j = 0
        for g in gestures:
            edge = edges[g.edge]
            while j < len(phone.states) and (
                phone.states[j][0] < edge or phone.states[j][1] == g.before
            ):
                j += 1
            if j == len(phone.states):
                heard.no_state += 1
                continue
            heard.phone.append((phone.states[j][0] - edge - g.after_ns) / 1e6)
            heard.phone_kinds.append(g.kind)
    return heard


def longest_stall(pings: list[int], start: int, end: int, interval_ns: int) -> float | None:
    """Milliseconds: the longest gap between two watchdog pings in [start, end], less
    the interval the loop waits between them (None without two pings)."""
    inside = [p for p in pings if start <= p <= end]
    if len(inside) < 2:
        return None
    return (max(b - a for a, b in zip(inside, inside[1:], strict=False)) - interval_ns) / 1e6


def worst_stalls(
    pings: list[int], gestures: list[Gesture], edges: list[int], interval_ns: int, n: int = 3
) -> list[tuple[float, str, float, float]]:
    """The ``n`` longest gaps between watchdog pings while the table played, longest
    first: (ms of stall, the kind of the last gesture before the gap, ms from that
    gesture's edge to the gap's start, s into the table)."""
    if not gestures:
        return []
    start, end = edges[gestures[0].edge], edges[gestures[-1].edge]
    inside = [p for p in pings if start <= p <= end]
    gaps = sorted(zip(inside, inside[1:], strict=False), key=lambda ab: ab[0] - ab[1])[:n]
    worst = []
    for a, b in gaps:
        before = [g for g in gestures if edges[g.edge] <= a]
        last = before[-1] if before else gestures[0]
        stall, after = (b - a - interval_ns) / 1e6, (a - edges[last.edge]) / 1e6
        worst.append((stall, last.kind, after, (a - start) / 1e9))
    return worst


def p(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile, or None for no values."""
    return percentile(values, q) if values else None

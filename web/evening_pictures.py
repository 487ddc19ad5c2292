"""The evening's pictures, drawn one at a time and kept until the evening changes
(issue 33: each ``GET /api/evening.png`` started a drawing process of its own, so 16
at once were 16 Pillow processes, 1.7 GB for a long evening).

A picture is named by what it shows (:func:`web.evening_png.key` of its lines): the
same evening in the same language is the same name until a game of it is finished,
corrected or renamed, and then the name is new. :class:`EveningPictures` keeps the
last :data:`KEEP` pictures drawn; a picture asked for while it is being drawn is
waited for, not drawn again; one drawer thread draws one picture at a time (each in a
child process, :func:`web.evening_png.render`), and at most :data:`QUEUE` different
pictures may be drawn or waiting: past that, :class:`PicturesBusy`. So whatever the
phones ask, at most one drawing process runs, and an asker waits at most
:data:`QUEUE` drawings (each bounded by the child's timeout). Phones asking at once
for the same evening also share one reading of it from the store (:meth:`shared`).

The app owns one (``app.extensions["evening_pictures"]``, made by
:func:`web.create_app`); tests hand it a drawer of their own.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from web.evening_png import Lines

log = logging.getLogger("hub")

KEEP = 8  # pictures kept (~50-150 KB each): a few evenings, in both languages
QUEUE = 2  # different pictures being drawn or waiting their turn, at most
READ_WAIT_S = 30  # a reading of the evening waited for, at most (it takes milliseconds)
Draw = Callable[[Lines], bytes]  # the lines drawn as PNG bytes (raises if it failed)


class PicturesBusy(Exception):
    """:data:`QUEUE` other pictures are being drawn or wait their turn."""


class EveningPictures:
    """The pictures drawn and kept, and the ones being drawn (see the module)."""

    def __init__(self, draw: Draw, keep: int = KEEP, queue: int = QUEUE) -> None:
        self._draw, self._keep, self._queue = draw, keep, queue
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._drawing: dict[str, Future[bytes]] = {}  # by name, drawn or waiting
        self._reading: dict[Hashable, Future[Any]] = {}  # evenings being read, by question
        self._drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evening-png")
        self.drawn = 0  # pictures drawn, failed ones too (the bench and tests read it)

    def shared(self, question: Hashable, read: Callable[[], Any]) -> Any:
        """``read()``, done once for every phone asking ``question`` while it is being
        done: 16 phones asking at once for a long evening's picture read the evening
        once (~10 ms of the interpreter's lock each, which ``GET /api/state`` waited
        for), not 16 times. Its result (or what it raised) is every asker's."""
        with self._lock:
            reading = self._reading.get(question)
            mine = reading is None
            if reading is None:
                reading = self._reading[question] = Future()
        if not mine:
            return reading.result(timeout=READ_WAIT_S)
        try:
            answer = read()
        except BaseException as exc:
            reading.set_exception(exc)
            raise
        else:
            reading.set_result(answer)
            return answer
        finally:
            with self._lock:
                del self._reading[question]

    def picture(self, name: str, shown: Lines) -> Future[bytes]:
        """The picture of ``shown``, named ``name``: done at once when it is kept, else
        the future of its one drawing. :class:`PicturesBusy` when :data:`QUEUE` other
        pictures are being drawn or waiting."""
        with self._lock:
            kept = self._kept.get(name)
            if kept is not None:
                self._kept.move_to_end(name)
                done: Future[bytes] = Future()
                done.set_result(kept)
                return done
            drawing = self._drawing.get(name)
            if drawing is not None:
                return drawing
            if len(self._drawing) >= self._queue:
                raise PicturesBusy(f"{len(self._drawing)} pictures are being drawn or wait")
            drawing = self._drawer.submit(self._draw_and_keep, name, shown)
            self._drawing[name] = drawing
            return drawing

    def _draw_and_keep(self, name: str, shown: Lines) -> bytes:
        """On the drawer thread: draw, keep, and let the next asker find it kept."""
        try:
            png = self._draw(shown)
        except Exception as exc:
            said = getattr(exc, "stderr", None) or b""  # the child's own words, if any
            tail = said[-800:].decode(errors="replace")
            log.exception("the evening's picture could not be drawn: %s", tail)
            with self._lock:
                del self._drawing[name]
                self.drawn += 1
            raise
        with self._lock:
            self._kept[name] = png
            while len(self._kept) > self._keep:
                self._kept.popitem(last=False)
            del self._drawing[name]
            self.drawn += 1
        return png

"""What the web server offers the web layer, and the web layer the server: the
contract between ``hub/http/`` (the server) and ``web/`` (the Flask app), in the room
both may import, so the server never imports the app it serves.

- ``environ[LIVE_SERVER]`` (:class:`ServerTakeover`): the server takes a request over
  from its worker thread (a live stream, an answer that resolves later).
- :class:`EarlyGate`: the app's cheap refusal, called by the server before a worker
  runs; ``environ[EARLY_CHECKED]`` says the gate has counted the request.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future
from typing import Any, NamedTuple, Protocol

# The WSGI environ key of a server that can take a request over from its worker thread
# (hub/http/workers.py provides one, Handover; the Flask test client and other servers do not).
LIVE_SERVER = "mtrain.live"


class ServerTakeover(Protocol):
    """What the web server offers a handler in ``environ[LIVE_SERVER]``: to serve the
    answer off the worker thread, once the handler has returned (its status and headers
    are kept, its body is not sent)."""

    def stream(self, kinds: Iterable[str]) -> bool:
        """Serve the answer as a live stream: the snapshot, then news of ``kinds``, as
        Server-Sent Events. False when the server holds all the streams it can."""

    def answer_later(self, future: Future[Any]) -> None:
        """Send the JSON of ``future``'s result as the body once it resolves; a result
        that is a :class:`WholeAnswer` is sent as it is instead (its status, its headers
        in place of the handler's, its body)."""


class WholeAnswer(NamedTuple):
    """An answer made whole off the request (the evening's picture once drawn, or the
    503 saying it could not be): the status line ("200 OK"), headers and body."""

    status: str
    headers: list[tuple[str, str]]
    body: bytes


# A refusal the server writes itself: status ("429 Too Many Requests"), headers, body.
EarlyAnswer = tuple[str, list[tuple[str, str]], bytes]
# The environ key a server with an :class:`EarlyGate` sets: the gate has seen (and
# counted) this request before it reached Flask.
EARLY_CHECKED = "mtrain.early_checked"


class EarlyGate(Protocol):
    """What the web layer hands the server to refuse cheaply: called for every request
    once it has arrived whole, on the server's own thread, before a worker or Flask
    does anything. A flood (claims from phones with no token) costs the hub one call
    and a canned answer, not a request (issue 25, HIGH 2)."""

    def __call__(self, method: str, path: str, client: str) -> EarlyAnswer | None:
        """The answer to refuse the request with, or None to serve it. ``path`` is the
        one the app will be handed (``PATH_INFO``), in the server's one form of it:
        decoded, slashes merged, dot segments resolved (hub/http/targets.py)."""

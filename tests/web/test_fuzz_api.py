"""Acceptance 5 of issue 10: every endpoint's body, path and query, fuzzed.

The endpoints are read from the app's ``url_map``, so a new one is fuzzed without
touching this file. Each case sends a request built by hypothesis (random JSON values
and near-valid bodies, random strings, whole numbers huge and negative, wrong content
types) to a real hub (sim backend, virtual clock) and checks:

- never a 5xx (the test client re-raises a handler's exception, so a bug fails here
  with its traceback);
- after every 4xx, nothing changed: the snapshot, the games list, the settings and
  the event log are what they were before the request.

Requests carry what the hub's own page sends (``Content-Type: application/json``, the
hub's ``Origin`` and the scorekeeper's token) most of the time, so they reach the
handlers' checks and not only the trust model's. ``settings(max_examples=...)`` keeps
the normal run within about a minute; the long variant's 400 requests per endpoint run
in ``make torture`` (``MTRAIN_TEST_SCALE``, tests/helpers.py).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.routing import IntegerConverter, Rule

from hub.http.adapter import HubWebService
from hub.wire.serving import LIVE_SERVER
from tablesim.virtual import FakeClock
from tests.doubles import InlineTakeover, InlineTimers
from tests.helpers import scaled
from web import create_app

HOST = "localhost"  # the test client's host: the hub's own origin
ORIGIN = f"http://{HOST}"
PLAYERS = ["Ann", "Bo", "Cy"]
LONG_EXAMPLES = scaled(quick=10, long=400)  # per endpoint, in test_fuzz_endpoint_long
FIELDS = [
    "players",
    "rules",
    "seats",
    "mexican_slot",
    "first",
    "set",
    "rounds",
    "options",
    "points",
    "tiles",
    "went_out",
    "volume",
    "quiet",
    "turn_chime",
    "voice",
    "voice_language",
    "spoken_names",
    "hold_ms",
    "present",
    "game",
    "token",
    "turn",
    "double",
    "public",
    "engine",
    "action",
    "version",
    "slot",
    "covers_left",
    "responsible",
    "chickenfoot",
    "double_blank",
]
QUERY = ["limit", "rules", "players", "set", "since", "token"]
NAMES = PLAYERS + ["__proto__", "constructor", "Аnn", "ann", "Ann\u200b", "", "Mexican"]

# --- strategies ---------------------------------------------------------------------

INTS = st.one_of(
    st.integers(-10, 20),
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**31 - 1, 2**31, 2**53, 2**53 + 1, 2**63, -(2**63) - 1]),
)
TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(NAMES + ["consensus", "aces", "on", "off", "mute", "start"]),
)
SCALARS = st.one_of(
    st.none(), st.booleans(), INTS, TEXT, st.floats(allow_nan=False, allow_infinity=False, width=32)
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(TEXT, st.sampled_from(FIELDS)), inner, max_size=5),
    ),
    max_leaves=20,
)
NEAR_VALID = st.fixed_dictionaries(
    {},
    optional={
        "players": st.one_of(st.lists(st.sampled_from(NAMES), max_size=9), JSON_VALUES),
        "rules": st.one_of(st.sampled_from(["consensus", "aces", "triples", "x"]), JSON_VALUES),
        "seats": st.one_of(st.lists(INTS, max_size=4), JSON_VALUES),
        "options": st.one_of(
            st.dictionaries(st.sampled_from(FIELDS), SCALARS, max_size=3), JSON_VALUES
        ),
        "points": st.dictionaries(st.sampled_from(NAMES), st.one_of(INTS, JSON_VALUES), max_size=4),
        "tiles": st.dictionaries(st.sampled_from(NAMES), st.lists(TEXT, max_size=3), max_size=3),
        "went_out": st.one_of(st.none(), st.sampled_from(NAMES)),
        "hold_ms": st.one_of(st.integers(-5, 60), INTS, JSON_VALUES),
        "present": st.one_of(st.booleans(), JSON_VALUES),
        "volume": st.one_of(st.floats(-1, 2), JSON_VALUES),
        "quiet": st.one_of(st.sampled_from(["off", "mute", "turn-only"]), JSON_VALUES),
        "turn": INTS,
        "engine": INTS,
        "game": INTS,
        "token": TEXT,
        "action": st.sampled_from(["yes", "no", "skip", "stop", "x"]),
        "double": st.one_of(
            st.fixed_dictionaries({"slot": st.one_of(st.none(), INTS)}), JSON_VALUES
        ),
    },
)
RAW_BODIES = st.one_of(
    st.binary(max_size=64),
    st.sampled_from(
        [
            b"[" * 5000,
            b'{"a":' * 40 + b"1" + b"}" * 40,
            b'{"a": NaN}',
            b'{"a": 1, "a": 2}',
            b'{"hold_ms": 1e999}',
            b"\xff\xfe",
            b'{"players": ["\\ud800", "Bo"]}',
            b"null",
            b"[]",
            b'"x"',
        ]
    ),
)
CONTENT_TYPES = st.sampled_from(
    ["application/json"] * 6
    + [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin-1",
        "",
    ]
)


def _segment(converter: str, game_id: int) -> st.SearchStrategy[str]:
    if converter == "path":
        return st.one_of(
            st.sampled_from(["index.html", "app.js", "../pyproject.toml"]),
            st.text(min_size=1, max_size=20).map(lambda s: quote(s, safe="")),
        )
    return st.one_of(
        st.sampled_from([str(game_id), "1", "0"]),
        INTS.map(str),
        st.text(min_size=1, max_size=10).map(lambda s: quote(s, safe="")),
    )


def _path(rule: Rule, game_id: int) -> st.SearchStrategy[str]:
    parts = re.split(r"<([^>]+)>", rule.rule)  # literal, spec, literal, spec, ...
    pieces: list[st.SearchStrategy[str]] = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            pieces.append(st.just(part))
        else:
            converter = part.split(":")[0].split("(")[0] if ":" in part else "default"
            pieces.append(_segment(converter, game_id))
    return st.tuples(*pieces).map("".join)


# --- the hub under test -------------------------------------------------------------


class Table:
    """A sim hub on a virtual clock, its app, and a way to read all it holds."""

    def __init__(self, make_hub: Callable[..., Any]) -> None:
        self.clock = FakeClock()
        self.hub = make_hub(threaded=True, clock=self.clock)
        self.service = HubWebService(
            self.hub.web_parts(), sleep=self._sleep, timers=InlineTimers(self._sleep)
        )
        self.app = create_app(self.service, {"TESTING": True})
        self.client = self.app.test_client()
        # As the hub's server does on every request: it takes streams and answers over.
        self.client.environ_base[LIVE_SERVER] = InlineTakeover()
        started = self.client.post(
            "/api/games", json={"players": PLAYERS}, headers={"Origin": ORIGIN}
        )
        assert started.status_code == 201, started.get_json()
        self.game_id: int = started.get_json()["id"]
        self.token: str = started.get_json()["token"]

    def _sleep(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.hub.loop.drain()

    def everything(self) -> tuple[str, ...]:
        """The hub's whole observable state, as text to compare."""
        self.hub.loop.drain()
        # The ring's picture is drawn from the table (compared here) plus the flash of a
        # refused press, which ends on a wall-clock timer (hub/io/lights.py): left out.
        snapshot = {k: v for k, v in self.service.snapshot().items() if k != "ring"}
        parts: tuple[object, ...] = (
            snapshot,
            self.service.list_games(),
            self.service.settings(),
            self.service.recent_log(2000),
        )
        return tuple(json.dumps(part, sort_keys=True, default=str) for part in parts)


@pytest.fixture
def table(make_hub: Callable[..., Any]) -> Table:
    return Table(make_hub)


def _rules() -> list[Rule]:
    from tests.fake_service import FakeHubService

    app = create_app(FakeHubService(), {"TESTING": True})
    return sorted(app.url_map.iter_rules(), key=lambda r: r.rule)


RULES = _rules()


def _methods(rule: Rule) -> list[str]:
    return sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})


@st.composite
def requests(draw: st.DrawFn, rule: Rule, table: Table) -> dict[str, Any]:
    """One request to ``rule``: method, path, query, headers and body."""
    method = draw(
        st.sampled_from(
            _methods(rule) + ["PUT"] if draw(st.integers(0, 19)) == 0 else _methods(rule)
        )
    )
    path = draw(_path(rule, table.game_id))
    query = draw(st.dictionaries(st.sampled_from(QUERY) | TEXT, TEXT | INTS.map(str), max_size=3))
    headers = (
        {"Origin": ORIGIN}
        if draw(st.integers(0, 9))
        else {"Origin": draw(st.sampled_from(["http://evil.example", "null", "http://[", ""]))}
    )
    token = draw(st.sampled_from([table.token] * 4 + ["", "x", table.token.upper()]))
    if token:
        headers["Authorization"] = draw(st.sampled_from(["Bearer ", "bearer ", "Basic "])) + token
    content_type = draw(CONTENT_TYPES)
    body_kind = draw(st.integers(0, 9))
    if body_kind < 4:
        data = json.dumps(draw(NEAR_VALID)).encode()
    elif body_kind < 8:
        data = json.dumps(draw(JSON_VALUES)).encode()
    else:
        data = draw(RAW_BODIES)
    if query:
        path += "?" + urlencode(query)
    return {
        "method": method,
        "path": path,
        "headers": headers,
        "data": data,
        "content_type": content_type,
    }


def _send(table: Table, request: dict[str, Any]) -> int:
    response = table.client.open(
        request["path"],
        method=request["method"],
        headers=request["headers"],
        data=request["data"],
        content_type=request["content_type"],
        buffered=False,
    )
    status = response.status_code
    if response.mimetype != "text/event-stream":  # an endless stream: status only
        response.get_data()
    response.close()
    return status


def _diff(before: tuple[str, ...], after: tuple[str, ...]) -> str:
    """What changed, part by part (snapshot, games, settings, log)."""
    lines: list[str] = []
    for name, one, other in zip(
        ("snapshot", "games", "settings", "log"), before, after, strict=True
    ):
        if one != other:
            lines += [
                f"{name}:",
                *difflib.unified_diff(
                    json.dumps(json.loads(one), indent=1).splitlines(),
                    json.dumps(json.loads(other), indent=1).splitlines(),
                    lineterm="",
                    n=1,
                ),
            ]
    return "\n".join(lines)


def _fuzz(table: Table, rule: Rule, examples: int) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def one(data: st.DataObject) -> None:
        request = data.draw(requests(rule, table), label="request")
        before = table.everything()
        status = _send(table, request)
        assert status < 500, request
        if 400 <= status < 500:
            after = table.everything()
            assert after == before, f"a {status} changed the hub: {request}\n" + _diff(
                before, after
            )

    one()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{','.join(_methods(r))} {r.rule}")
def test_fuzz_endpoint(table: Table, rule: Rule) -> None:
    """Never a 5xx, never a change after a 4xx (a short run for every test run)."""
    _fuzz(table, rule, examples=40 if _methods(rule) != ["GET"] else 15)


@pytest.mark.slow
@pytest.mark.torture
@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{','.join(_methods(r))} {r.rule}")
def test_fuzz_endpoint_long(table: Table, rule: Rule) -> None:
    """The same, ten times longer under ``make torture``; a few more in an ordinary run."""
    _fuzz(table, rule, examples=LONG_EXAMPLES)


def test_every_endpoint_is_fuzzed() -> None:
    """The url_map holds the API: the fuzz reaches each endpoint the docs list."""
    paths = {rule.rule for rule in RULES}
    assert {"/api/games", "/api/settings", "/api/state", "/api/log"} <= paths
    assert any("/rounds/" in path and path.endswith("/scores") for path in paths)


def test_every_number_in_a_path_is_bounded() -> None:
    """Each int converter of the url_map has the ``ID`` bound: a path number beyond it is
    a 404 at the router and never reaches SQLite (which overflows past 2^63 - 1)."""
    unbounded = [
        f"{rule.rule} <{name}>"
        for rule in RULES
        for name, converter in rule._converters.items()
        if isinstance(converter, IntegerConverter) and converter.max is None
    ]
    assert unbounded == []


@pytest.mark.parametrize("game_id", [2**31, 2**63])
def test_bringing_back_a_game_beyond_the_ids_is_a_404(table: Table, game_id: int) -> None:
    """Found by the long fuzz: ``POST /api/games/9223372036854775808/resume`` with the
    scorekeeper's token was a 500 (OverflowError from SQLite checking the token)."""
    before = table.everything()
    response = table.client.post(
        f"/api/games/{game_id}/resume",
        json={},
        headers={"Origin": ORIGIN, "Authorization": f"Bearer {table.token}"},
    )
    assert response.status_code == 404, response.get_json()
    assert table.everything() == before

"""The tournament board's model and web side, and ``mtrain-hub board`` on a real broker."""

from __future__ import annotations

import json
import threading

import pytest

import hub.board.model as board_module
import hub.board.shapes as board_shapes
from hub.board.app import create_board_app
from hub.board.model import TournamentBoard, standings, summary
from tests.helpers import eventually


def game(players, rounds, winner=None):
    return {
        "id": 1,
        "players": players,
        "round": len(rounds) + 1,
        "round_count": 13,
        "engine": 12 - len(rounds),
        "finished": False,
        "rounds": [
            {"round": i + 1, "points": pts, "went_out": out} for i, (pts, out) in enumerate(rounds)
        ],
        "totals": {p: sum(r[0].get(p, 0) for r in rounds) for p in players},
        "standings": sorted(players, key=lambda p: sum(r[0].get(p, 0) for r in rounds)),
        "winner": winner,
    }


def state(turn, players):
    return {
        "game": {
            "id": 1,
            "round": 2,
            "rounds": 13,
            "engine": 11,
            "phase": "play",
            "players": players,
        },
        "turn": turn,
        "slots": [{"slot": i + 1, "owner": p} for i, p in enumerate(players)],
    }


def feed(board, hub_id, leaf, payload):
    raw = (
        payload
        if isinstance(payload, bytes)
        else (payload.encode() if isinstance(payload, str) else json.dumps(payload).encode())
    )
    board.post(f"mtrain/{hub_id}/{leaf}", raw)
    board.drain()


def test_tables_and_their_turns():
    board = TournamentBoard()
    feed(board, "t1", "status", "online")
    feed(board, "t1", "state", state(2, ["Ann", "Bob"]))
    feed(board, "t1", "game", game(["Ann", "Bob"], [({"Ann": 0, "Bob": 12}, "Ann")]))
    view = board.view()
    (table,) = view["tables"]
    assert table["hub_id"] == "t1" and table["online"] is True
    assert table["turn"] == "Bob" and table["round"] == 2 and table["engine"] == 11
    assert [p["name"] for p in table["players"]] == ["Ann", "Bob"]
    assert table["players"][1]["total"] == 12


def test_offline_tables_stay_on_the_board():
    board = TournamentBoard()
    feed(board, "t1", "status", "online")
    feed(board, "t1", "game", game(["Ann"], [({"Ann": 5}, None)]))
    feed(board, "t1", "status", "offline")
    (table,) = board.view()["tables"]
    assert table["online"] is False
    assert board.view()["standings"][0]["online"] is False


def test_standings_across_tables_lowest_first_ties_to_more_rounds_won():
    t1 = game(["Ann", "Bob"], [({"Ann": 0, "Bob": 20}, "Ann"), ({"Ann": 10, "Bob": 0}, "Bob")])
    t2 = game(["Cy", "Di"], [({"Cy": 10, "Di": 0}, "Di"), ({"Cy": 0, "Di": 40}, "Cy")])
    from hub.board.model import TableSeen

    rows = standings([TableSeen("t1", True, game=t1), TableSeen("t2", True, game=t2)])
    assert [(r["name"], r["points"], r["won"], r["place"]) for r in rows] == [
        ("Ann", 10, 1, 1),
        ("Cy", 10, 1, 1),
        ("Bob", 20, 1, 3),
        ("Di", 40, 1, 4),
    ]
    t3 = game(["Ed"], [({"Ed": 10}, "Ed"), ({"Ed": 0}, "Ed")])
    rows = standings([TableSeen("t1", True, game=t1), TableSeen("t3", True, game=t3)])
    assert rows[0]["name"] == "Ed" and rows[0]["place"] == 1 and rows[1]["place"] == 2


@pytest.mark.parametrize(
    ("leaf", "payload"),
    [
        ("state", b"{nope"),
        ("state", b"[1, 2]"),
        ("status", b"maybe"),
        ("game", b"\xff"),
    ],
)
def test_bad_payloads_are_logged_and_ignored(leaf, payload, caplog):
    board = TournamentBoard()
    feed(board, "t1", leaf, payload)
    assert board.view()["tables"] == [] and "ignored" in caplog.text


def test_other_topics_are_ignored():
    board = TournamentBoard()
    board.post("mtrain/t1/event", b"{}")
    board.post("mtrain/t1/slot/1/public", b"ON")
    board.post("other/t1/state", b"{}")
    assert board.drain() == 3 and board.view()["tables"] == []


def test_changes_since_coalesces():
    board = TournamentBoard()
    version = board.view()["version"]
    assert board.changes_since(version, 0.01) is None
    for turn in (1, 2, 1):
        feed(board, "t1", "state", state(turn, ["Ann", "Bob"]))
    feed(board, "t2", "status", "online")
    changes = board.changes_since(version, 0.01)
    assert [t["hub_id"] for t in changes.tables] == ["t1", "t2"]
    assert changes.tables[0]["turn"] == "Ann" and changes.standings is None


def test_the_page_and_its_stream():
    board = TournamentBoard()
    feed(board, "t1", "game", game(["Ann"], []))
    stopping = threading.Event()
    client = create_board_app(board, stopping).test_client()
    with client.get("/") as page:
        assert page.status_code == 200 and b"Tournament board" in page.data
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    with client.get("/static/board.js") as script:
        assert script.status_code == 200
    assert client.get("/api/board").get_json()["tables"][0]["hub_id"] == "t1"
    response = client.get("/api/board/events", buffered=False)
    chunks = response.response
    first = next(chunks).decode()
    assert "event: board" in first
    feed(board, "t2", "status", "online")
    update = next(chunks).decode()
    assert "event: tables" in update and '"hub_id":"t2"' in update
    stopping.set()
    response.close()


def test_summary_of_an_unknown_table():
    from hub.board.model import TableSeen

    assert summary(TableSeen("t9"))["round"] is None


def test_players_of_tables_with_no_round_scored_are_unplaced():
    from hub.board.model import TableSeen

    rows = standings(
        [
            TableSeen("t1", True, game=game(["Ann"], [({"Ann": 9}, None)])),
            TableSeen("t2", True, game=game(["Bo"], [])),
        ]
    )
    assert [(r["name"], r["place"]) for r in rows] == [("Ann", 1), ("Bo", None)]


def test_posts_wait_for_the_writer_and_apply_as_one_batch():
    board = TournamentBoard()
    version = board.view()["version"]
    board.post_connected(True)
    for turn in (1, 2):
        board.post("mtrain/t1/state", json.dumps(state(turn, ["Ann", "Bob"])).encode())
    board.post("mtrain/t2/state", b"{nope")
    board.post("mtrain/t2/game", json.dumps(game(["Cy"], [({"Cy": 3}, "Cy")])).encode())
    assert board.view()["tables"] == []  # paho's thread only posted
    # t1's two states wait as one, the newest: the board applies four topics
    assert board.drain() == 4 and board.drain() == 0
    changes = board.changes_since(version, 0.01)
    assert changes.connected and changes.version == version + 3  # one per applied post
    assert [(t["hub_id"], t["turn"]) for t in changes.tables] == [("t1", "Bob"), ("t2", None)]
    assert [r["name"] for r in changes.standings] == ["Cy"]


def test_posts_waiting_are_bounded_and_the_dropped_counted(monkeypatch, caplog):
    monkeypatch.setattr(board_module, "MOST_PENDING", 3)
    board = TournamentBoard()
    for hub_id in ("t1", "t2", "t3", "t4", "t5"):
        board.post(f"mtrain/{hub_id}/status", b"online")
    board.post("mtrain/t1/status", b"offline")  # a topic already waiting: kept, newest
    assert board.dropped == 2 and "dropped" in caplog.text
    assert board.drain() == 3
    tables = {t["hub_id"]: t["online"] for t in board.view()["tables"]}
    assert tables == {"t1": False, "t2": True, "t3": True}
    board.post("mtrain/t4/status", b"online")  # room again once the writer took them
    assert board.drain() == 1 and board.dropped == 2


def test_the_writer_thread_applies_posts():
    board = TournamentBoard()
    stopping = threading.Event()
    thread = board.start(stopping)
    board.post("mtrain/t1/status", b"online")
    changes = board.changes_since(0, 10.0)
    stopping.set()
    thread.join(5)
    assert changes is not None and changes.tables[0]["online"] is True
    assert not thread.is_alive()


WRONG_SHAPES = [
    ("game", {"totals": [1]}),
    ("game", {"players": "Ann", "standings": {"Ann": 1}, "totals": {"Ann": "x"}}),
    ("game", {"players": [["Ann"], "Bob"], "rounds": [{"points": {"Bob": "12"}}, 7, None]}),
    ("game", {"players": ["Ann"], "rounds": {"1": 2}, "id": {"no": 1}, "winner": []}),
    ("state", {"slots": 5, "turn": {}}),
    ("state", {"game": {"players": [{}], "round": [2]}, "slots": [3, {"slot": [1]}], "turn": 1}),
    ("state", {"game": "t1", "turn": [1]}),
    (
        "game",
        {
            "players": ["Ann"],
            "totals": {"Ann": 1e999},
            "id": float("nan"),
            "rounds": [{"points": {"Ann": float("-inf")}}],
            "round": float("inf"),
        },
    ),
]


@pytest.mark.parametrize(("leaf", "payload"), WRONG_SHAPES)
def test_well_formed_json_of_the_wrong_shape_is_cut_to_what_fits(leaf, payload):
    board = TournamentBoard()
    feed(board, "t1", "game", game(["Ann", "Bob"], [({"Ann": 0, "Bob": 12}, "Ann")]))
    feed(board, "t1", leaf, payload)
    # What the page gets: plain JSON (no NaN or Infinity, which JSON.parse refuses).
    view = json.loads(json.dumps(board.view(), allow_nan=False))
    (table,) = view["tables"]
    assert table["hub_id"] == "t1"
    for player in table["players"]:
        assert isinstance(player["name"], str)
        assert player["total"] is None or isinstance(player["total"], int | float)
    for row in view["standings"]:
        assert isinstance(row["name"], str) and isinstance(row["points"], int)


def test_the_writer_outlives_any_message():
    board = TournamentBoard()
    stopping = threading.Event()
    thread = board.start(stopping)
    try:
        for leaf, payload in WRONG_SHAPES:
            board.post(f"mtrain/bad/{leaf}", json.dumps(payload).encode())
        board.post("mtrain/deep/state", b"[" * 100_000)  # deeper than json can parse
        board.post("mtrain/t1/status", b"online")  # and a good one after them
        assert board.changes_since(0, 10.0) is not None
        assert eventually(lambda: any(t["hub_id"] == "t1" for t in board.view()["tables"]))
        assert thread.is_alive()
    finally:
        stopping.set()
        thread.join(5)


def test_live_pages_beyond_the_limit_are_told_to_poll():
    board = TournamentBoard()
    feed(board, "t1", "status", "online")
    stopping = threading.Event()
    client = create_board_app(board, stopping, most_streams=1).test_client()
    live = client.get("/api/board/events", buffered=False)
    assert live.status_code == 200 and b"event: board" in next(live.response)
    refused = client.get("/api/board/events")
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    assert refused.get_json()["error"] == "board_full"
    assert refused.get_json()["params"] == {"most": 1, "count": 5}
    assert "updates every 5 seconds" in refused.get_json()["message"]
    assert client.get("/api/board").get_json()["tables"][0]["hub_id"] == "t1"  # still served
    live.close()  # the phone left: its place is free again
    again = client.get("/api/board/events", buffered=False)
    assert again.status_code == 200 and b"event: board" in next(again.response)
    stopping.set()
    again.close()


@pytest.mark.parametrize("threads", ["4", "0", "1001"])
def test_the_board_refuses_thread_counts_that_leave_no_live_page(threads, capsys):
    from hub.cli.main import main

    assert main(["board", "--mqtt", "mqtt://127.0.0.1:1", "--port", "1", "--threads", threads]) == 2
    assert "--threads" in capsys.readouterr().err


def test_a_head_request_gives_its_live_place_back():
    board = TournamentBoard()
    stopping = threading.Event()
    client = create_board_app(board, stopping, most_streams=1).test_client()
    for _ in range(3):  # a HEAD never runs the stream: its place comes back on close
        with client.head("/api/board/events") as head:  # closed, as the server closes it
            assert head.status_code == 200
    live = client.get("/api/board/events", buffered=False)
    assert live.status_code == 200 and b"event: board" in next(live.response)
    stopping.set()
    live.close()


@pytest.mark.parametrize("phase", [3, True, 2.5, ["play"], {"a": 1}, "x" * 41])
def test_a_phase_of_another_type_is_never_served(phase):
    board = TournamentBoard()
    feed(board, "t1", "state", {**state(1, ["Ann"]), "game": {"round": 1, "phase": phase}})
    (table,) = board.view()["tables"]
    assert table["phase"] is None and table["round"] == 1


@pytest.mark.parametrize(
    "big", [10**4000, 10**7, -(10**7), 1e300], ids=["4000 digits", "1e7", "-1e7", "1e300"]
)
def test_numbers_beyond_any_score_are_left_out(big):
    board = TournamentBoard()
    payload = game(["Ann", "Bob"], [({"Ann": 0, "Bob": 12}, "Ann")])
    payload["totals"]["Bob"] = big
    payload["rounds"].append({"round": 2, "points": {"Ann": big, "Bob": 3}, "went_out": "Bob"})
    board.post("mtrain/t1/game", json.dumps(payload).encode())
    board.drain()
    view = json.loads(json.dumps(board.view()))
    (table,) = view["tables"]
    assert {p["name"]: p["total"] for p in table["players"]} == {"Ann": 0, "Bob": None}
    points = {row["name"]: row["points"] for row in view["standings"]}
    assert points == {"Ann": 0, "Bob": 15}  # the huge round score left out, not summed


def test_what_one_hub_publishes_is_bounded():
    board = TournamentBoard()
    crowd = [f"p{i}" for i in range(40_000)]
    feed(board, "big", "game", game(crowd[:500], [({"p0": 1}, "p0")] * 50))
    (table,) = board.view()["tables"]
    assert len(table["players"]) == board_shapes.MOST_PLAYERS
    assert table["rounds_scored"] == board_shapes.MOST_ROUNDS
    # A message beyond MOST_PAYLOAD is not even parsed.
    feed(board, "huge", "game", game(crowd, []))
    assert [t["hub_id"] for t in board.view()["tables"]] == ["big"]
    feed(board, "x" * (board_module.MOST_HUB_ID + 1), "status", "online")
    assert len(board.view()["tables"]) == 1


def test_tables_are_capped_and_the_long_gone_forgotten(monkeypatch):
    monkeypatch.setattr(board_module, "MOST_TABLES", 3)
    now = [1000.0]
    board = TournamentBoard(clock=lambda: now[0])
    for hub_id in ("a", "b"):
        feed(board, hub_id, "status", "online")
    for i in range(50):  # spam ids that never say they are online: they push each other out
        feed(board, f"spam{i}", "state", state(1, ["Ann"]))
    assert sorted(t["hub_id"] for t in board.view()["tables"]) == ["a", "b", "spam49"]
    feed(board, "c", "status", "online")  # a real hub still finds a place
    ids = sorted(t["hub_id"] for t in board.view()["tables"])
    assert ids == ["a", "b", "c"]
    feed(board, "d", "status", "online")  # every place online: refused, counted
    assert board.refused == 1 and len(board.view()["tables"]) == 3
    feed(board, "b", "status", "offline")
    seen = board.view()["version"]
    now[0] += board_module.FORGET_AFTER_S - 1
    board.drain()
    assert len(board.view()["tables"]) == 3  # offline, not yet long enough
    now[0] += 1
    board.drain()
    assert sorted(t["hub_id"] for t in board.view()["tables"]) == ["a", "c"]
    changes = board.changes_since(seen, 0.1)
    assert changes is not None and changes.whole
    assert sorted(t["hub_id"] for t in changes.tables) == ["a", "c"]


def test_idle_sockets_never_lock_the_board_out():
    """The board runs on the hub's own server: with every connection taken by idle
    sockets, a page load still gets in (plain waitress, once, refused it for 120 s)."""
    import socket
    import urllib.request

    from hub.cli.board import board_server

    board = TournamentBoard()
    feed(board, "t1", "status", "online")
    stopping = threading.Event()
    app = create_board_app(board, stopping, most_streams=2)
    server = board_server(app, "127.0.0.1", 0, 6, connection_limit=16)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.effective_port}"
    idle = [socket.create_connection(("127.0.0.1", server.effective_port)) for _ in range(16)]
    try:
        with urllib.request.urlopen(base + "/api/board", timeout=10) as answer:
            assert json.load(answer)["tables"][0]["hub_id"] == "t1"
        with urllib.request.urlopen(base + "/api/board/events", timeout=10) as live:
            assert live.readline().startswith(b"retry:")
    finally:
        stopping.set()
        for sock in idle:
            sock.close()
        server.close()
        thread.join(10)


def test_the_board_serves_the_catalogs_its_page_says_by():
    client = create_board_app(TournamentBoard(), threading.Event()).test_client()
    with client.get("/i18n/es.json") as words:
        assert words.status_code == 200
        assert words.get_json()["board.title"] == "Tabla del torneo"
        assert "default-src 'self'" in words.headers["Content-Security-Policy"]
    for other in ("fr", "..%2Fapp", "en.json"):
        with client.get(f"/i18n/{other}.json") as missing:
            assert missing.status_code == 404, other

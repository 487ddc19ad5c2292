"""Issue 33, item 11: the tournament board answers only to its own names, by the hub's
rule (hub/wire/hosts.py): a page on a name that re-resolves to the board (DNS
rebinding) reads nothing, not the page, not its JSON, not its stream."""

from __future__ import annotations

import argparse
import socket
import threading

import pytest

from hub.board.app import create_board_app
from hub.board.model import TournamentBoard
from hub.cli import board as board_cli
from tests.http_client import raw_get, send_raw, status_of

PATHS = ["/", "/api/board", "/api/board/events", "/static/board.js", "/i18n/en.json"]


@pytest.fixture
def board_client():
    stopping = threading.Event()
    yield create_board_app(TournamentBoard(), stopping).test_client()
    stopping.set()


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8090", "board.evil.example.", "localhost.evil.example"]
)
def test_a_host_that_is_not_the_boards_is_refused(board_client, path, host):
    with board_client.get(path, headers={"Host": host, "Accept-Language": "es"}) as answer:
        assert answer.status_code == 421
        refusal = answer.get_json()
        assert refusal["error"] == "host_refused" and refusal["params"] == {"host": host}
        assert host in refusal["message"] and "nombre" in refusal["message"]
        assert answer.headers["X-Frame-Options"] == "DENY"


def test_a_refused_host_is_named_back_cut_short(board_client):
    host = "x" * 5000 + ".example"
    answer = board_client.get("/api/board", headers={"Host": host})
    assert answer.status_code == 421 and answer.get_json()["params"]["host"] == "x" * 60


@pytest.mark.parametrize(
    "host", ["localhost", "127.0.0.1:8090", "[::1]:8090", "192.168.1.20", "LOCALHOST."]
)
def test_the_boards_own_names_and_addresses_are_served(board_client, host):
    assert board_client.get("/api/board", headers={"Host": host}).status_code == 200
    machine = socket.gethostname()
    assert board_client.get("/api/board", headers={"Host": machine}).status_code == 200


def test_more_names_are_given_on_the_command_line():
    parser = argparse.ArgumentParser()
    board_cli.add_arguments(parser)
    args = parser.parse_args(
        ["--mqtt", "mqtt://127.0.0.1", "--hosts", "board.example, Scores.example,"]
    )
    client = create_board_app(
        TournamentBoard(), threading.Event(), hosts=board_cli.hosts(args)
    ).test_client()
    for host in ("board.example", "scores.example:8090"):
        assert client.get("/api/board", headers={"Host": host}).status_code == 200
    assert client.get("/api/board", headers={"Host": "other.example"}).status_code == 421
    assert board_cli.hosts(parser.parse_args(["--mqtt", "mqtt://127.0.0.1"])) == []


def test_the_board_on_its_server_refuses_a_foreign_host_before_any_handler():
    """On the board's real server (the hub's): a raw request naming another host."""
    stopping = threading.Event()
    app = create_board_app(TournamentBoard(), stopping)
    server = board_cli.board_server(app, "127.0.0.1", 0, 8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        address = f"127.0.0.1:{server.effective_port}"
        sock, sent = send_raw(address, raw_get("evil.example", "/api/board"))
        assert status_of(sock, sent)[0] == 421
        sock, sent = send_raw(address, raw_get(address, "/api/board"))
        assert status_of(sock, sent)[0] == 200
    finally:
        stopping.set()
        server.close()
        thread.join(10)

"""``GET /api/games`` in pages (issue 33, item 10): newest first, ``limit`` games at
most (20 by default, 100 at most), the ``Link`` header naming the next page while one
follows; a game started between two pages is on neither and moves no game."""

from __future__ import annotations

import re

import pytest

from tests.many_games import fill
from web import create_app


@pytest.fixture
def filled(tmp_path, make_hub):
    """A live hub whose store holds 45 finished games, and a client of its app."""
    (tmp_path / "state").mkdir()
    ids = fill(tmp_path / "state" / "games.db", 45)
    hub = make_hub(threaded=True)
    return ids, create_app(hub.web_service(), {"TESTING": True}).test_client()


def next_page(answer) -> str | None:
    """The next page's path from a ``Link`` header, or None."""
    link = answer.headers.get("Link")
    if link is None:
        return None
    found = re.fullmatch(r'<([^>]+)>; rel="next"', link)
    assert found is not None, link
    return found.group(1)


def test_the_list_comes_in_pages_newest_first(filled):
    ids, client = filled
    first = client.get("/api/games")
    assert first.status_code == 200
    assert [g["id"] for g in first.get_json()] == ids[:-21:-1]  # 20 by default
    assert next_page(first) == f"/api/games?before={ids[-20]}&limit=20"
    seen = [g["id"] for g in first.get_json()]
    path = next_page(first)
    added = client.post("/api/games", json={"players": ["Cy", "Di"]})
    assert added.status_code == 201  # a game started between the pages
    while path is not None:
        page = client.get(path)
        assert page.status_code == 200
        seen += [g["id"] for g in page.get_json()]
        path = next_page(page)
    assert seen == ids[::-1]  # every stored game once, in order; the new one on none
    newest = client.get("/api/games?limit=1")
    assert [g["id"] for g in newest.get_json()] == [added.get_json()["id"]]
    assert next_page(newest) == f"/api/games?before={added.get_json()['id']}&limit=1"


def test_a_full_last_page_names_no_next_page(filled):
    ids, client = filled
    last = client.get(f"/api/games?before={ids[5]}&limit=5")
    assert [g["id"] for g in last.get_json()] == ids[4::-1]
    assert "Link" not in last.headers
    assert client.get(f"/api/games?before={ids[0]}").get_json() == []


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ("limit=0", "limit", "out_of_range"),
        ("limit=101", "limit", "out_of_range"),
        ("limit=ten", "limit", "whole_number"),
        ("before=-1", "before", "whole_number"),
        ("before=0", "before", "out_of_range"),
        ("page=2", "page", "unknown_field"),
    ],
)
def test_a_bad_page_is_refused_by_name(filled, query, field, code):
    _, client = filled
    answer = client.get(f"/api/games?{query}")
    assert answer.status_code == 400
    assert (answer.get_json()["field"], answer.get_json()["error"]) == (field, code)


def test_a_hundred_at_most(filled):
    ids, client = filled
    assert len(client.get("/api/games?limit=100").get_json()) == len(ids)

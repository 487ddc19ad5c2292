"""``GET /api/deal``: the new-game form's deal helper, and its errors naming the field."""

from __future__ import annotations

import pytest

from web import create_app
from web.fake_service import FakeHubService


@pytest.fixture
def client():
    return create_app(FakeHubService(), {"TESTING": True}).test_client()


@pytest.mark.parametrize("query, answer", [
    ("rules=consensus&players=4", {"set": 12, "default_set": 12, "rounds": 13,
                                   "tiles_each": 15, "boneyard": 31}),
    ("rules=consensus&players=3", {"tiles_each": 15, "boneyard": 46}),  # the seed's example
    ("rules=consensus&players=3&set=9", {"set": 9, "default_set": 12, "rounds": 10,
                                         "tiles_each": 15, "boneyard": 10}),
    ("rules=mexicantrainfun&players=3", {"set": 9, "tiles_each": 8, "boneyard": 31}),
    ("rules=aces&players=8", {"set": 12, "tiles_each": 10, "boneyard": 11}),
    ("players=6", {"rules": "consensus", "tiles_each": 12, "boneyard": 19}),
])
def test_deal(client, query, answer):
    response = client.get("/api/deal?" + query)
    assert response.status_code == 200
    body = response.get_json()
    assert {key: body[key] for key in answer} == answer


@pytest.mark.parametrize("query, field", [
    ("", "players"), ("players=", "players"), ("players=two", "players"),
    ("players=-3", "players"), ("players=1", "players"), ("players=9", "players"),
    ("rules=chess&players=4", "rules"), ("players=4&set=7", "set"),
    ("players=4&set=9", "set"), ("players=8&set=6", "set"), ("players=4&set=x", "set"),
])
def test_bad_query_names_the_field(client, query, field):
    response = client.get("/api/deal?" + query)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(field + ": ")

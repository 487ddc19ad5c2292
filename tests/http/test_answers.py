"""hub/http/answers.py: a statistic asked by many phones at once is computed once, a
write to the store makes it stale, an error reaches every phone waiting and is not kept."""

from __future__ import annotations

import threading

import pytest

from hub.http.answers import Answers
from tests.helpers import eventually


class Store:
    """The store's count of writes, and how often a statistic was computed."""

    def __init__(self) -> None:
        self.changes = 0
        self.computed = 0

    def season(self) -> dict[str, list[int]]:
        self.computed += 1
        return {"games": [self.changes]}


def test_sixteen_phones_at_once_cost_one_computation():
    store = Store()
    answers = Answers(lambda: store.changes)
    release, started = threading.Event(), threading.Event()

    def slow() -> dict[str, list[int]]:
        started.set()
        release.wait(10)
        return store.season()

    got: list[dict[str, list[int]]] = []
    phones = [
        threading.Thread(target=lambda: got.append(answers.ask(("season", ()), slow)))
        for _ in range(16)
    ]
    phones[0].start()
    assert started.wait(10)
    for phone in phones[1:]:
        phone.start()
    eventually(lambda: sum(t.is_alive() for t in phones) == 16)
    release.set()
    for phone in phones:
        phone.join(10)
    assert store.computed == 1
    assert got == [{"games": [0]}] * 16
    got[0]["games"].append(99)  # each phone has its own copy
    assert answers.ask(("season", ()), store.season) == {"games": [0]}
    assert store.computed == 1  # kept


def test_a_write_makes_every_kept_answer_stale():
    store = Store()
    answers = Answers(lambda: store.changes)
    assert answers.ask("season", store.season) == {"games": [0]}
    store.changes += 1
    assert answers.ask("season", store.season) == {"games": [1]}
    assert store.computed == 2


def test_an_error_reaches_every_waiting_phone_and_is_not_kept():
    answers = Answers(lambda: 0)
    release = threading.Event()
    errors: list[BaseException] = []

    def failing() -> None:
        release.wait(10)
        raise LookupError("no such player")

    def phone() -> None:
        try:
            answers.ask(("player", (7,)), failing)
        except LookupError as exc:
            errors.append(exc)

    phones = [threading.Thread(target=phone) for _ in range(4)]
    for thread in phones:
        thread.start()
    release.set()
    for thread in phones:
        thread.join(10)
    assert len(errors) == 4
    assert answers.ask(("player", (7,)), lambda: {"id": 7}) == {"id": 7}


def test_at_most_the_kept_number_of_answers():
    store = Store()
    answers = Answers(lambda: 0, kept=3)
    for person in range(5):
        answers.ask(("player", person), store.season)
    answers.ask(("player", 4), store.season)
    assert store.computed == 5  # the newest kept
    answers.ask(("player", 0), store.season)
    assert store.computed == 6  # the oldest dropped


@pytest.mark.parametrize("question", ["players", ("player", (1,))])
def test_different_questions_are_kept_apart(question):
    answers = Answers(lambda: 0)
    answers.ask("other", lambda: "other")
    assert answers.ask(question, lambda: "mine") == "mine"


def test_a_kept_statistic_follows_every_write_on_a_live_hub(client, live_hub, table_proof):
    """Kept answers on the hub: a finished game, a rename and a forget each show in the
    next read, however the same reads were kept just before."""
    players = lambda: {p["name"]: p for p in client.get("/api/players").get_json()}  # noqa: E731
    season = lambda: client.get("/api/season").get_json()["games"]  # noqa: E731
    assert players() == {} and season() == 0
    created = client.post("/api/games", json={"players": ["Ann", "Bob"], "rounds": 1, "first": 1})
    assert created.status_code == 201
    assert players()["Ann"]["games"] == 0  # remembered, no game finished yet
    game = created.get_json()["id"]
    scored = client.post(
        f"/api/games/{game}/rounds/1/scores",
        json={"points": {"Ann": 0, "Bob": 9}, "mid_round": True},
    )
    assert scored.status_code == 200 and scored.get_json()["finished"]
    assert (players()["Ann"]["games"], players()["Ann"]["wins"], season()) == (1, 1, 1)
    ann = players()["Ann"]["id"]
    assert client.get(f"/api/players/{ann}").get_json()["wins"] == 1
    renamed = client.post(f"/api/players/{ann}/rename", json={"name": "Annie"})
    assert renamed.status_code == 200
    assert "Annie" in players() and "Ann" not in players()
    assert client.post(f"/api/players/{ann}/forget", json={}).status_code == 200
    assert set(players()) == {"Bob"}
    assert client.get(f"/api/players/{ann}").status_code == 404


def test_a_write_leaves_no_stale_answer_held_and_a_clear_drops_them_all():
    store = Store()
    answers = Answers(lambda: store.changes)
    answers.ask(("player", (1,)), lambda: {"name": "Ann"})
    answers.ask("players", lambda: [{"name": "Ann"}])
    answers.clear()  # a player forgotten: no kept answer holds the name
    assert answers.ask("players", lambda: []) == []
    store.changes += 1  # a write: the next ask drops every stale answer
    assert answers.ask("season", store.season) == {"games": [1]}
    assert answers.ask("players", lambda: ["fresh"]) == ["fresh"]


def test_an_answer_computed_across_a_write_is_not_kept():
    store = Store()
    answers = Answers(lambda: store.changes)

    def written_meanwhile() -> str:
        store.changes += 1
        return "old"

    assert answers.ask("season", written_meanwhile) == "old"  # its asker gets it
    assert answers.ask("season", lambda: "new") == "new"  # but no one after

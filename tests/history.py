"""A seeded generator of a family's history of games, and an independent computation
of the players' statistics over it (the oracle the SQL of scorer/player_stats.py is
held against; tests/scorer/test_player_stats.py, bench/players.py).

A person is one of :data:`FAMILY`'s keys; each game seats some of them under one of
their spellings (case, a Cyrillic look-alike), which the hub must take for one
player. The oracle knows the person behind each spelling from the generator itself,
and ranks each game with its own code (lowest total, then most zero rounds, then the
lowest non-zero round; a true tie for first has no winner).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# The people and how each may be typed (the first spelling is the one remembered
# when it is typed first: the generator always starts with it).
FAMILY: dict[str, tuple[str, ...]] = {
    "Ann": ("Ann", "ANN", "ann", "\u0410nn"),  # the last with a Cyrillic A
    "Bob": ("Bob", "bob"),
    "Cy": ("Cy", "CY"),
    "Dee": ("Dee",),
    "Eli": ("Eli", "eli"),
    "Flo": ("Flo",),
    "Gus": ("Gus",),
    "Hal": ("Hal", "HAL"),
}


@dataclass
class PlayedGame:
    """One generated game: who sat (person, spelling), each round's points and who
    went out (None: blocked), the table's plays (round, person, kind), and when."""

    seats: list[tuple[str, str]]
    rounds: list[tuple[dict[str, int], str | None]]
    plays: list[tuple[int, str, str]]
    at: str
    finished: bool = True
    people: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.people = [person for person, _ in self.seats]

    def spelling(self, person: str) -> str:
        """How ``person`` was typed at this game."""
        return dict(self.seats)[person]


def generate(seed: int, count: int, first_year: int = 2024, per_day: int = 1) -> list[PlayedGame]:
    """``count`` games, seeded, ``per_day`` on each of 28 days a month from
    ``first_year`` on; the last one is unfinished when ``count`` > 3."""
    rng = random.Random(seed)
    names = list(FAMILY)
    played: list[PlayedGame] = []
    seen: set[str] = set()
    for number in range(count):
        people = rng.sample(names, rng.randint(2, 6))
        seats = [(p, FAMILY[p][0] if p not in seen else rng.choice(FAMILY[p])) for p in people]
        seen.update(people)
        evening = number // per_day
        day = evening % 28 + 1
        month = (evening // 28) % 12 + 1
        year = first_year + evening // (28 * 12)
        at = f"{year}-{month:02d}-{day:02d}T20:{number % 60:02d}:00+00:00"
        rounds = [_round(rng, people) for _ in range(rng.randint(1, 4))]
        plays = [
            (r, rng.choice(people), rng.choice(("double", "last_tile")))
            for r in range(1, len(rounds) + 1)
            for _ in range(rng.randint(0, 2))
        ]
        played.append(PlayedGame(seats, rounds, plays, at))
    if count > 3:
        played[-1].finished = False
        played[-1].rounds = played[-1].rounds[:1]
    return played


def _round(rng: random.Random, people: list[str]) -> tuple[dict[str, int], str | None]:
    small = rng.random() < 0.3  # small scores make ties and zero rounds likely
    points = {p: rng.randint(0, 4 if small else 40) for p in people}
    if rng.random() < 0.2:
        return points, None  # blocked
    out = rng.choice(people)
    points[out] = 0
    return points, out


def store_history(store: Any, history: list[PlayedGame], remember: bool = True) -> list[int]:
    """Play ``history`` into a :class:`scorer.store.GameStore` through its API; the ids."""
    from scorer.setup import check_setup

    ids = []
    for game in history:
        body = {
            "players": [s for _, s in game.seats],
            "rules": "consensus",
            "set": 9,
            "rounds": len(game.rounds) if game.finished else 4,
        }
        game_id = store.create_game(
            check_setup(body), token="t" * 24, at=game.at, remember=remember
        )
        ids.append(game_id)
        for number, (points, out) in enumerate(game.rounds, start=1):
            for r, person, kind in game.plays:
                if r == number:
                    store.note_play(game_id, number, game.spelling(person), kind)
            typed = {game.spelling(p): n for p, n in points.items()}
            went = None if out is None else game.spelling(out)
            store.record_round(game_id, number, typed, went_out=went, at=game.at)
    return ids


# --- the oracle ------------------------------------------------------------------------


def places(game: PlayedGame) -> dict[str, int]:
    """Each person's place in a game (1 best; a tie shares it)."""

    def key(person: str) -> tuple[int, int, int]:
        scores = [points[person] for points, _ in game.rounds]
        nonzero = [s for s in scores if s]
        return (sum(scores), -scores.count(0), min(nonzero) if nonzero else -1)

    keys = {p: key(p) for p in game.people}
    return {p: 1 + sum(k < keys[p] for k in keys.values()) for p in game.people}


def winner(game: PlayedGame) -> str | None:
    """The sole best person, or None on a true tie."""
    best = [p for p, place in places(game).items() if place == 1]
    return best[0] if len(best) == 1 else None


def finished(history: list[PlayedGame], since: str = "") -> Iterator[PlayedGame]:
    """The finished games, from ``since`` (an ISO date) on."""
    return (g for g in history if g.finished and g.at >= since)


def player_stats(history: list[PlayedGame], person: str) -> dict[str, Any]:
    """What ``GET /api/players/<id>`` must say of ``person``."""
    games = [g for g in finished(history) if person in g.people]
    scores = [points[person] for g in games for points, _ in g.rounds]
    wins = sum(winner(g) == person for g in games)
    plays = [kind for g in games for _, who, kind in g.plays if who == person]
    return {
        "games": len(games),
        "wins": wins,
        "win_rate": round(wins / len(games), 2) if games else None,
        "rounds": len(scores),
        "average_round": round(sum(scores) / len(scores), 2) if scores else None,
        "best_round": min(scores, default=None),
        "worst_round": max(scores, default=None),
        "zero_rounds": scores.count(0),
        "went_out": sum(out == person for g in games for _, out in g.rounds),
        "doubles": plays.count("double"),
        "last_tiles": plays.count("last_tile"),
    }


def head_to_head(history: list[PlayedGame], a: str, b: str) -> dict[str, int]:
    """What ``GET /api/players/<a>/vs/<b>`` must count."""
    both = [g for g in finished(history) if a in g.people and b in g.people]
    ranks = [places(g) for g in both]
    return {
        "games": len(both),
        "a_wins": sum(winner(g) == a for g in both),
        "b_wins": sum(winner(g) == b for g in both),
        "a_ahead": sum(r[a] < r[b] for r in ranks),
        "b_ahead": sum(r[b] < r[a] for r in ranks),
        "level": sum(r[a] == r[b] for r in ranks),
    }


def season(history: list[PlayedGame], since: str = "") -> dict[str, tuple[int, int, float]]:
    """Each person's (games, wins, average place) in the finished games since ``since``."""
    table: dict[str, list[int]] = {}
    wins: dict[str, int] = {}
    for game in finished(history, since):
        ranks = places(game)
        for person in game.people:
            table.setdefault(person, []).append(ranks[person])
            wins[person] = wins.get(person, 0) + (winner(game) == person)
    return {
        p: (len(ranks), wins[p], round(sum(ranks) / len(ranks), 2)) for p, ranks in table.items()
    }


def long_evening(
    store: Any, games: int = 100, names: int = 8, day: str = "2026-12-07"
) -> list[int]:
    """An evening of ``games`` one-round games of ``names`` new players each, finished
    a few seconds apart on ``day`` (what a phone with no token can make in seconds:
    start, score, finish, repeat; issue 33); the games' ids."""
    from scorer.setup import check_setup

    ids = []
    for number in range(games):
        people = [f"P{number:03d}{chr(65 + seat)}" for seat in range(names)]
        body = {"players": people, "rules": "consensus", "set": 12, "rounds": 1}
        at = f"{day}T20:{number // 60 % 60:02d}:{number % 60:02d}+00:00"
        game_id = store.create_game(check_setup(body), token="t" * 24, at=at)
        points = {name: 0 if seat == 0 else 5 + seat * 3 for seat, name in enumerate(people)}
        store.record_round(game_id, 1, points, went_out=people[0], at=at)
        ids.append(game_id)
    return ids

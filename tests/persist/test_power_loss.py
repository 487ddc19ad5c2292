"""Power cuts while scores are entered. The real hub (``mtrain-hub run``) is SIGKILLed
at seeded random moments during a burst of score submissions and corrections from a
client thread, 50 times (``make torture``; in an ordinary run eight times or more, until
a whole game was scored). After each kill SQLite's integrity check passes on the file;
after each restart every submission the client saw acknowledged (2xx) is stored,
nothing else is (a submission cut off mid-flight is stored whole or not at all: its
points, its outcome, its next round and its history rows together), and the table
resumes at the stored round."""

from __future__ import annotations

import http.client
import random
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass, field

import pytest

from tests.helpers import scaled
from tests.http_client import HubProcess

LONG_KILLS = 50
# At least this many kills; an ordinary run goes on (up to LONG_KILLS) until the bursts
# have written between most kills and finished a game.
KILLS = scaled(quick=8, long=LONG_KILLS)
MOST_KILLS = max(KILLS, LONG_KILLS)
SEED = 3_1415
PLAYERS = ["Ann", "Bob", "Cid"]
ROUNDS = 19  # a double-18 game: many rounds per game, few new games
# A cut-off request fails with one of these (refused, reset, half a response).
CUT_OFF = (OSError, http.client.HTTPException, ValueError)


@dataclass
class Submission:
    """One scores POST: a new round, a correction, or a bad one (must change nothing)."""

    round: int
    points: dict
    went_out: object = "keep"  # "keep": the body has no went_out (a correction)
    bad: bool = False

    def body(self) -> dict:
        extra = {} if self.went_out == "keep" else {"went_out": self.went_out}
        return {"points": self.points, "mid_round": True, **extra}


@dataclass
class Ledger:
    """What the client knows of one game: each scored round's points and who went out,
    how many score changes of each round were acknowledged, and the submission in doubt."""

    id: int
    token: str
    rounds: dict[int, tuple[dict, object]] = field(default_factory=dict)
    edits: dict[int, int] = field(default_factory=dict)
    in_doubt: Submission | None = None
    unexpected: list = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return len(self.rounds) == ROUNDS

    def apply(self, sub: Submission) -> None:
        """Record an acknowledged (or found applied) submission."""
        old_points, old_out = self.rounds.get(sub.round, ({}, None))
        went_out = old_out if sub.went_out == "keep" else sub.went_out
        changed = sum(1 for n in PLAYERS if old_points.get(n) != sub.points[n])
        self.edits[sub.round] = self.edits.get(sub.round, 0) + changed
        self.rounds[sub.round] = (dict(sub.points), went_out)


def next_submission(rng: random.Random, ledger: Ledger) -> Submission:
    """A new round (while the game lasts), a correction, or now and then a bad one."""
    roll = rng.random()
    if roll < 0.1:
        points = {n: rng.randint(0, 40) for n in PLAYERS} | {rng.choice(PLAYERS): -3}
        return Submission(rng.randint(1, min(len(ledger.rounds) + 1, ROUNDS)), points, bad=True)
    if not ledger.finished and (not ledger.rounds or roll < 0.7):
        went_out = rng.choice([*PLAYERS, None])
        points = {n: 0 if n == went_out else rng.randint(0, 60) for n in PLAYERS}
        return Submission(len(ledger.rounds) + 1, points, went_out)
    round_no = rng.choice(sorted(ledger.rounds))
    went_out = ledger.rounds[round_no][1]
    points = {n: 0 if n == went_out else rng.randint(0, 60) for n in PLAYERS}
    return Submission(round_no, points)


def burst(hub: HubProcess, ledger: Ledger, rng: random.Random) -> None:
    """Submit one after another until the hub dies; the last one sent stays in doubt."""
    path = f"/api/games/{ledger.id}/rounds/{{}}/scores"
    while True:
        sub = next_submission(rng, ledger)
        ledger.in_doubt = sub
        try:
            status, answer = hub.post(path.format(sub.round), sub.body(), token=ledger.token)
        except CUT_OFF:
            return
        ledger.in_doubt = None
        if sub.bad and status == 400:
            continue
        if status == 429 and answer["error"] == "too_many_corrections":
            return  # the game's corrections are spent for now: nothing was written
        if status != 200 or sub.bad:
            ledger.unexpected.append((sub, status, answer))
            return
        ledger.apply(sub)


def settle_in_doubt(ledger: Ledger, view: dict) -> None:
    """Decide from the stored game whether the cut-off submission was stored (whole)."""
    sub, ledger.in_doubt = ledger.in_doubt, None
    if sub is None or sub.bad:
        return
    stored = next((r for r in view["rounds"] if r["round"] == sub.round), None)
    if stored is None or not stored["finished"]:
        return  # a new round that did not make it
    known = ledger.rounds.get(sub.round)
    if known is None or (stored["points"] == sub.points and known[0] != sub.points):
        ledger.apply(sub)


def check_game(hub: HubProcess, ledger: Ledger) -> dict:
    """The stored game is exactly what the ledger says: no more, no less, no halves."""
    status, view = hub.get(f"/api/games/{ledger.id}")
    assert status == 200
    settle_in_doubt(ledger, view)
    scored = [r for r in view["rounds"] if r["finished"]]
    assert {r["round"]: (r["points"], r["went_out"]) for r in scored} == ledger.rounds
    for r in scored:
        assert r["blocked"] == (r["went_out"] is None)
        history = hub.get(f"/api/games/{ledger.id}/rounds/{r['round']}/history")[1]
        for name in PLAYERS:  # corrections close together merge (scorer/history.py)
            mine = [(h["old"], h["new"]) for h in history if h["player"] == name]
            assert mine[0][0] is None and mine[-1][1] == r["points"][name], (r, history)
            assert all(b[0] == a[1] for a, b in zip(mine, mine[1:], strict=False)), history
    unscored = [r for r in view["rounds"] if not r["finished"]]
    assert view["finished"] == ledger.finished
    if ledger.finished:
        assert not unscored and view["winner"] is not None
    else:
        assert [(r["round"], r["points"]) for r in unscored] == [(len(scored) + 1, {})]
    return view


def check_table(hub: HubProcess, ledger: Ledger, view: dict) -> None:
    """The table resumed at the stored round of the unfinished game (a finished one
    is shown finished, as it was before the cut)."""
    game = hub.get("/api/state")[1]["game"]
    if ledger.finished:
        assert (game["id"], game["phase"]) == (ledger.id, "finished")
    else:
        assert (game["id"], game["round"], game["engine"]) == (
            ledger.id,
            view["round"],
            view["engine"],
        )


def integrity(db) -> list:
    """SQLite's own checks on the file the killed hub left behind (read-only)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [*conn.execute("PRAGMA integrity_check"), *conn.execute("PRAGMA foreign_key_check")]
    finally:
        conn.close()


def new_ledger(hub: HubProcess) -> Ledger:
    status, game = hub.post("/api/games", {"players": PLAYERS, "set": 18})
    assert status == 201
    return Ledger(game["id"], game["token"])


def written_enough(kills: int, acknowledged: int, ledgers: list[Ledger]) -> bool:
    """The bursts really wrote between most of the ``kills``, and finished a game or more."""
    return acknowledged > kills // 2 and len(ledgers) > 1


@pytest.mark.slow
@pytest.mark.torture
def test_acknowledged_scores_survive_power_cuts(tmp_path):
    rng = random.Random(SEED)
    state = tmp_path / "state"
    ledgers: list[Ledger] = []
    hub = HubProcess(state)
    acknowledged = kills = 0
    while kills < MOST_KILLS and not (
        kills >= KILLS and written_enough(kills, acknowledged, ledgers)
    ):
        kill, kills = kills, kills + 1
        if not ledgers or ledgers[-1].finished:
            ledgers.append(new_ledger(hub))
        ledger = ledgers[-1]
        before = sum(ledger.edits.values())
        client = threading.Thread(target=burst, args=(hub, ledger, random.Random(rng.random())))
        client.start()
        time.sleep(rng.uniform(0.0, 0.25))  # the power cut comes at a random moment
        assert hub.stop(signal.SIGKILL) == -signal.SIGKILL
        client.join(timeout=30)
        assert not client.is_alive() and not ledger.unexpected, ledger.unexpected
        assert integrity(state / "games.db") == [("ok",)], f"after kill {kill}"
        hub = HubProcess(state)
        check_table(hub, ledger, check_game(hub, ledger))
        acknowledged += sum(ledger.edits.values()) > before
    for ledger in ledgers:  # earlier games were left alone
        check_game(hub, ledger)
    assert hub.stop() == 0
    # The bursts must really have written between kills, and finished a game or more.
    assert written_enough(kills, acknowledged, ledgers), (kills, acknowledged, len(ledgers))

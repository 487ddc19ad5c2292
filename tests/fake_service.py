"""The fake hub for web tests: :class:`FakeHubService` implements
:class:`web.service.HubService` in memory, without a loop, pins or SQLite.

It keeps what the web layer can observe (a snapshot, a log, games with tokens,
settings) and records what it was asked (:attr:`FakeHubService.calls`), so a test
can check a handler's behaviour alone. ``fail`` makes one method raise, to see how
the web layer answers a hub that refuses or breaks.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from scorer.errors import Refused
from scorer.profiles import DEFAULT_RULES, SLOTS


def _done(snapshot: dict[str, Any]) -> Future[dict[str, Any]]:
    future: Future[dict[str, Any]] = Future()
    future.set_result(snapshot)
    return future


class FakeHubService:
    """An in-memory hub on the ``sim`` backend (see the module doc)."""

    def __init__(self, backend: str = "sim") -> None:
        self._backend = backend
        self.rules = DEFAULT_RULES
        self.state: dict[str, Any] = {
            "backend": backend,
            "game": None,
            "turn": None,
            "double": None,
            "slots": [{"slot": s, "owner": None, "public": False, "marker": False} for s in SLOTS],
        }
        self.log: list[dict[str, Any]] = []
        self.games: dict[int, dict[str, Any]] = {}
        self.tokens: dict[int, str] = {}
        self.values: dict[str, Any] = {"volume": 0.8, "quiet": "off", "turn_chime": True}
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.fail: dict[str, Exception] = {}
        self.claims: dict[str, dict[str, Any]] = {}
        self.table_tokens: set[str] = set()
        self.extra_tokens: dict[int, set[str]] = {}
        self.selftest_status: dict[str, Any] = {
            "running": False,
            "step": None,
            "steps": 0,
            "done": False,
            "passed": False,
            "results": [],
        }

    def _call(self, name: str, *args: Any) -> None:
        self.calls.append((name, args))
        if name in self.fail:
            raise self.fail[name]

    @property
    def backend(self) -> str:
        """The backend named at construction."""
        return self._backend

    @property
    def default_rules(self) -> str:
        """The profile of a new game that names none."""
        return self.rules

    def snapshot(self) -> dict[str, Any]:
        """The fake snapshot."""
        self._call("snapshot")
        return self.state

    def recent_log(self, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` log entries."""
        self._call("recent_log", limit)
        return self.log[-limit:]

    def _slot(self, slot: int) -> dict[str, Any]:
        if self._backend != "sim":
            raise Refused(
                404,
                f"the {self._backend} backend has no simulated pins",
                code="not_simulated",
                backend=self._backend,
            )
        if slot not in SLOTS:
            raise Refused(
                404, f"slot {slot}: there are slots 1 to 8", code="no_such_slot", slot=slot, last=8
            )
        return dict(self.state["slots"][slot - 1])

    def sim_press_later(
        self, slot: int, hold_s: float, centre: bool = False
    ) -> Future[dict[str, Any]]:
        """Record the press and log it as a tap (refusals raised at once); the snapshot
        in a done future."""
        self._call("sim_press", slot, hold_s)
        self._slot(slot)
        self.log.append({"kind": "tap", "slot": slot})
        return _done(self.state)

    def sim_centre_press_later(self, hold_s: float) -> Future[dict[str, Any]]:
        """Record the centre press and log it as a tap on slot 0; in a done future."""
        self._call("sim_centre_press", hold_s)
        if self._backend != "sim":
            raise Refused(
                404,
                f"the {self._backend} backend has no simulated pins",
                code="not_simulated",
                backend=self._backend,
            )
        self.log.append({"kind": "tap", "slot": 0})
        return _done(self.state)

    def sim_marker(self, slot: int, present: bool) -> dict[str, Any]:
        """Set the slot's marker (and public train) in the snapshot."""
        self._call("sim_marker", slot, present)
        entry = self._slot(slot) | {"marker": present, "public": present}
        self.state["slots"][slot - 1] = entry
        return self.state

    def new_game(self, body: object, replaces: int | None = None) -> tuple[int, str]:
        """Store a game of ``body["players"]`` (only that much is checked); the game
        it ``replaces`` is marked abandoned."""
        self._call("new_game", body)
        if self.running_game() != replaces:
            raise Refused(409, "another game started meanwhile: look again", code="other_game")
        players = body.get("players") if isinstance(body, dict) else None
        if not isinstance(players, list) or len(players) < 2:
            raise Refused(
                400, "players: expected a list of 2 to 8 names", "players", code="names_list"
            )
        game_id = len(self.games) + 1
        self.games[game_id] = {
            "id": game_id,
            "players": players,
            "round": 1,
            "round_count": 13,
            "finished": False,
            "winner": None,
            "rounds": [
                {
                    "round": 1,
                    "engine": 12,
                    "points": {},
                    "went_out": None,
                    "blocked": False,
                    "finished": False,
                }
            ],
        }
        self.tokens[game_id] = f"token-{game_id}"
        if replaces is not None:
            self.games[replaces]["abandoned"] = True
        self.state["game"] = {"id": game_id, "phase": "first-turn"}
        return game_id, self.tokens[game_id]

    def running_game(self) -> int | None:
        """The newest game that is neither finished nor abandoned."""
        live = [i for i, g in self.games.items() if not g.get("abandoned")]
        if not live:
            return None
        newest = max(live)
        return None if self.games[newest]["finished"] else newest

    def bring_back(self, game_id: int, replaces: int | None = None) -> dict[str, Any]:
        """Un-abandon ``game_id``, abandoning ``replaces``."""
        self._call("bring_back", game_id, replaces)
        game = self.get_game(game_id)
        if replaces is not None:
            self.games[replaces]["abandoned"] = True
        game["abandoned"] = False
        self.games[game_id] = self.games.pop(game_id)
        return game

    def start_claim(self, asker: str = "") -> dict[str, Any]:
        """A claim on slot 1 that the test grants with :meth:`grant`."""
        self._call("start_claim")
        secret = f"claim-{len(self.claims) + 1}"
        self.claims[secret] = {"state": "waiting", "slot": 1}
        return {"claim": secret, "slot": 1, "seconds": 30.0}

    def grant(self, secret: str) -> None:
        """The table's press: a token for the running game, or a table token."""
        game = self.running_game()
        token = f"claimed-{secret}"
        if game is None:
            self.table_tokens.add(token)
        else:
            self.extra_tokens.setdefault(game, set()).add(token)
        self.claims[secret] = {"state": "granted", "slot": 1, "game": game, "token": token}

    def claim_status(self, claim: str) -> dict[str, Any]:
        """Where a claim stands."""
        if claim not in self.claims:
            raise Refused(404, "claim: no such claim", "claim", code="claim_missing")
        return dict(self.claims[claim])

    def check_table(self, token: str) -> bool:
        """Whether ``token`` is a table token :meth:`grant` gave."""
        return token in self.table_tokens

    def hand_over(self, game_id: int, token: str) -> str | None:
        """A new token in place of ``token`` (None: not the game's)."""
        if not self.check_token(game_id, token):
            return None
        fresh = f"{token}-next"
        if self.tokens.get(game_id) == token:
            self.tokens[game_id] = fresh
        else:
            self.extra_tokens[game_id].discard(token)
            self.extra_tokens[game_id].add(fresh)
        return fresh

    def check_token(self, game_id: int, token: str) -> bool:
        """Whether ``token`` is the game's (or one a claim added)."""
        return self.tokens.get(game_id) == token or token in self.extra_tokens.get(game_id, ())

    def settings(self) -> dict[str, Any]:
        """The settings and a silent player's status."""
        return {**self.values, "sound": {"available": False, "reason": "fake"}}

    def change_settings(self, changes: object) -> dict[str, Any]:
        """Apply known keys; refuse anything else naming the key."""
        self._call("change_settings", changes)
        if not isinstance(changes, dict) or not changes:
            raise Refused(
                400,
                "body: expected an object with any of volume, quiet, turn_chime",
                code="settings_object",
                allowed="volume, quiet, turn_chime",
            )
        for key in changes:
            if key not in self.values:
                raise Refused(400, f"{key}: unknown setting", key, code="unknown_setting", name=key)
        self.values.update(changes)
        return self.settings()

    def list_games(self, before: int | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """A page of the games, newest first."""
        self._call("list_games", before, limit)
        below = [i for i in sorted(self.games, reverse=True) if before is None or i < before]
        return [self.games[i] for i in below[:limit]]

    def get_game(self, game_id: int) -> dict[str, Any]:
        """One game, or refused 404."""
        self._call("get_game", game_id)
        if game_id not in self.games:
            raise Refused(404, f"game {game_id}: no such game", code="game_missing", game=game_id)
        return self.games[game_id]

    def round_history(self, game_id: int, number: int) -> list[dict[str, Any]]:
        """No edits are kept by the fake."""
        self.get_game(game_id)
        return []

    def score_round(self, game_id: int, number: int, **scores: Any) -> dict[str, Any]:
        """Record the points of a round as given."""
        self._call("score_round", game_id, number, scores)
        game = self.get_game(game_id)
        game["rounds"][number - 1].update(points=scores.get("points") or {}, finished=True)
        return game

    def block_round(self, game_id: int, number: int) -> dict[str, Any]:
        """Mark the round blocked."""
        self._call("block_round", game_id, number)
        game = self.get_game(game_id)
        game["rounds"][number - 1].update(blocked=True, finished=True)
        return game

    def end_game(self, game_id: int) -> dict[str, Any]:
        """Mark the game finished."""
        self._call("end_game", game_id)
        game = self.get_game(game_id)
        game["finished"] = True
        return game

    def undo(
        self, game_id: int, seen: int | None = None, stamp: int | None = None
    ) -> dict[str, Any]:
        """Log the undo of the newest game (409 when ``seen`` is not the state's ``undo``)."""
        self._call("undo", game_id)
        if self.running_game() != game_id:
            raise Refused(
                409,
                f"game {game_id} is not being played on the table",
                code="not_on_table",
                game=game_id,
            )
        now = self.state.get("undo", 0)
        if seen is not None and seen != now:
            raise Refused(
                409,
                f"undo: the table changed since this phone looked ({seen} to undo then, "
                f"{now} now): look again",
                "undo",
                code="undo_moved",
                then=seen,
                now=now,
            )
        self.log.append({"kind": "undo", "by": "scorekeeper"})
        return self.state

    def fix_table(
        self,
        game_id: int,
        *,
        turn: int | None = None,
        double: tuple[int | None, int, int | None] | None = None,
        public: tuple[int, bool] | None = None,
    ) -> dict[str, Any]:
        """Log the fix; set the turn in the snapshot."""
        self._call("fix_table", game_id, turn, double, public)
        if self.running_game() != game_id:
            raise Refused(
                409,
                f"game {game_id} is not being played on the table",
                code="not_on_table",
                game=game_id,
            )
        if turn is not None:
            self.state["turn"] = turn
        self.log.append({"kind": "fix", "turn": turn, "double": double, "public": public})
        return self.state

    def set_engine(self, game_id: int, number: int, engine: int) -> dict[str, Any]:
        """Set the round's engine as given."""
        self._call("set_engine", game_id, number, engine)
        game = self.get_game(game_id)
        game["rounds"][number - 1]["engine"] = engine
        return game

    def selftest(self) -> dict[str, Any]:
        """The self-test's status: never running here unless started."""
        self._call("selftest")
        return dict(self.selftest_status)

    def selftest_action(
        self,
        action: str,
        tokens: tuple[str, ...] = (),
        proven: bool = False,
        step: int | None = None,
    ) -> dict[str, Any]:
        """Record the action; ``start`` marks it running, ``stop`` not."""
        self._call("selftest_action", action, step)
        if action in ("start", "stop"):
            self.selftest_status["running"] = action == "start"
        return dict(self.selftest_status)

    # --- players across evenings: one remembered player per name ever seated ---------

    def _people(self) -> dict[int, str]:
        names: list[str] = []
        for game in self.games.values():
            names += [n for n in game["players"] if n not in names]
        return dict(enumerate(names, start=1))

    def _person(self, person_id: int) -> str:
        name = self._people().get(person_id)
        if name is None:
            raise Refused(
                404,
                f"player {person_id}: no such player",
                code="player_missing",
                player=person_id,
            )
        return name

    def players(self) -> list[dict[str, Any]]:
        """Every name seated, as a player with no statistics."""
        self._call("players")
        return [
            {"id": i, "name": n, "games": 0, "wins": 0, "last_seen": None, "colour": 0}
            for i, n in self._people().items()
        ]

    def player(self, person_id: int) -> dict[str, Any]:
        """A player's (empty) statistics, or refused 404."""
        self._call("player", person_id)
        return {"id": person_id, "name": self._person(person_id), "games": 0, "wins": 0}

    def head_to_head(self, a: int, b: int) -> dict[str, Any]:
        """Two players who never met."""
        self._call("head_to_head", a, b)
        one, other = self._person(a), self._person(b)
        return {"a": {"id": a, "name": one}, "b": {"id": b, "name": other}, "games": 0}

    def season(self, since: str | None) -> dict[str, Any]:
        """An empty season."""
        self._call("season", since)
        return {"since": since, "games": 0, "players": []}

    def evening(self, game: int | None) -> dict[str, Any]:
        """An evening with no game."""
        self._call("evening", game)
        return {"started": None, "ended": None, "games": [], "players": [], "highlights": []}

    def rename_player(self, person_id: int, name: str) -> dict[str, Any]:
        """Record the rename; the player as asked."""
        self._call("rename_player", person_id, name)
        self._person(person_id)
        return {"id": person_id, "name": name}

    def merge_players(self, source: int, into: int) -> dict[str, Any]:
        """Record the merge; the player merged into."""
        self._call("merge_players", source, into)
        self._person(source)
        return self.player(into)

    def forget_player(self, person_id: int) -> None:
        """Record the forgetting."""
        self._call("forget_player", person_id)
        self._person(person_id)

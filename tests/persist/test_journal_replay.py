"""After a crash the hub rebuilds the exact in-round table from the journal: replayed
through the pure core without a sound, settled into the new process's clock (nothing
held or moving across the crash fires), caught up with a store that got further than
the journal, and reconciled with the magnets (each difference logged). Undo still
works. Hubs here run on fake clocks without their loop thread; a "crash" abandons a
hub without stopping it."""

from __future__ import annotations

import logging
import shutil

import pytest
from gpiozero.pins.mock import MockFactory

from hub import core
from hub.app import Hub
from hub.core import state
from hub.core.news import SOME_ACTION
from hub.io.pins import SimPins
from hub.persist.journal import FILE_NAME
from hub.persist.replay import settle
from hub.runtime.config import load
from scorer.setup import check_setup
from tablesim.virtual import FakeClock, RecordingPlayer

PLAYERS = ["Ann", "Bob", "Cid"]
SEATS = [1, 3, 5]
TAP, HOLD, LONG = 0.2, 1.5, 4.5


class Table:
    """Hubs one after another on one state directory, each on its own mock pins and
    fake clock (``start``: its monotonic epoch), like restarts of one hub."""

    def __init__(self, tmp_path, backend="sim"):
        self.state = tmp_path / "state"
        self.backend = backend
        self.hub: Hub | None = None
        self.pins: SimPins | None = None

    def start(self, clock_start=1000.0, magnets=()) -> Hub:
        config = load(None, {"hub": {"backend": self.backend, "state_dir": str(self.state)}})
        factory = MockFactory()
        hub = Hub(
            config, clock=FakeClock(clock_start), pin_factory=factory, sound=RecordingPlayer()
        )
        pins = config["pins"]
        self.pins = hub.sim or SimPins(factory, pins["buttons"], pins["markers"], pins["centre"])
        for slot in magnets:  # moved onto the hub while it was down
            self.pins.marker(slot, True)
        hub.start(threaded=False)
        self.hub = hub
        return hub

    def crash(self) -> None:
        """Abandon the hub as SIGKILL would: nothing is stopped in order."""
        hub = self.hub
        assert hub is not None
        hub.journal_file.close()
        if hub.backups is not None:
            hub.backups.stop()
        hub.inputs.close()
        hub.store.close()
        self.hub = None

    def stop(self) -> None:
        if self.hub is not None:
            self.hub.stop()

    def wait(self, seconds: float) -> None:
        assert self.hub is not None
        self.hub.clock.advance(seconds)  # type: ignore[attr-defined]
        self.hub.loop.drain()

    def press(self, slot: int, seconds: float = TAP, release: bool = True) -> None:
        assert self.pins is not None
        self.pins.button(slot, True)
        self.wait(seconds)
        if release:
            self.pins.button(slot, False)
            self.wait(0.1)

    def marker(self, slot: int, present: bool, settle: bool = True) -> None:
        assert self.pins is not None
        self.pins.marker(slot, present)
        self.wait(0.2 if settle else 0.01)

    def view(self) -> dict:
        assert self.hub is not None
        return core.snapshot(self.hub.loop.table, self.backend)

    def new_game(self, rules: str = "consensus", rounds: int | None = None) -> int:
        assert self.hub is not None
        setup = {
            "players": PLAYERS,
            "seats": SEATS,
            "mexican_slot": 8,
            "first": 1,
            "rules": rules,
            "set": 9,
        }
        if rounds is not None:
            setup["rounds"] = rounds
        return self.hub.games.new_game(check_setup(setup))[0]

    def journal_copy(self) -> bytes:
        return (self.state / FILE_NAME).read_bytes()

    def journal_back(self, saved: bytes) -> None:
        """The journal as it was: its later batches never reached the disk."""
        (self.state / FILE_NAME).write_bytes(saved)

    def restart_behind(self, saved: bytes) -> dict:
        """Crash, put the journal back to ``saved`` (the store kept what came after),
        start again; the table then."""
        self.crash()
        self.journal_back(saved)
        self.start()
        return self.view()


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    yield t
    t.stop()


def played_round(table: Table) -> list[dict]:
    """Ann plays, Bob a double on his train, Cid covers it, Ann's marker goes down."""
    views = [table.view()]
    for action in [
        lambda: table.press(1),
        lambda: table.press(3, HOLD),
        lambda: table.press(5),
        lambda: table.marker(1, True),
    ]:
        action()
        views.append(table.view())
    return views


def test_the_exact_table_comes_back_without_a_sound_and_undo_walks_back(table):
    table.start()
    table.new_game()
    views = played_round(table)
    assert views[-1]["turn"] == 3 and views[-1]["slots"][0]["public"]
    assert views[2]["double"] is not None
    table.crash()

    hub = table.start(clock_start=5.0)  # after a power cut the clock starts near zero
    assert table.view() == views[-1]
    assert hub.sound.played == []  # type: ignore[attr-defined]
    by_count = {v["undo"]: v for v in views}  # the view after each table action
    assert views[-1]["undo"] >= 2
    for count in range(views[-1]["undo"] - 1, -1, -1):
        hub.games.undo()
        assert play_of(table.view()) == play_of(by_count[count])
    assert hub.sound.played == ["turn_back"] * views[-1]["undo"]  # type: ignore[attr-defined]


def play_of(view: dict) -> dict:
    """A snapshot without the inputs: what an undo puts back."""
    return {k: v for k, v in view.items() if k != "slots"}


def test_a_press_or_a_marker_moving_across_the_crash_does_nothing(table):
    table.start()
    table.new_game()
    table.press(1)
    before = table.view()
    table.press(3, 2.5, release=False)  # Bob holds his slot: long hold due at 4 s
    table.marker(5, True, settle=False)  # Cid's marker: still in its flicker window
    table.crash()

    table.start(clock_start=1_000_000.0)  # or the same boot, later
    table.wait(10.0)  # no long hold fires, no marker settles
    assert table.view() == before
    table.press(3)  # the hub reads the next press as usual
    assert table.view()["turn"] == 5


def test_no_last_tile_call_spans_a_restart(table):
    table.start()
    table.new_game()
    table.press(1)  # Ann's turn ends; a second tap within 0.6 s would call her last tile
    table.crash()
    table.start(clock_start=1.0)
    table.press(1)  # Ann's tap now: not a call (it is Bob's turn: refused)
    view = table.view()
    assert view["one_tile"] == [] and view["turn"] == 3
    assert table.hub.sound.played == ["nope"]  # type: ignore[union-attr]


def test_the_magnets_are_the_truth_and_each_difference_is_logged(tmp_path, caplog):
    table = Table(tmp_path, backend="gpio")
    try:
        table.start()
        table.new_game()
        table.press(1)
        table.marker(3, True)  # Bob's train public; his turn ended on it
        before = table.view()
        table.crash()
        with caplog.at_level(logging.WARNING, "hub.persist.journal"):
            table.start(magnets=[5])  # Bob's marker lifted, Cid's put down meanwhile
        after = table.view()
    finally:
        table.stop()
    assert "slot 3: marker on in the journal, off on the sensor" in caplog.text
    assert "slot 5: marker off in the journal, on on the sensor" in caplog.text
    assert caplog.text.count("the sensor wins") == 2
    assert [s["public"] for s in after["slots"]][2:5] == [False, False, True]
    assert after["turn"] == before["turn"]  # a reading moves no turn


def test_a_virtual_table_keeps_its_markers(table):
    hub = table.start()
    table.new_game()
    table.marker(3, True)
    table.crash()
    hub = table.start()
    assert hub.sim is not None and hub.sim.marker_present(3)
    assert table.view()["slots"][2]["public"]


def test_no_journal_starts_from_the_store_as_before(table):
    table.start()
    game_id = table.new_game()
    table.press(1)
    table.crash()
    (table.state / FILE_NAME).unlink()
    table.start()
    view = table.view()
    assert view["game"]["id"] == game_id and view["turn"] == 1  # the round's start


def test_a_damaged_checkpoint_starts_from_the_store(table, caplog):
    table.start()
    table.new_game()
    table.press(1)
    table.crash()
    path = table.state / FILE_NAME
    path.write_bytes(b"00000000 {}\n" + path.read_bytes())
    with caplog.at_level(logging.WARNING, "hub.persist.journal"):
        table.start()
    assert "line 1 of" in caplog.text and table.view()["turn"] == 1


# --- the store got further than the journal ---------------------------------------------
# Each case: what the hub did before the journal's last batch reached the disk, then
# what it did after (the store kept it), and the phase the live table then showed. The
# restart (the journal caught up with the store) must give the table the live hub had,
# play and undo history alike: the live hub followed the store (``Games.round_scored``)
# or led it (a long hold, a blocked round, an undo), the restart follows it
# (``catch_up``), with the same events (``hub.core.follow.steps``).


def finish_round_1(table: Table) -> None:
    table.press(1)
    table.press(3, LONG)  # Bob went out


def turn(table: Table, seconds: float = TAP) -> None:
    """Whose turn it is presses their slot: a tap ends the turn, a long hold goes out."""
    table.press(table.view()["turn"], seconds)


def last_round_playing(table: Table, game_id: int) -> None:
    """A two-round game in its last round, a turn played."""
    finish_round_1(table)
    score(1)(table, game_id)
    turn(table)
    assert table.view()["undo"] == 1


def round_out(table: Table, game_id: int) -> None:
    turn(table, LONG)


def score(number: int):
    def scored(table: Table, game_id: int) -> None:
        games = table.hub.games  # type: ignore[union-attr]
        out = games.get_game(game_id)["rounds"][number - 1]["went_out"]
        games.score_round(
            game_id, number, points={p: 0 if p == out else 5 for p in PLAYERS}, mid_round=True
        )

    return scored


def finish(table: Table, game_id: int) -> None:
    table.hub.games.end_game(game_id)  # type: ignore[union-attr]


def block(table: Table, game_id: int) -> None:
    table.hub.games.block_round(game_id, 1)  # type: ignore[union-attr]


def undo(table: Table, game_id: int) -> None:
    table.hub.games.undo()  # type: ignore[union-attr]


def name_engine(table: Table, game_id: int) -> None:
    table.hub.games.set_engine(game_id, 1, 7)  # type: ignore[union-attr]


def round_1_scored(table: Table, game_id: int) -> None:
    finish_round_1(table)
    score(1)(table, game_id)


def both(*steps):
    def done(table: Table, game_id: int) -> None:
        for step in steps:
            step(table, game_id)

    return done


OVER = {"phase": "round-over"}
NEXT = {"round": 2, "phase": "first-turn"}
DONE = {"phase": "finished"}
CASES = {  # name: (rules, rounds, before the journal's last batch, after it, live game)
    "went out": ("consensus", None, lambda t, g: turn(t), round_out, OVER),
    "blocked": ("consensus", None, lambda t, g: turn(t), block, OVER),
    "reopened by an undo": (
        "consensus",
        None,
        lambda t, g: finish_round_1(t),
        undo,
        {"round": 1, "phase": "first-turn"},
    ),
    "next round scored": ("consensus", None, lambda t, g: finish_round_1(t), score(1), NEXT),
    "scored while played": ("consensus", None, lambda t, g: turn(t), score(1), NEXT),
    "engine named": ("aces", None, lambda t, g: None, name_engine, {"engine": 7}),
    "last round scored": ("consensus", 2, both(last_round_playing, round_out), score(2), DONE),
    "last round scored while played": ("consensus", 2, last_round_playing, score(2), DONE),
    "ended early": ("consensus", None, round_1_scored, finish, DONE),
    "ended early after the last round's end": (
        "consensus",
        2,
        both(last_round_playing, round_out),
        finish,
        DONE,
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_a_restart_brings_the_table_the_store_got_further_with(table, case):
    rules, rounds, before, after, shown = case
    table.start()
    game_id = table.new_game(rules=rules, rounds=rounds)
    before(table, game_id)
    saved = table.journal_copy()
    after(table, game_id)
    live, live_play = table.view(), play(table)
    assert {k: live["game"][k] for k in shown} == shown
    # What the next undo takes back is named by the action that did it: the live
    # table's long hold, the restart's "Bob went out" from the store (see ``play``).
    assert without_undoes(table.restart_behind(saved)) == without_undoes(live)
    assert play(table) == live_play


def without_undoes(snapshot: dict) -> dict:
    return {k: v for k, v in snapshot.items() if k != "undoes"}


def play(table: Table) -> state.Table:
    """The hub's table without its inputs and clock times (what a restart keeps), and
    without the words the undo log gives each action (the restart knows the store's
    "Bob went out", not the long hold that said it)."""
    assert table.hub is not None
    t = settle(table.hub.loop.table, table.hub.loop.table.timings)
    history = tuple(state.evolve(m, what=SOME_ACTION) for m in t.history)
    return state.evolve(t, markers=(), centre=state.ButtonInput(), buttons=(), history=history)


def test_a_new_game_the_journal_missed_starts_from_the_store(table, tmp_path):
    hub = table.start()
    game_id = table.new_game()
    finish_round_1(table)
    hub.games.score_round(game_id, 1, points={"Ann": 4, "Bob": 0, "Cid": 7})
    hub.games.end_game(game_id)
    saved = table.journal_copy()
    second = table.new_game()
    live = table.view()
    assert table.restart_behind(saved) == live and live["game"]["id"] == second


def test_a_clean_stop_keeps_the_table_too(table, tmp_path):
    table.start()
    table.new_game()
    views = played_round(table)
    table.stop()
    shutil.copy(table.state / FILE_NAME, tmp_path / "copy")
    table.start()
    assert table.view() == views[-1]

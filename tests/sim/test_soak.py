"""tablesim.soak: tablesim's games played through the real hub on virtual time, checked
after every action; the in-suite soak of every profile (``make soak``: full size)."""

import argparse
import os

import pytest

from tablesim.motions import Pace
from tablesim.soak import (
    Mismatch,
    ProgressLine,
    Report,
    add_arguments,
    command,
    new_hub,
    play_game,
    run,
    spec_of,
)
from tablesim.soak_plans import Plan, Spec
from tests.helpers import long_run_scale, scaled

# The in-suite soak's size (MTRAIN_TEST_SCALE, tests/helpers.py): an ordinary run plays a
# few games per run in this process; ``make torture`` 60 per run in two processes.
GAMES = scaled(quick=6, long=60)
WHOLE_GAMES = scaled(quick=1, long=8)
JOBS = 1 if long_run_scale() == 0 else min(2, os.cpu_count() or 1)


@pytest.fixture
def soak_hub(tmp_path):
    hub = new_hub(tmp_path / "hub")
    yield hub
    hub.stop()


def parse(words):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(words)


def test_a_game_through_the_hub_matches_the_simulator_at_every_step(soak_hub):
    spec = Spec("consensus", 1, (5, 5), seed=3, rounds=2)
    report = Report(spec)
    assert play_game(soak_hub, spec, next(spec.plans()), report) is None
    assert report.games == 1 and report.actions > 100 and report.edges > 2 * report.actions
    assert report.table_s > report.actions  # about a second of table time per action
    game = soak_hub.store.get_game(1)
    assert len(game["rounds"]) == 2 and game["finished"]


def test_bounce_and_flicker_on_every_gesture_change_nothing(soak_hub):
    spec = Spec("triples", 1, (4, 4), seed=4, rounds=1)
    pace = Pace(bounce=1.0, flicker=1.0)
    assert play_game(soak_hub, spec, next(spec.plans()), Report(spec), pace=pace) is None


def test_one_hub_plays_game_after_game(soak_hub):
    spec = Spec("mexicantrainfun", 3, seed=5, rounds=1, chickenfoot=True)
    report = Report(spec)
    for plan in spec.plans():
        assert play_game(soak_hub, spec, plan, report) is None
    assert report.games == 3 and [g["id"] for g in soak_hub.store.list_games()] != []


def test_a_hub_that_reads_gestures_differently_is_caught_with_its_replay(tmp_path):
    # Taps of 0.2 s and more read as holds on this hub: the soak must say so.
    hub = new_hub(tmp_path / "hub", {"gestures": {"tap_max_ms": 200}})
    try:
        spec = Spec("consensus", 1, (4, 4), seed=5, game_seed=777, rounds=1)
        mismatch = play_game(hub, spec, next(spec.plans()), Report(spec))
    finally:
        hub.stop()
    assert mismatch is not None and mismatch.game == 1 and mismatch.round == 1
    assert mismatch.replay == (
        "mtrain-hub soak --rules consensus --games 1 --players 4..4 --seed 5 "
        "--game-seed 777 --rounds 1"
    )
    assert mismatch.problems and mismatch.action.startswith(("Tap", "Hold", "MarkerOn"))


def test_replay_command_plays_exactly_the_same_game():
    spec = Spec("aces", 30, (2, 8), seed=9, rounds=4, bots="random")
    plan = list(spec.plans())[17]
    words = spec.replay(plan).split()[2:]  # after "mtrain-hub soak"
    again = next(spec_of(parse(words)).plans())
    assert again == Plan(1, "aces", plan.players, plan.seed, 4, bots="random")
    assert again.game()[0] == plan.game()[0]


def test_a_game_plays_the_same_in_a_run_and_in_its_replay():
    spec = Spec("triples", 3, (2, 8), seed=4, rounds=1)
    in_run, alone = [], []
    run(spec, trace=in_run.append)
    third = list(spec.plans())[2]
    words = spec.replay(third).split()[2:]
    run(spec_of(parse(words)), trace=alone.append)
    starts = [i for i, line in enumerate(in_run) if line.lstrip().startswith("0 NewGame")]
    assert len(starts) == 3 and in_run[starts[2] :] == alone


def test_progress_hears_after_each_batch_in_every_job():
    heard = []
    report = run(
        Spec("aces", 6, (2, 3), seed=2, rounds=1),
        jobs=2,
        progress=lambda r, total: heard.append((r.games, total)),
    )
    assert report.games == 6 and report.jobs == 2
    assert heard[-1] == (6, 6) and [g for g, _ in heard] == sorted(g for g, _ in heard)


def test_plans_vary_players_and_partnerships_take_only_even_tables():
    plans = list(Spec("consensus", 60, (2, 8), seed=1).plans())
    assert {p.players for p in plans} == set(range(2, 9))
    assert len({p.seed for p in plans}) == 60
    even = Spec("consensus", 30, (2, 8), seed=1, partnerships=True).plans()
    assert {p.players for p in even} == {4, 6, 8}
    with pytest.raises(ValueError):
        next(Spec("consensus", 1, (2, 3), partnerships=True).plans())


def test_command_prints_the_report_and_exits_0(capsys):
    assert command(parse(["--rules", "aces", "--games", "2", "--rounds", "1"])) == 0
    out = capsys.readouterr().out
    assert "soak aces: 2 games" in out and "0 mismatches" in out


def test_command_exits_1_and_prints_each_mismatch_with_its_replay(monkeypatch, capsys):
    def found(spec, jobs, trace=None, progress=None):
        report = Report(spec)
        report.mismatches.append(
            Mismatch(
                1, "mtrain-hub soak --game-seed 5", 7, "Tap(slot=2)", 1, ["turn: expected 3, hub 2"]
            )
        )
        return report

    monkeypatch.setattr("tablesim.soak.run", found)
    assert command(parse(["--games", "1"])) == 1
    out = capsys.readouterr().out
    assert "MISMATCH game 1, step 7 (round 1) Tap(slot=2): turn: expected 3, hub 2" in out
    assert "  replay: mtrain-hub soak --game-seed 5" in out


def test_command_refuses_options_the_profile_has_not(capsys):
    assert command(parse(["--rules", "aces", "--chickenfoot"])) == 2
    assert "chickenfoot" in capsys.readouterr().err


# The in-suite soak: every profile and option run, 2 to 8 players, GAMES games of 3 rounds
# each (with the bots' mistakes, undone), and WHOLE_GAMES whole games per profile
# (engines down to 0). `make soak` plays 1,000 whole games per run.
RUNS = [
    ("consensus", {}),
    ("aces", {}),
    ("mexicantrainfun", {}),
    ("triples", {}),
    ("mexicantrainfun", {"chickenfoot": True}),
    ("consensus", {"chickenfoot": True}),
    ("consensus", {"partnerships": True}),
    ("consensus", {"blanks": True}),
    # Issue 24, item 10: the consensus variations the hub reads differently.
    ("consensus", {"variants": ("continuous_draw",)}),
    ("consensus", {"variants": ("doubled_doubles",)}),
]


def _run_id(rules: str, options: dict[str, object]) -> str:
    words = [
        str(v) for key, value in options.items() for v in (value if key == "variants" else [key])
    ]  # type: ignore[attr-defined]
    return "-".join([rules, *words])


@pytest.mark.slow
@pytest.mark.torture
@pytest.mark.parametrize(("rules", "options"), RUNS, ids=[_run_id(r, o) for r, o in RUNS])
def test_soak(rules, options):
    check(Spec(rules, GAMES, (2, 8), seed=2026, rounds=3, **options))


@pytest.mark.slow
@pytest.mark.torture
@pytest.mark.parametrize("rules", [rules for rules, options in RUNS if not options])
def test_soak_whole_games(rules):
    check(Spec(rules, WHOLE_GAMES, (2, 8), seed=2027))


def check(spec):
    report = run(spec, jobs=JOBS)
    found = "\n".join(line for m in report.mismatches for line in m.lines())
    assert report.mismatches == [], found
    assert report.games == spec.games and report.actions > spec.games * 50
    assert report.undos > 0  # the bots' mistakes were made and undone


def test_progress_line_speaks_at_each_tenth(capsys):
    line = ProgressLine()
    report = Report(Spec("consensus", 100))
    for games in range(1, 101):
        report.games = games
        line(report, 100)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 9 and err[0].startswith("  consensus: 10/100 games")


def test_mtrain_hub_soak_subcommand(capsys):
    from hub.cli.main import main

    assert main(["soak", "--rules", "triples", "--games", "1", "--rounds", "1"]) == 0
    assert "soak triples: 1 games" in capsys.readouterr().out

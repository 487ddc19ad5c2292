"""tablesim.game: whole games as (action, truth) streams, for every profile."""

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tablesim import (
    PROFILES,
    Blocked,
    EnterScores,
    FirstLegal,
    GameConfig,
    Hold,
    LargestPips,
    LastTile,
    LongHold,
    MarkerOff,
    MarkerOn,
    NewGame,
    RandomLegal,
    Round,
    SetEngine,
    Tap,
    iter_actions,
    play_game,
    seat_bots,
)
from tablesim.tiles import full_set, tile_points

PLAYING = ("first-turn", "play")


def check_stream(config, record):
    """Invariants every game stream keeps; returns the number of gestures."""
    steps = record.steps
    assert isinstance(steps[0][0], NewGame) and steps[0][0].config == config
    assert steps[-1][1].phase == "finished" and steps[-1][1].turn is None
    scores = [a for a, _ in steps if isinstance(a, EnterScores)]
    assert [a.result for a in scores] == list(record.results)
    assert len(scores) == config.rounds
    before = steps[0][1]
    for action, truth in steps[1:]:
        check_truth(config, truth)
        check_gesture(config, action, before, truth)
        before = truth
    for result in record.results:
        check_result(config, result)
    return len(steps)


def check_truth(config, truth):
    seats = set(config.seats)
    assert truth.turn is None or truth.turn in seats
    if config.mexican_slot is not None:
        assert config.mexican_slot in truth.public
    assert truth.public <= seats | {config.mexican_slot}
    assert truth.one_tile <= seats
    if truth.phase not in PLAYING:
        assert truth.turn is None and truth.double is None
    if truth.double is not None:
        assert config.profile.tracks_doubles
        assert truth.double.responsible in seats
        assert 1 <= truth.double.covers_left <= config.covers_on(truth.double.slot)
    if config.profile.engine_chosen:
        assert 0 <= truth.engine <= config.set_max
    else:
        assert truth.engine == config.set_max - truth.round + 1


def acting(config, action, before):
    """Whose gesture ``action`` is: the turn owner's, but after a double that may end a
    first-turn string (triples) the next player's gesture ends that turn first."""
    d = before.double
    string_double = (
        before.phase == "first-turn" and d is not None and d.slot == d.responsible == before.turn
    )
    if string_double and action.slot != before.turn:
        return config.next_seat(before.turn)
    return before.turn


def check_gesture(config, action, before, truth):
    if isinstance(action, EnterScores):
        assert before.phase == "round-over"
        assert truth.phase == "finished" or (truth.phase == "first-turn" and truth.went_out is None)
        return
    if isinstance(action, Blocked):
        assert before.phase == "play" and truth.phase == "round-over"
        return
    if isinstance(action, MarkerOff):
        assert action.slot in before.public and action.slot not in truth.public
        return
    assert before.phase in PLAYING
    if isinstance(action, SetEngine):  # named before the engine is placed
        assert config.profile.engine_chosen and before.turn is None
        assert truth.engine == action.engine != before.engine
        return
    if isinstance(action, LastTile):
        assert action.slot in truth.one_tile and action.slot not in before.one_tile
        return
    if before.turn is None:  # the engine is placed
        assert isinstance(action, Tap) and action.slot in config.seats
        return
    turn = acting(config, action, before)
    if isinstance(action, MarkerOn) and config.next_seat(action.slot) == turn != action.slot:
        # The doubler's marker after a tap on their own double: the tap was a pass.
        assert truth.double is not None and truth.double.slot == action.slot
        turn = action.slot
    if isinstance(action, MarkerOn | LongHold):
        assert action.slot == turn
    if isinstance(action, MarkerOn):
        assert action.slot in truth.public and action.slot not in before.public
    if isinstance(action, Hold) and truth.double is not None:
        assert truth.double.slot == action.slot
    if isinstance(action, Tap) and action.slot in config.seats and action.slot != turn:
        partner_ok = config.partnerships
        assert (
            action.slot in before.public
            or partner_ok
            or (before.double is not None and before.double.slot == action.slot)
        )


def check_result(config, result):
    tiles = [t for hand in result.hands.values() for t in hand]
    assert len(tiles) == len(set(tiles))
    assert (result.engine, result.engine) not in tiles
    assert result.blocked == (result.went_out is None)
    zeroed = set()
    if result.went_out is not None:
        assert result.hands[result.went_out] == ()
        zeroed.add(result.went_out)
        if config.partnerships:
            seats, half = config.seats, len(config.seats) // 2
            zeroed.add(seats[(seats.index(result.went_out) + half) % len(seats)])
    for slot, hand in result.hands.items():
        points = sum(tile_points(t, config.double_blank) for t in hand)
        assert result.points[slot] == (0 if slot in zeroed else points)


@pytest.mark.parametrize("rules", list(PROFILES))
@pytest.mark.parametrize("players", range(2, 9))
def test_full_game_for_each_profile_and_table_size(rules, players):
    config = GameConfig.for_players(rules, players, seed=players)
    record = play_game(config, RandomLegal(players))
    check_stream(config, record)
    assert any(r.went_out is not None for r in record.results)


BOTS = {
    "first": lambda s: FirstLegal(),
    "largest": lambda s: LargestPips(),
    "random": lambda s: RandomLegal(s),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(list(PROFILES)),
    seats=st.lists(st.integers(1, 8), min_size=2, max_size=8, unique=True),
    seed=st.integers(0, 2**32 - 1),
    chickenfoot=st.booleans(),
    partnerships=st.booleans(),
    double_blank=st.sampled_from([0, 25, 50]),
    bot=st.sampled_from(sorted(BOTS)),
    rounds=st.integers(1, 4),
)
def test_any_game_completes_and_keeps_the_stream_invariants(
    rules, seats, seed, chickenfoot, partnerships, double_blank, bot, rounds
):
    profile = PROFILES[rules]
    assume(not chickenfoot or profile.chickenfoot_allowed)
    assume(not partnerships or (profile.partnerships_allowed and len(seats) in (4, 6, 8)))
    config = GameConfig(
        rules,
        tuple(seats),
        seed=seed,
        chickenfoot=chickenfoot,
        partnerships=partnerships,
        double_blank=double_blank,
        rounds=rounds,
    )
    bots = [BOTS[bot](seed + i) for i in range(len(seats))]
    check_stream(config, play_game(config, bots))


def test_same_seed_same_game_other_seed_other_game():
    config = GameConfig.for_players("mexicantrainfun", 5, seed=11)
    first = play_game(config, RandomLegal(4))
    again = play_game(config, RandomLegal(4))
    assert first == again
    other = play_game(GameConfig.for_players("mexicantrainfun", 5, seed=12), RandomLegal(4))
    assert other.steps != first.steps


def test_iter_actions_is_lazy_and_matches_play_game():
    config = GameConfig.for_players("triples", 3, seed=5, rounds=2)
    stream = iter_actions(config, LargestPips())
    assert isinstance(next(stream)[0], NewGame)
    assert [next(stream)] + list(stream) == list(play_game(config, LargestPips()).steps[1:])


def test_engine_profiles_start_each_round_with_the_engine_tap():
    config = GameConfig.for_players("mexicantrainfun", 4, seed=2, rounds=3)
    steps = play_game(config).steps
    starts = [i for i, (a, _) in enumerate(steps) if isinstance(a, NewGame | EnterScores)]
    for i in starts[:-1]:
        assert steps[i][1].turn is None and steps[i][1].phase == "first-turn"
        action, truth = steps[i + 1]
        assert isinstance(action, Tap) and truth.turn == action.slot


def test_first_names_round_one_starter_without_an_engine_tap():
    config = GameConfig.for_players("aces", 3, seed=2, first=2, rounds=2)
    steps = play_game(config).steps
    assert steps[0][1].turn == 2
    second_round = [t for a, t in steps if isinstance(a, EnterScores)][0]
    assert second_round.turn is None


def test_markers_come_off_before_the_scores_and_the_next_round_starts_clear():
    config = GameConfig.for_players("consensus", 6, seed=9)
    for action, truth in iter_actions(config, RandomLegal(1)):
        if isinstance(action, EnterScores):
            assert truth.public == {config.mexican_slot}


def test_tiles_are_conserved_through_a_round():
    config = GameConfig.for_players("consensus", 4, seed=3, chickenfoot=True)
    rnd = Round(config, 1, random.Random(3), seat_bots(config.seats, RandomLegal(3)))
    rnd.begin()
    while not rnd.over:
        rnd.play_turn()
    on_trains = [t for train in rnd.table.trains.values() for t in train.tiles]
    in_hands = [t for hand in rnd.table.hands.values() for t in hand]
    everything = on_trains + in_hands + rnd.table.boneyard
    assert sorted(everything) == sorted(t for t in full_set(12) if t != (12, 12))


def test_eight_players_have_no_mexican_train():
    config = GameConfig.for_players("triples", 8, seed=1)
    record = play_game(config, RandomLegal(1))
    assert all(t.public <= set(config.seats) for _, t in record.steps)
    check_stream(config, record)


def test_seat_bots_forms():
    seats = (1, 4)
    assert set(seat_bots(seats, None)) == {1, 4}
    bot = LargestPips()
    assert seat_bots(seats, bot) == {1: bot, 4: bot}
    assert seat_bots(seats, [bot, FirstLegal()])[1] is bot
    with pytest.raises(ValueError):
        seat_bots(seats, [bot])
    with pytest.raises(ValueError):
        seat_bots(seats, {1: bot})


@pytest.mark.parametrize("rules", list(PROFILES))
def test_no_round_is_blocked_with_a_double_open(rules):
    # Dead doubles are closed (a hold on their slot), so a round never sticks on one.
    for seed in range(8):
        config = GameConfig.for_players(rules, 2 + seed % 7, seed=seed, rounds=6)
        before = None
        for action, truth in iter_actions(config, RandomLegal(seed)):
            if isinstance(action, Blocked):
                assert before.double is None
            before = truth

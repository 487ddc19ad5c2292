"""tablesim.round: move legality per profile, gestures and the truth after each.

Scripted rounds: chosen hands and boneyard (drawn in list order), FirstLegal bots,
slots 1.. seated, the Mexican Train on the next free slot, round 1 starting at slot 1.
"""

from tablesim import (
    Blocked,
    DoubleTruth,
    Hold,
    LongHold,
    MarkerOff,
    MarkerOn,
    Tap,
)
from tablesim.table import COVER, Move
from tests.tablesim_helpers import actions, play, scripted

FIRST_TURNS_3 = [Tap(1), Tap(2), Tap(3)]


def test_aces_double_same_player_plays_again_nothing_tracked():
    rnd = scripted(
        "aces",
        {1: [(12, 5), (5, 4), (9, 8)], 2: [(12, 10), (7, 6)]},
        boneyard=[(4, 4), (4, 0), (11, 0)],
    )
    steps = play(rnd, turns=3)
    # First turns: P1 strings 12-5, 5-4; P2 lays 12-10. Then P1 draws 4-4 (hold: a
    # double), plays again at once, draws 4-0 and taps.
    assert actions(steps) == [Tap(1), Tap(2), Hold(1), Tap(1)]
    after_hold = steps[2][1]
    assert after_hold.turn == 1 and after_hold.double is None and after_hold.phase == "play"
    assert steps[3][1].turn == 2
    assert rnd.table.trains[1].ends == [0]


def test_aces_engine_placer_taps_and_the_next_player_starts():
    rnd = scripted("aces", {1: [(12, 5)], 2: [(12, 6)], 3: [(12, 7)]}, number=2, set_max=13)
    assert rnd.truth().turn is None and rnd.holder == 1
    steps = play(rnd, turns=0)
    assert actions(steps) == [Tap(1)]
    assert steps[0][1].turn == 2


def test_mexicantrainfun_answer_own_double_followers_pass_without_marker():
    rnd = scripted(
        "mexicantrainfun",
        {1: [(12, 5), (5, 5), (11, 0)], 2: [(12, 6), (6, 0)], 3: [(12, 7), (5, 2), (7, 0)]},
        boneyard=[(9, 1), (8, 3)],
    )
    steps = play(rnd, turns=6)
    assert actions(steps) == FIRST_TURNS_3 + [Hold(1), MarkerOn(1), Tap(2), Tap(1)]
    truths = [t for _, t in steps]
    assert truths[3].double == DoubleTruth(1, 1, 1) and truths[3].turn == 1
    # P1 cannot answer, draws 9-1: marker down, the double passes to P2.
    assert truths[4].double == DoubleTruth(1, 1, 2) and truths[4].public == {1, 4}
    # P2 may only play on the double (6-0 fits their own train); draws 8-3; passes.
    assert truths[5].double == DoubleTruth(1, 1, 3) and truths[5].public == {1, 4}
    assert (8, 3) in rnd.table.hands[2]
    # P3 answers with 5-2.
    assert truths[6].double is None and truths[6].turn == 1


def test_consensus_cover_every_failing_player_marks_only_the_double_is_playable():
    rnd = scripted(
        "consensus",
        {1: [(12, 5), (5, 5), (11, 0)], 2: [(12, 6), (6, 0)], 3: [(12, 7), (5, 2), (7, 0)]},
        boneyard=[(9, 1), (8, 3)],
    )
    play(rnd, turns=3)
    rnd.play_turn()  # P1: double, cannot cover, marks
    assert actions(rnd.drain()) == [Hold(1), MarkerOn(1)]
    assert rnd._legal(2) == []  # 6-0 fits P2's own train, but only the double is playable
    steps = play(rnd, turns=2)
    assert actions(steps) == [MarkerOn(2), Tap(1)]
    assert steps[0][1].public == {1, 2, 4} and steps[0][1].double == DoubleTruth(1, 1, 3)
    assert steps[1][1].double is None and steps[1][1].turn == 1


def test_triples_first_turn_double_waits_then_is_covered_on_its_own_train():
    rnd = scripted(
        "triples",
        {
            1: [(12, 5), (5, 5), (11, 0)],
            2: [(12, 6), (6, 0), (11, 1)],
            3: [(12, 7), (9, 2), (5, 0)],  # 5-0 keeps the double-five alive
        },
        boneyard=[(8, 1), (5, 3)],
    )
    steps = play(rnd, turns=5)
    assert actions(steps) == [Hold(1), Tap(2), Tap(3), MarkerOn(1), Tap(1)]
    truths = [t for _, t in steps]
    # The string 12-5, 5-5 ends on a double: the double waits for P1; the hub passes
    # the turn when the next player acts (a string may go on past a double).
    assert truths[0].turn == 1 and truths[0].double == DoubleTruth(1, 1, 1)
    assert truths[1].turn == 3 and truths[1].double == DoubleTruth(1, 1, 1)
    assert truths[2].phase == "play" and truths[2].double == DoubleTruth(1, 1, 1)
    # P1's second turn: cannot satisfy, draws 8-1, marks; P2 is responsible.
    assert truths[3].double == DoubleTruth(1, 1, 2)
    # P2 draws 5-3 and covers the double: triples has no Mexican Train to satisfy it
    # on (seed 004), and P1's train is public only at the double itself.
    assert truths[4].double is None and truths[4].turn == 3
    assert truths[4].public == {1}
    assert sorted(rnd.table.trains[1].ends) == [3]


def test_triples_satisfy_moves_include_other_public_trains_not_own():
    rnd = scripted(
        "triples", {1: [(12, 5), (5, 5), (6, 1)], 2: [(12, 6), (0, 0)], 3: [(12, 7), (9, 2)]}
    )
    play(rnd, turns=3)
    rnd.markers.update({1, 2})
    rnd.table.trains[1].ends.append(6)  # pretend P1's own public train ends at 6 too
    moves = rnd._legal(1)
    assert Move((6, 1), 2, 0) in moves  # P2's public train
    assert all(m.slot != 1 or m.end == COVER for m in moves)


def test_triples_second_first_turn_double_is_held_back():
    rnd = scripted(
        "triples",
        {1: [(12, 5), (5, 5), (11, 0)], 2: [(12, 6), (6, 6), (9, 0)], 3: [(12, 7), (9, 2)]},
    )
    steps = play(rnd, turns=2)
    assert actions(steps) == [Hold(1), Tap(2)]
    assert (6, 6) in rnd.table.hands[2] and steps[1][1].double == DoubleTruth(1, 1, 1)


def test_chickenfoot_needs_three_covers_and_failing_a_later_one_needs_no_marker():
    rnd = scripted(
        "consensus",
        {
            1: [(12, 5), (5, 5), (5, 1), (11, 0)],
            2: [(12, 6), (5, 2), (10, 0)],
            3: [(12, 7), (9, 0)],
            4: [(12, 8), (5, 4), (8, 0)],
        },
        boneyard=[(11, 1)],
        chickenfoot=True,
    )
    steps = play(rnd, turns=8)
    assert actions(steps)[4:] == [Hold(1), Tap(1), Tap(1), Tap(3), Tap(1)]
    doubles = [t.double for _, t in steps[4:]]
    assert doubles == [
        DoubleTruth(1, 3, 1),
        DoubleTruth(1, 2, 2),
        DoubleTruth(1, 1, 3),
        DoubleTruth(1, 1, 4),
        None,
    ]
    assert steps[7][1].public == {5}  # P3 passed without a marker
    assert sorted(rnd.table.trains[1].ends) == [1, 2, 4]


def test_playing_on_own_public_train_lifts_the_marker_first():
    rnd = scripted(
        "consensus", {1: [(12, 5), (5, 3), (9, 0)], 2: [(12, 6), (4, 1)]}, boneyard=[(10, 1)]
    )
    play(rnd, turns=2)
    rnd.markers.add(1)
    steps = play(rnd, turns=1)
    assert actions(steps) == [MarkerOff(1), Tap(1)]
    assert steps[0][1].public == {3} and steps[0][1].turn == 1


def test_failing_with_the_double_on_own_marked_train_lifts_and_replaces_the_marker():
    # P2 plays 6-6 on P1's public train (ends at 6); P1 cannot cover: a tap on slot 1
    # would read as a cover, so P1 lifts and puts back the marker.
    rnd = scripted(
        "consensus",
        {1: [(12, 6), (9, 0), (8, 0)], 2: [(12, 3), (6, 6), (7, 0)]},
        boneyard=[(10, 1), (11, 1), (11, 2), (6, 0)],  # 6-0: the double-six is not dead
        first=2,
    )
    play(rnd, turns=2)
    rnd.markers.add(1)
    steps = play(rnd, turns=2)
    assert actions(steps) == [Hold(1), MarkerOn(2), MarkerOff(1), MarkerOn(1)]
    assert steps[-1][1].double == DoubleTruth(1, 1, 2) and steps[-1][1].public == {1, 2, 3}


def test_partners_may_play_on_each_others_train():
    rnd = scripted(
        "consensus",
        {
            1: [(12, 5), (7, 1), (11, 0)],
            2: [(12, 6), (9, 9)],
            3: [(12, 7), (2, 2)],
            4: [(12, 8), (3, 3)],
        },
        partnerships=True,
    )
    play(rnd, turns=4)
    assert Move((7, 1), 3, 0) in rnd._legal(1)
    assert not any(m.slot == 2 for m in rnd._legal(1))
    steps = play(rnd, turns=1)
    assert actions(steps) == [Tap(3)]


def test_partnership_scoring_partner_of_who_went_out_scores_zero():
    rnd = scripted(
        "consensus",
        {1: [(12, 5)], 2: [(12, 6), (0, 0), (4, 1)], 3: [(12, 7), (9, 9)], 4: [(12, 8), (3, 3)]},
        partnerships=True,
        double_blank=50,
    )
    steps = play(rnd)
    assert actions(steps) == [LongHold(1)]
    assert steps[0][1].phase == "round-over" and steps[0][1].went_out == 1
    result = rnd.result()
    assert result.points == {1: 0, 2: 73, 3: 0, 4: 26}
    assert result.tile_names()[3] == ["12-7", "9-9"]


def test_blocked_round_scores_every_hand():
    rnd = scripted("consensus", {1: [(12, 5), (3, 3)], 2: [(12, 6), (4, 4)]})
    steps = play(rnd)
    assert actions(steps) == [Tap(1), Tap(2), MarkerOn(1), MarkerOn(2), Tap(1), Tap(2), Blocked(1)]
    assert steps[-1][1].phase == "round-over" and steps[-1][1].turn is None
    result = rnd.result()
    assert result.blocked and result.went_out is None
    assert result.points == {1: 6, 2: 8}
    rnd.clear_markers()
    assert actions(rnd.drain()) == [MarkerOff(1), MarkerOff(2)]


def test_first_turn_draws_once_then_marks():
    rnd = scripted("consensus", {1: [(3, 1)], 2: [(12, 6), (4, 4)]}, boneyard=[(12, 2), (5, 0)])
    steps = play(rnd, turns=1)
    assert actions(steps) == [Tap(1)] and rnd.table.trains[1].ends == [2]
    rnd = scripted("consensus", {1: [(3, 1)], 2: [(12, 6), (4, 4)]}, boneyard=[(5, 0)])
    steps = play(rnd, turns=1)
    assert actions(steps) == [MarkerOn(1)] and steps[0][1].public == {1, 3}


def test_aces_going_out_in_the_first_turn_waits_for_the_other_first_turns():
    rnd = scripted(
        "aces", {1: [(12, 5), (5, 4)], 2: [(12, 6), (6, 6), (1, 0)], 3: [(12, 7), (2, 0)]}
    )
    steps = play(rnd)
    assert actions(steps) == [LongHold(1), Tap(2), Tap(3)]
    assert steps[0][1].phase == "first-turn" and steps[0][1].went_out is None
    assert steps[0][1].turn == 2
    assert steps[-1][1].phase == "round-over" and steps[-1][1].went_out == 1


def test_mexicantrainfun_cannot_go_out_on_a_double():
    rnd = scripted(
        "mexicantrainfun", {1: [(12, 5), (5, 5)], 2: [(12, 6), (9, 0), (8, 0)]}, boneyard=[(5, 3)]
    )
    steps = play(rnd)
    assert actions(steps) == [Tap(1), Tap(2), Hold(1), LongHold(1)]
    rnd = scripted(
        "consensus", {1: [(12, 5), (5, 5)], 2: [(12, 6), (9, 0), (8, 0)]}, boneyard=[(5, 3)]
    )
    assert actions(play(rnd)) == [Tap(1), Tap(2), LongHold(1)]


def test_consensus_starter_rotates_each_round():
    hands = {1: [(12, 5)], 2: [(12, 6)], 3: [(12, 7)]}
    starters = [
        scripted("consensus", hands, number=n, set_max=14).truth().turn for n in (1, 2, 3, 4)
    ]
    assert starters == [1, 2, 3, 1]


def test_triples_double_on_a_public_train_satisfies_and_opens_a_new_one():
    rnd = scripted(
        "triples",
        {
            1: [(12, 5), (5, 5), (6, 6), (6, 0), (11, 0)],
            2: [(12, 6), (9, 1)],
            3: [(12, 7), (9, 2), (5, 1)],  # 5-1 keeps the double-five alive
        },
    )
    play(rnd, turns=3)
    rnd.markers.add(2)
    steps = play(rnd, turns=1)
    assert actions(steps) == [Hold(2), Tap(2)]
    assert steps[0][1].double == DoubleTruth(2, 1, 1) and steps[0][1].turn == 1
    assert steps[1][1].double is None and steps[1][1].turn == 2
    assert rnd.table.trains[1].ends == [5]


def test_aces_two_players_out_in_the_first_turn_the_first_is_went_out():
    rnd = scripted("aces", {1: [(12, 5), (5, 4)], 2: [(12, 6), (6, 1)], 3: [(12, 7), (2, 0)]})
    steps = play(rnd)
    assert actions(steps) == [LongHold(1), LongHold(2), Tap(3)]
    assert steps[-1][1].went_out == 1
    assert rnd.result().points == {1: 0, 2: 0, 3: 2}


def test_dead_double_is_closed_with_a_hold_on_its_slot_and_the_player_plays_on():
    # No five is left once 5-5 is down: P1 holds slot 1 again (the hub closes the
    # double), then plays 12-4 on the Mexican Train.
    rnd = scripted(
        "consensus", {1: [(12, 5), (5, 5), (12, 4), (11, 0)], 2: [(12, 6), (6, 0), (9, 1)]}
    )
    steps = play(rnd, turns=3)
    assert actions(steps) == [Tap(1), Tap(2), Hold(1), Hold(1), Tap(3)]
    truths = [t for _, t in steps]
    assert truths[2].double == DoubleTruth(1, 1, 1) and truths[2].turn == 1
    assert truths[3].double is None and truths[3].turn == 1
    assert truths[4].turn == 2


def test_dead_double_after_chickenfoot_covers_is_closed_by_who_is_responsible():
    rnd = scripted(
        "consensus",
        {
            1: [(12, 5), (5, 5), (5, 1), (11, 0)],
            2: [(12, 6), (5, 2), (10, 0)],
            3: [(12, 7), (7, 1), (9, 0)],
        },
        chickenfoot=True,
    )
    steps = play(rnd, turns=6)
    assert actions(steps)[3:] == [Hold(1), Tap(1), Tap(1), Hold(1), Tap(3)]
    doubles = [t.double for _, t in steps[3:]]
    assert doubles == [DoubleTruth(1, 3, 1), DoubleTruth(1, 2, 2), DoubleTruth(1, 1, 3), None, None]
    assert steps[6][1].turn == 3 and steps[7][1].turn == 1


def test_mexicantrainfun_last_tile_dead_double_is_closed_and_the_player_goes_out():
    rnd = scripted("mexicantrainfun", {1: [(12, 5), (5, 5)], 2: [(12, 6), (9, 0), (8, 0)]})
    steps = play(rnd)
    assert actions(steps) == [Tap(1), Tap(2), Hold(1), Hold(1), LongHold(1)]
    assert steps[-1][1].went_out == 1 and steps[-1][1].phase == "round-over"


def test_a_live_double_is_not_closed():
    # 5-3 is still in the boneyard: P1 draws it and covers (the double is not dead).
    rnd = scripted(
        "consensus", {1: [(12, 5), (5, 5), (11, 0)], 2: [(12, 6), (9, 0)]}, boneyard=[(5, 3)]
    )
    steps = play(rnd, turns=3)
    assert actions(steps) == [Tap(1), Tap(2), Hold(1), Tap(1)]


# Issue 24, items 5-7: the gestures a person makes that the hub now reads right.


def test_a_doubler_taps_to_pass_then_puts_the_marker_down():
    rnd = scripted(
        "mexicantrainfun",
        {1: [(12, 5), (5, 5), (11, 0)], 2: [(12, 6), (6, 0)], 3: [(12, 7), (5, 2), (7, 0)]},
        boneyard=[(9, 1), (8, 3)],
    )
    rnd.tap_pass = 1.0
    steps = play(rnd, turns=5)
    assert actions(steps) == FIRST_TURNS_3 + [Hold(1), Tap(1), MarkerOn(1), Tap(2)]
    truths = [t for _, t in steps]
    # The hub reads the tap as the answer: the double closed, Bob's turn ...
    assert truths[4].double is None and truths[4].turn == 2
    # ... until Ann's marker says it was a pass: the double is Bob's to answer.
    assert truths[5].double == DoubleTruth(1, 1, 2) and truths[5].public == {1, 4}


def test_a_double_inside_a_triples_first_string_gets_its_hold():
    rnd = scripted(
        "triples",
        {1: [(12, 5), (5, 5), (5, 0), (11, 1)], 2: [(12, 6), (6, 0)], 3: [(12, 7), (9, 2)]},
    )
    rnd.chicken = 1.0
    steps = play(rnd, turns=1)
    assert actions(steps) == [Hold(1), Tap(1)]
    assert steps[0][1].turn == 1 and steps[0][1].double == DoubleTruth(1, 1, 1)
    assert steps[1][1].turn == 2 and steps[1][1].double is None


def test_after_a_privatising_double_the_player_lays_another_tile():
    rnd = scripted(
        "consensus",
        {1: [(12, 5), (5, 5), (5, 3), (9, 0)], 2: [(12, 6), (4, 1), (6, 2)]},
        boneyard=[(10, 1)],
    )
    play(rnd, turns=2)
    rnd.markers.add(1)
    steps = play(rnd, turns=1)
    assert actions(steps) == [MarkerOff(1), Hold(1), Tap(1)]
    assert steps[1][1].turn == 1 and steps[1][1].double is None  # no cover owed
    assert steps[2][1].turn == 2 and steps[2][1].public == {3}

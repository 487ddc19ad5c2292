"""tablesim.bot_table: tablesim's actions done at the hub, and the hub read back as a truth."""

import random
from collections import Counter

from tablesim import (
    DoubleTruth,
    EnterScores,
    GameConfig,
    Hold,
    LongHold,
    MarkerOn,
    NewGame,
    RoundResult,
    Tap,
    Truth,
)
from tablesim.bot_table import (
    BotTable,
    differences,
    expected_sounds,
    score_differences,
    setup_body,
    sound_differences,
)
from tablesim.motions import Hand, Pace


def test_setup_body_is_what_the_scorepad_posts():
    config = GameConfig(
        "consensus",
        (2, 5, 7),
        mexican_slot=8,
        first=5,
        partnerships=False,
        chickenfoot=True,
        double_blank=25,
        rounds=4,
    )
    names = {2: "Ann", 5: "Bob", 7: "Cid"}
    assert setup_body(config, names) == {
        "players": ["Ann", "Bob", "Cid"],
        "rules": "consensus",
        "seats": [2, 5, 7],
        "mexican_slot": 8,
        "set": 12,
        "rounds": 4,
        "first": 5,
        "options": {"chickenfoot": True, "double_blank": 25},
    }


def test_gestures_drive_the_sim_pins_and_the_hub_reads_them_back(make_hub):
    hub = make_hub()
    table = BotTable(hub, Hand(random.Random(1), Pace(bounce=1.0, flicker=0.0)), hub.clock.advance)
    config = GameConfig("consensus", (1, 3), mexican_slot=2, first=1)
    table.act(NewGame(config))
    assert table.names == {1: "Ann", 3: "Bob"}
    assert table.observed() == Truth(1, frozenset({2}), None, "first-turn", 1, 12, None)
    table.act(Tap(1))
    table.act(Hold(3))  # Bob's first tile is a double on his own train
    assert table.observed().double == DoubleTruth(3, 1, 3)
    table.act(MarkerOn(3))  # ... he cannot cover it
    truth = table.observed()
    assert truth.public == {2, 3} and truth.turn == 1 and truth.double == DoubleTruth(3, 1, 1)
    assert table.edges >= 3 * 4  # every press and placement bounced
    assert hub.sound.played.count("chicken") == 1 and hub.sound.played.count("choo") == 1


def test_differences_name_each_wrong_field():
    truth = Truth(3, frozenset({4, 8}), DoubleTruth(4, 1, 3), "play", 2, 11, None)
    hub = Truth(4, frozenset({8}), DoubleTruth(4, 1, 4), "play", 2, 11, None)
    assert differences(truth, truth) == []
    assert differences(truth, hub) == [
        "turn: expected 3, hub 4",
        "public: expected {4, 8}, hub {8}",
        "double: expected DoubleTruth(slot=4, covers_left=1, responsible=3), "
        "hub DoubleTruth(slot=4, covers_left=1, responsible=4)",
    ]


def test_expected_sounds_no_chicken_for_closing_a_dead_double():
    open_on_2 = Truth(1, frozenset(), DoubleTruth(2, 1, 1), "play", 1, 12, None)
    assert expected_sounds(Hold(2), open_on_2, 8) == Counter(chicken=0)
    assert expected_sounds(Hold(3), open_on_2, 8) == Counter(chicken=1)
    assert expected_sounds(MarkerOn(2), None, 8) == Counter(choo=1)
    assert expected_sounds(Tap(2), None, 8) == Counter()


def test_sound_differences_count_chicken_choo_out_and_any_nope():
    assert sound_differences(LongHold(1), None, 8, ["out", "turn"]) == []
    assert sound_differences(Tap(1), None, 8, ["nope"]) == ["sound nope: expected 0, hub played 1"]
    assert sound_differences(MarkerOn(3), None, 8, ["turn"]) == [
        "sound choo: expected 1, hub played 0"
    ]


def test_score_differences_compare_points_went_out_and_blocked():
    result = RoundResult(1, 12, 1, False, {1: (), 2: ((6, 5),)}, {1: 0, 2: 11})
    names = {1: "Ann", 2: "Bob"}
    stored = {"round": 1, "points": {"Ann": 0, "Bob": 11}, "went_out": "Ann", "blocked": False}
    game = {"rounds": [stored]}
    assert score_differences(EnterScores(result), game, names) == []
    stored["points"] = {"Ann": 0, "Bob": 12}
    assert score_differences(EnterScores(result), game, names) == [
        "scores points: expected {'Ann': 0, 'Bob': 11}, store {'Ann': 0, 'Bob': 12}"
    ]
    assert score_differences(EnterScores(result), {"rounds": []}, names) == [
        "round 1: not in the store"
    ]

"""The table rules, driven through the pure core with timestamps."""

from __future__ import annotations

import pytest

from tests.helpers import CoreDriver

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]


def illustration_to_turn_15(rules, options=()):
    """The encyclopedia seed's worked example, 6 players on a double-nine, to turn 15."""
    hub = CoreDriver()
    hub.start(PLAYERS, rules=rules, set_max=9, mexican_slot=8, first=1, options=options)
    for slot in range(1, 7):  # turns 1-6: everyone starts their train
        hub.tap(slot)
    for slot in range(1, 7):  # turns 7-12
        hub.tap(slot)
    hub.hold(1)  # turn 13: double-five ...
    hub.tap(1)  # ... covered by its player
    hub.hold(2)  # turn 14: double-six, player 2 cannot cover
    hub.marker(2, True)
    return hub


def test_illustration_consensus():
    hub = illustration_to_turn_15("consensus")
    assert hub.table.turn == 3
    assert hub.table.doubles[0].slot == 2 and hub.table.doubles[0].responsible == 3
    hub.marker(3, True)  # turn 15: player 3 fails too
    hub.tap(2)  # turn 16: player 4 covers the double-six
    assert hub.public - {8} == {2, 3}
    assert hub.table.turn == 5
    assert hub.table.doubles == ()
    assert hub.sounds().count("chicken") == 2
    assert hub.sounds().count("choo") == 2
    assert "reminder" not in hub.sounds() and "nope" not in hub.sounds()
    hub.tap(3)  # turn 17: player 5 plays on the public (NW) train
    assert hub.table.turn == 6


def test_first_turn_phase_ends_after_everyone():
    hub = CoreDriver()
    hub.start(PLAYERS, set_max=9, first=1)
    assert hub.table.game.phase == "first-turn" and hub.table.turn == 1
    for slot in range(1, 6):
        hub.tap(slot)
    assert hub.table.game.phase == "first-turn"
    hub.tap(6)
    assert hub.table.game.phase == "play" and hub.table.turn == 1


def test_mexicantrainfun_follower_passes_without_marker():
    hub = illustration_to_turn_15("mexicantrainfun")
    hub.tap(3)  # player 3 cannot play on the double: passes, no marker
    assert "reminder" not in hub.sounds()
    assert hub.table.turn == 4 and hub.table.doubles[0].responsible == 4
    hub.tap(2)
    assert hub.table.doubles == () and hub.table.turn == 5
    assert hub.public - {8} == {2}


def test_consensus_pass_without_marker_reminds():
    hub = illustration_to_turn_15("consensus")
    hub.tap(3)
    assert hub.sounds().count("reminder") == 1
    assert hub.table.turn == 4  # the pass still moves responsibility on
    assert [e.kind for e in hub.logs("reminder")] == ["reminder"]


def test_pass_with_marker_already_down_needs_no_reminder():
    hub = illustration_to_turn_15("consensus")
    hub.marker(4, True)  # player 4's train was already public (placed out of turn)
    hub.marker(3, True)
    hub.tap(4)
    assert "reminder" not in hub.sounds()


def test_chickenfoot_needs_three_covers():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], first=1, mexican_slot=8, options=(("chickenfoot", True),))
    for slot in (1, 2, 3):
        hub.tap(slot)
    hub.hold(1)
    assert hub.table.doubles[0].covers_left == 3 and hub.table.turn == 1
    hub.tap(1)  # its player answers once
    assert hub.table.doubles[0].covers_left == 2 and hub.table.turn == 2
    hub.tap(2)  # player 2 cannot cover the second branch: passes, no marker needed
    assert "reminder" not in hub.sounds() and hub.table.turn == 3
    hub.tap(1)
    assert hub.table.doubles[0].covers_left == 1
    hub.tap(8)
    assert hub.sounds()[-1] == "nope"
    hub.tap(1)
    assert hub.table.doubles == () and hub.table.turn == 2


def test_only_the_double_is_playable_under_consensus():
    hub = illustration_to_turn_15("consensus")
    hub.tap(8)  # the Mexican Train: not while the double is open
    assert hub.sounds()[-1] == "nope" and hub.table.turn == 3


def test_triples_satisfies_on_any_public_train():
    hub = CoreDriver()
    hub.start(PLAYERS[:4], rules="triples", set_max=12, first=1)
    for slot in range(1, 5):
        hub.tap(slot)
    hub.marker(3, True)  # Cid's train is public
    hub.hold(1)
    hub.tap(3)  # satisfied on Cid's public train
    assert hub.table.doubles == () and hub.table.turn == 2


def test_triples_first_turn_double_waits_for_second_turn():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], rules="triples", set_max=12, first=1)
    hub.marker(3, True)  # Cid's train is public (open to others from the second turns)
    hub.tap(1)
    hub.hold(2)  # a double in player 2's first-turn string: the string may go on
    assert hub.table.turn == 2 and hub.table.doubles[0].waiting
    hub.tap(3)  # player 3 starts: player 2's string ended on the double, which waits
    assert hub.table.turn == 1 and hub.table.doubles[0].waiting
    hub.tap(1)  # player 1's second turn: not bound by player 2's double
    assert hub.table.turn == 2 and not hub.table.doubles[0].waiting
    hub.tap(3)  # satisfied on Cid's public train
    assert hub.sounds()[-1] == "turn" and hub.table.doubles == ()


def test_triples_no_public_trains_in_first_turn():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], rules="triples", first=1)
    hub.marker(2, True)  # Bob's train is public ...
    hub.tap(2)  # ... but not in Ann's first turn
    assert hub.sounds()[-1] == "nope" and hub.table.turn == 1


def test_aces_double_means_play_again():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], rules="aces", mexican_slot=8)
    assert hub.table.turn is None
    hub.tap(2)  # player 2 placed the engine: the player to their left starts
    assert hub.table.turn == 3
    hub.tap(3), hub.tap(1), hub.tap(2)
    hub.hold(3)
    assert hub.table.turn == 3 and hub.table.doubles == ()
    hub.tap(3)
    assert hub.table.turn == 1


def test_engine_holder_starts_under_mexicantrainfun():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], rules="mexicantrainfun", mexican_slot=8)
    hub.tap(8)
    assert hub.table.turn is None and hub.sounds()[-1] == "nope"
    hub.tap(2)
    assert hub.table.turn == 2


def test_aces_going_out_in_first_turn_waits_for_everyone():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], rules="aces", first=1)
    hub.long_hold(1)
    assert hub.table.game.phase == "first-turn" and hub.table.turn == 2
    hub.tap(2)
    hub.tap(3)
    assert hub.table.game.phase == "round-over"
    assert hub.table.went_out == 1


@pytest.mark.parametrize("rules", ["consensus", "mexicantrainfun", "triples"])
def test_long_hold_ends_round(rules):
    hub = CoreDriver()
    hub.start(PLAYERS[:3], rules=rules, first=1)
    hub.long_hold(1)
    assert hub.table.game.phase == "round-over" and hub.table.turn is None
    assert "out" in hub.sounds()


def test_a_stored_went_out_ends_the_round_as_the_long_hold_did_and_undoes_alike():
    from hub.core.effects import RoundEnded
    from hub.core.events import PlayerWentOut, UndoRequested

    held, stored = CoreDriver(), CoreDriver()
    for hub in (held, stored):
        hub.start(PLAYERS[:3], first=1)
        hub.tap(1)
    held.long_hold(2)
    effects = stored.send(PlayerWentOut(2, stored.now))
    assert RoundEnded(1, 1, "Bob") in effects and "out" not in stored.sounds()
    assert stored.table.game == held.table.game and stored.table.went_out == 2
    assert stored.table.game.phase == "round-over" and stored.table.turn is None
    for hub in (held, stored):
        hub.send(UndoRequested(hub.now, "scorekeeper"))
    assert stored.table.game == held.table.game and stored.table.turn == 2
    assert stored.table.went_out is None and stored.table.game.phase == "first-turn"


def test_a_stored_went_out_outside_a_round_or_a_seat_does_nothing():
    from hub.core.events import PlayerWentOut

    hub = CoreDriver()
    hub.start(PLAYERS[:3], first=1)
    before = hub.table
    assert hub.send(PlayerWentOut(5, hub.now)) == [] and hub.table == before
    hub.long_hold(1)
    over = hub.table
    assert hub.send(PlayerWentOut(2, hub.now)) == [] and hub.table == over


def test_tap_on_private_train_of_another_is_refused():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], first=1)
    for slot in (1, 2, 3):
        hub.tap(slot)
    hub.tap(2)
    assert hub.sounds()[-1] == "nope" and hub.table.turn == 1


def test_rotating_starter_and_next_round():
    from hub.core.events import RoundScored

    hub = CoreDriver()
    hub.start(PLAYERS[:3], set_max=12, rounds=2, first=2)
    assert hub.table.turn == 2 and hub.table.game.engine == 12
    hub.long_hold(2)
    hub.send(RoundScored(hub.now))
    assert hub.table.game.round == 2 and hub.table.game.engine == 11
    assert hub.table.turn == 3
    hub.long_hold(3)
    hub.send(RoundScored(hub.now))
    assert hub.table.game.phase == "finished"


def test_partners_may_play_on_each_others_train():
    hub = CoreDriver()
    hub.start(PLAYERS[:4], first=1, options=(("partnerships", True),))
    for slot in (1, 2, 3, 4):
        hub.tap(slot)
    hub.tap(3)  # partner of slot 1 (opposite)
    assert hub.table.turn == 2


def test_marker_out_of_turn_changes_only_public():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], first=1)
    hub.marker(3, True)
    assert hub.public == {3} and hub.table.turn == 1
    hub.marker(3, False)
    assert hub.public == set()


def test_a_dead_double_is_dismissed_by_a_hold_on_its_slot():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], first=1, mexican_slot=8)
    for slot in (1, 2, 3):
        hub.tap(slot)
    hub.hold(1)
    hub.marker(1, True)  # cannot cover: responsibility passes to 2
    hub.hold(1)  # player 2: nobody can ever cover it (the last of its number)
    assert hub.table.doubles == () and hub.table.turn == 2
    assert [e.kind for e in hub.logs("double-dead")] == ["double-dead"]
    assert hub.sounds().count("chicken") == 1
    hub.tap(8)  # player 2 plays on normally
    assert hub.table.turn == 3


def test_aces_first_player_out_in_first_turn_is_kept():
    hub = CoreDriver()
    hub.start(PLAYERS[:3], rules="aces", first=1)
    hub.long_hold(1)
    hub.long_hold(2)
    hub.tap(3)
    assert hub.table.game.phase == "round-over" and hub.table.went_out == 1


def test_the_core_orders_sounds_and_log_entries_but_draws_no_lights():
    """The ring is drawn from the snapshot (hub/io/lights.py): the core orders nothing
    of the LEDs, even when a double opens and a train goes public (the doubles played
    go to the store, for the players' statistics; a train gone public is said by the
    voice)."""
    hub = illustration_to_turn_15("consensus")
    kinds = {type(e).__name__ for e in hub.effects}
    assert kinds == {"PlaySound", "LogEntry", "TablePlayed", "TrainPublic"}
    assert hub.table.doubles and hub.public - {8} == {2}

"""Issue 24: the hub says the right thing (no false reminders, no gesture traps)."""

from __future__ import annotations

from hub.core.events import CENTRE, UndoRequested
from tests.helpers import CoreDriver

PLAYERS = ["Ann", "Bob", "Cid", "Dee"]


def started(rules="consensus", options=(), **kw):
    hub = CoreDriver()
    hub.start(PLAYERS, rules=rules, first=1, mexican_slot=8, options=options, **kw)
    for slot in range(1, 5):
        hub.tap(slot)
    hub.effects.clear()
    return hub


# 1. going out with a double and its cover: never a single tile; no late reminder


def test_going_out_with_a_double_and_its_cover_is_not_noted_as_uncalled():
    hub = started("mexicantrainfun")
    hub.hold(1)  # a double on Ann's train ...
    hub.long_hold(1)  # ... and its cover, her last tile: she went out
    assert hub.table.game.phase == "round-over"
    assert hub.logs("uncalled") == [] and "reminder" not in hub.sounds()


def test_going_out_without_calling_is_noted_not_sounded():
    hub = started("mexicantrainfun")
    hub.long_hold(1)
    assert "out" in hub.sounds() and "reminder" not in hub.sounds()
    assert [e.what.slot for e in hub.logs("uncalled")] == [1]


def test_consensus_notes_the_call_only_with_its_option():
    off = started("consensus")
    off.long_hold(1)
    assert off.logs("uncalled") == []
    on = started("consensus", options=(("last_tile_call", True),))
    on.long_hold(1)
    assert len(on.logs("uncalled")) == 1


def test_a_double_laid_in_an_earlier_turn_does_not_excuse_the_call():
    hub = started("mexicantrainfun")
    hub.hold(1)  # Ann's double; she cannot answer: marker down
    hub.marker(1, True)
    for slot in (2, 3, 4):  # nobody else can either (they pass)
        hub.tap(slot)
    hub.long_hold(1)  # Ann answers it with her last tile, never having called
    assert len(hub.logs("uncalled")) == 1


# 2. the owner lifting their marker right after playing on their own train


def test_owner_lifting_their_marker_after_playing_on_their_train_is_no_reminder():
    hub = started()
    hub.marker(2, True)  # Bob could not play: public
    hub.tap(3)
    hub.tap(4)
    hub.tap(1)
    hub.tap(2)  # Bob plays on his own train ...
    hub.marker(2, False)  # ... and then takes his marker off
    assert "reminder" not in hub.sounds() and 2 not in hub.public


def test_someone_else_lifting_a_marker_is_still_reminded():
    hub = started()
    hub.marker(2, True)
    hub.tap(3)  # Cid's turn ends; Dee's turn
    hub.marker(2, False)  # nobody played on Bob's train
    assert "reminder" in hub.sounds()


# 4. a marker lifted by its owner who then plays elsewhere


def test_owner_lifting_a_marker_then_playing_elsewhere_is_reminded():
    hub = started()
    hub.marker(1, True)  # Ann: public; Bob's turn
    for slot in (2, 3, 4):
        hub.tap(slot)
    hub.marker(1, False)  # Ann lifts her marker ...
    hub.tap(8)  # ... and plays on the Mexican Train
    assert hub.sounds().count("reminder") == 1
    assert "without playing on their train" in hub.logs("reminder")[0].what.why


def test_owner_lifting_a_marker_then_playing_on_it_is_no_reminder():
    hub = started()
    hub.marker(1, True)
    for slot in (2, 3, 4):
        hub.tap(slot)
    hub.marker(1, False)
    hub.tap(1)
    assert "reminder" not in hub.sounds()


# 8. one undo sound, whoever undoes


def test_centre_and_scorekeeper_undo_sound_the_same():
    centre = started()
    centre.tap(1)
    centre.effects.clear()
    centre.long_hold(CENTRE)
    phone = started()
    phone.tap(1)
    phone.effects.clear()
    phone.send(UndoRequested(phone.now, "scorekeeper"))
    assert centre.table.turn == phone.table.turn == 1
    assert centre.sounds() == phone.sounds() == ["turn_back"]


# 9. a dead double and aces' round end after the first turns make a sound


def test_a_dead_double_closed_sounds():
    hub = started()
    hub.hold(1)
    hub.effects.clear()
    hub.hold(1)  # the last of its number: nobody can cover it
    assert hub.table.doubles == () and hub.sounds() == ["turn"]


def test_aces_round_end_after_everyones_first_turn_sounds():
    hub = CoreDriver()
    hub.start(PLAYERS, rules="aces")
    hub.tap(1)  # engine placed by Ann: Bob starts
    hub.long_hold(2)  # Bob empties his hand in his first turn
    hub.tap(3)
    hub.tap(4)
    hub.effects.clear()
    hub.tap(1)  # the last first turn: the round ends now
    assert hub.table.game.phase == "round-over" and hub.sounds() == ["out"]


# 11. the next player's quick tap on the previous player's public train is a play


def test_next_players_quick_tap_on_a_public_train_is_their_play():
    hub = started()
    hub.marker(2, True)  # Bob: public; Cid's turn
    hub.tap(3)
    hub.tap(4)
    hub.tap(1)
    hub.press(2, 0.1)  # Bob plays on his own (public) train; Cid's turn
    hub.tap(2)  # Cid taps Bob's public train at once, within 0.6 s
    assert hub.table.turn == 4 and hub.table.one_tile == frozenset()
    assert "last_tile" not in hub.sounds()


def test_a_quick_second_tap_on_a_private_train_is_still_the_call():
    hub = started()
    hub.press(1, 0.1)
    hub.tap(1)
    assert hub.table.turn == 2 and hub.table.one_tile == frozenset({1})


# 5. triples: a double inside the first turn's string does not end the turn


def test_triples_a_double_inside_the_first_string_keeps_the_turn():
    hub = CoreDriver()
    hub.start(PLAYERS, rules="triples", first=1)  # Ann starts
    hub.hold(1)  # a double in her string ...
    assert hub.table.turn == 1 and "chicken" in hub.sounds()
    hub.tap(1)  # ... her next tile satisfied it; her string ends there
    assert hub.table.turn == 2 and hub.table.doubles == ()
    assert "nope" not in hub.sounds()


def test_triples_a_string_ending_on_a_double_waits_for_the_second_turn():
    hub = CoreDriver()
    hub.start(PLAYERS, rules="triples", first=1)
    hub.hold(1)
    hub.hold(1)  # a second double in the string: the first was satisfied, this one ends it
    hub.tap(2)  # Bob's string: Ann's turn had ended on her double
    assert hub.table.turn == 3 and len(hub.table.doubles) == 1
    assert hub.table.doubles[0].waiting and hub.table.doubles[0].slot == 1
    assert [e.what.slot for e in hub.logs("string-end")] == [1]
    hub.tap(3)
    hub.tap(4)  # the first turns are done: Ann must satisfy her double now
    assert hub.table.turn == 1 and not hub.table.doubles[0].waiting
    hub.tap(1)
    assert hub.table.doubles == () and hub.table.turn == 2


# 6. Galt's exception 2: the player's tile after a privatising double is no "nope"


def test_the_tile_after_a_privatising_double_is_the_players_play():
    hub = started()
    hub.marker(1, True)  # Ann could not play: public; Bob's turn
    for slot in (2, 3, 4):
        hub.tap(slot)
    hub.marker(1, False)  # Ann lifts her marker ...
    hub.hold(1)  # ... and lays a double on her train: private again, no cover owed
    assert hub.table.doubles == () and hub.table.turn == 1
    hub.effects.clear()
    hub.tap(1)  # her tile on it
    assert "nope" not in hub.sounds() and hub.table.turn == 2
    assert "reminder" not in hub.sounds()


def test_after_a_privatising_double_the_player_may_play_elsewhere():
    hub = started()
    hub.marker(1, True)
    for slot in (2, 3, 4):
        hub.tap(slot)
    hub.marker(1, False)
    hub.hold(1)
    hub.tap(8)  # her next tile on the Mexican Train: no reminder, her train is private
    assert hub.table.turn == 2 and "reminder" not in hub.sounds() and "nope" not in hub.sounds()


# 7. a doubler's pass tap on their own double, then the marker: a pass, not an answer


def test_mexicantrainfun_doublers_tap_then_marker_is_a_pass():
    hub = started("mexicantrainfun")
    hub.hold(1)  # Ann's double on her own train
    hub.tap(1)  # she cannot answer: she taps to pass, as followers do ...
    assert hub.table.doubles == ()  # (read as an answer, until ...)
    hub.marker(1, True)  # ... and puts her marker down, as the seed asks
    assert hub.table.turn == 2 and len(hub.table.doubles) == 1
    double = hub.table.doubles[0]
    assert double.slot == 1 and double.responsible == 2 and double.covers_left == 1
    assert [e.what.slot for e in hub.logs("pass")] == [1]
    hub.tap(1)  # Bob answers it on Ann's (now public) train
    assert hub.table.doubles == () and hub.table.turn == 3


def test_a_marker_after_an_answer_made_by_the_next_player_is_no_pass():
    hub = started("mexicantrainfun")
    hub.hold(1)
    hub.tap(1)  # Ann answered her double
    hub.tap(2)  # Bob played: the answer stands
    hub.marker(1, True)
    assert hub.table.doubles == () and hub.table.turn == 3 and hub.logs("pass") == []


# 10. the consensus variations as switches: each changes what the hub reads


def test_fast_game_first_turns_are_strings_on_ones_own_train():
    hub = CoreDriver()
    hub.start(PLAYERS, rules="consensus", first=1, mexican_slot=8)
    hub.tap(8)  # plain consensus: the Mexican Train is open in the first turn
    assert hub.table.turn == 2
    fast = CoreDriver()
    fast.start(PLAYERS, rules="consensus", first=1, mexican_slot=8, options=(("fast_game", True),))
    fast.tap(8)
    assert fast.table.turn == 1 and "nope" in fast.sounds()
    fast.hold(1)  # a double inside Ann's string: she goes on
    assert fast.table.turn == 1
    fast.tap(1)
    assert fast.table.turn == 2 and fast.table.doubles == ()


def test_cover_optional_a_double_obliges_nobody():
    hub = started("consensus", options=(("cover_optional", True),))
    hub.hold(1)
    assert hub.table.doubles == () and hub.table.turn == 1 and "chicken" in hub.sounds()
    hub.tap(3)  # Ann plays on; not bound to cover: Cid's private train is still refused
    assert "nope" in hub.sounds()
    hub.tap(8)
    assert hub.table.turn == 2


def test_any_train_cover_lets_a_public_train_satisfy_the_double():
    plain = started("consensus")
    plain.hold(1)
    plain.tap(8)  # a tile on the Mexican Train while Ann's double is open: refused
    assert "nope" in plain.sounds() and plain.table.turn == 1
    hub = started("consensus", options=(("any_train_cover", True),))
    hub.hold(1)
    hub.tap(8)  # the cover on the Mexican Train
    assert hub.table.doubles == () and hub.table.turn == 2 and "nope" not in hub.sounds()


def test_a_privatising_double_is_a_table_action_undo_takes_back():
    hub = started()
    hub.marker(1, True)
    for slot in (2, 3, 4):
        hub.tap(slot)
    hub.marker(1, False)
    depth = len(hub.table.history)
    hub.hold(1)  # the privatising double: the turn stays, nothing is owed
    assert len(hub.table.history) == depth + 1
    hub.send(UndoRequested(hub.now, "scorekeeper"))
    assert hub.table.lifted == 1  # a hold again is the privatising double again
    hub.hold(1)
    assert hub.table.doubles == () and hub.table.turn == 1

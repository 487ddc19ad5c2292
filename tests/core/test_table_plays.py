"""The table's own plays in the players' statistics: a double played (the chicken)
and a last-tile call are noted by the store (hub/games/changes.py, ``Games.record``),
and a new game's players are remembered unless the privacy setting says not to."""

from __future__ import annotations

from scorer.setup import check_setup
from tests.core.test_table_rules import PLAYERS, first_turns, start


def _person(hub, name):
    return next(p for p in hub.store.players() if p["name"] == name)["id"]


def test_a_double_and_a_last_tile_call_count_for_the_player(make_hub):
    hub = make_hub()
    t, game_id = start(hub, "consensus")
    first_turns(t)
    t.hold(1)  # Ann plays a double on her own train ...
    t.tap(1)  # ... and covers it
    t.tap(2, settle=0.05)
    t.tap(2)  # Bob calls his last tile
    assert "last_tile" in t.sounds()
    ann, bob = bob_goes_out(hub, game_id)
    assert (ann["doubles"], ann["last_tiles"]) == (1, 0)
    assert (bob["doubles"], bob["last_tiles"], bob["went_out"], bob["wins"]) == (0, 1, 1, 1)


def bob_goes_out(hub, game_id):
    """Round 1 scored with Bob out, the game ended: Ann's and Bob's statistics."""
    hub.writer.flush()
    points = {name: 0 if name == "Bob" else 10 for name in PLAYERS}
    hub.games.score_round(game_id, 1, points=points, went_out="Bob", mid_round=True)
    hub.games.end_game(game_id)
    hub.writer.flush()
    return hub.store.player(_person(hub, "Ann")), hub.store.player(_person(hub, "Bob"))


def test_with_remembering_off_a_new_game_adds_no_player(make_hub):
    hub = make_hub()
    hub.apply_settings({"remember_players": False})
    hub.games.new_game(check_setup({"players": ["Ann", "Bob"], "rules": "consensus"}))
    assert hub.store.players() == []
    hub.apply_settings({"remember_players": True})
    hub.games.new_game(check_setup({"players": ["Cy", "Dee"], "rules": "consensus"}), replaces=1)
    assert [p["name"] for p in hub.store.players()] == ["Cy", "Dee"]


def test_an_undone_double_or_last_tile_call_counts_for_nobody(make_hub):
    hub = make_hub()
    t, game_id = start(hub, "consensus")
    first_turns(t)
    t.hold(1)  # Ann's double ...
    hub.games.undo()  # ... was a mistake: taken back
    t.hold(1)  # she plays it again ...
    t.tap(1)  # ... and covers it
    t.tap(2, settle=0.05)
    t.tap(2)  # Bob calls his last tile ...
    assert "last_tile" in t.sounds()
    hub.games.undo()  # ... and it is undone (the call was the last action)
    ann, bob = bob_goes_out(hub, game_id)
    assert ann["doubles"] == 1  # noted twice, once taken back
    assert (bob["doubles"], bob["last_tiles"]) == (0, 0)

"""The simulator's oracle plays the consensus seed's "Continuous draw" and "Doubled
doubles" (issue 24, item 10): scripted rounds, the gestures and the truth after each.

Scripted rounds: chosen hands and boneyard (drawn in list order), FirstLegal bots,
slots 1.. seated, the Mexican Train on the next free slot, round 1 starting at slot 1.
"""

from __future__ import annotations

import pytest

from tablesim import DoubleTruth, GameConfig, Hold, MarkerOff, MarkerOn, Tap
from tests.tablesim_helpers import actions, play, scripted

CONTINUOUS = ("continuous_draw",)
DOUBLED = ("doubled_doubles",)


def continuous(variants: tuple[str, ...]):
    """P1 lays the double-five on their own train and nobody can cover it; the only
    five left is the sixth tile of the boneyard."""
    return scripted(
        "consensus",
        {1: [(12, 5), (5, 5), (11, 0)], 2: [(12, 6), (6, 0)], 3: [(12, 7), (7, 0)]},
        boneyard=[(8, 1), (8, 3), (9, 1), (10, 2), (11, 3), (5, 0), (4, 4)],
        variants=variants,
    )


def test_continuous_draw_the_doubler_draws_until_they_can_cover() -> None:
    rnd = continuous(CONTINUOUS)
    steps = play(rnd, turns=7)
    assert actions(steps)[:9] == [
        Tap(1),
        Tap(2),
        Tap(3),
        Hold(1),
        MarkerOn(1),  # P1 cannot cover after one draw: marker down
        MarkerOn(2),
        MarkerOn(3),  # back to P1, who draws 10-2, 11-3, 5-0 and covers
        MarkerOff(1),  # (on their own train: the marker comes off)
        Tap(1),
    ]
    truths = [t for _, t in steps]
    assert truths[6].double == DoubleTruth(1, 1, 1) and truths[6].turn == 1
    assert truths[8].double is None and truths[8].turn == 2
    assert sorted(rnd.table.hands[1]) == [(8, 1), (10, 2), (11, 0), (11, 3)]
    assert rnd.table.boneyard == [(4, 4)]


def test_without_continuous_draw_the_doubler_draws_once_and_passes_again() -> None:
    rnd = continuous(())
    steps = play(rnd, turns=7)
    # P1 draws 10-2 only: no cover; the marker (down already) is lifted and put back.
    assert actions(steps)[7:9] == [MarkerOff(1), MarkerOn(1)]
    assert steps[8][1].double == DoubleTruth(1, 1, 2)


def doubled(variants: tuple[str, ...]):
    """P2's train is public (end 6) when P1 lays the double-four on their own train
    with the double-six in hand."""
    return scripted(
        "consensus",
        {
            1: [(12, 5), (5, 4), (4, 4), (6, 6), (4, 1), (11, 10)],
            2: [(12, 6), (10, 9)],
        },
        boneyard=[(9, 8), (6, 3), (3, 2)],
        variants=variants,
    )


def test_doubled_doubles_the_second_double_waits_for_the_next_player() -> None:
    rnd = doubled(DOUBLED)
    steps = play(rnd, turns=6)
    assert actions(steps)[:9] == [
        Tap(1),
        Tap(2),
        Tap(1),
        MarkerOn(2),  # P2 cannot play: their train is public, its end a six
        Hold(1),  # P1's double-four on their own train ...
        Hold(2),  # ... and the double-six on P2's public train, the same turn
        Tap(1),  # P1 covers the first only
        MarkerOff(2),  # P2 draws 6-3 and covers the second on their own train
        Tap(2),
    ]
    truths = [t for _, t in steps]
    assert truths[5].double == DoubleTruth(1, 1, 1)
    assert truths[5].queued == (DoubleTruth(2, 1, 1),) and truths[5].turn == 1
    assert truths[6].double == DoubleTruth(2, 1, 2) and truths[6].queued == ()
    assert truths[6].turn == 2
    assert truths[8].double is None and truths[8].turn == 1


def test_without_doubled_doubles_the_doubler_only_covers() -> None:
    rnd = doubled(())
    steps = play(rnd, turns=5)
    assert actions(steps)[4:6] == [Hold(1), Tap(1)]
    assert (6, 6) in rnd.table.hands[1]


@pytest.mark.parametrize(
    "variants",
    [
        ("doubled_doubles", "continuous_draw"),
        ("doubled_doubles", "cover_optional"),
        ("doubled_doubles", "any_train_cover"),
        ("continuous_draw", "cover_optional"),
        ("continuous_draw", "any_train_cover"),
    ],
)
def test_the_oracle_refuses_what_the_hub_refuses(variants: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match=variants[0]):
        GameConfig.for_players("consensus", 4, variants=variants)


@pytest.mark.parametrize("variant", ["doubled_doubles", "continuous_draw"])
def test_the_oracle_refuses_chickenfoot_with_either(variant: str) -> None:
    with pytest.raises(ValueError, match=variant):
        GameConfig.for_players("consensus", 4, chickenfoot=True, variants=(variant,))

"""tablesim.doubles: the open double's rules, straight on a table of tiles (whole rounds
that use them: tests/sim/test_tablesim_round.py)."""

from tablesim import GameConfig
from tablesim.doubles import answered, dead, legal_moves, must_mark, opened
from tablesim.table import COVER, Layout, Move, OpenDouble


def _table(config, hands, boneyard=()):
    """Every train (and the Mexican) open at 12; ``boneyard[-1]`` is drawn first."""
    return Layout(12, {s: list(h) for s, h in hands.items()}, list(boneyard), config.mexican)


def test_a_double_opened_takes_its_end_and_wants_its_trains_covers():
    config = GameConfig("mexicantrainfun", (1, 2, 3), set_max=12, chickenfoot=True)
    table = _table(config, {1: [], 2: [], 3: []})
    double = opened(table, config, 2, 2, 12)
    assert double == OpenDouble(2, 12, 3, player=2, responsible=2)
    assert table.trains[2].ends == []
    # mexicantrainfun: one cover for a double on the Mexican Train, chickenfoot or not.
    assert opened(table, config, 1, config.mexican, 12).covers_left == 1


def test_who_must_answer_may_only_cover_it_and_with_satisfy_also_play_elsewhere():
    hands = {1: [(12, 3), (5, 4)], 2: [(12, 6), (6, 6)], 3: []}
    cover = GameConfig("consensus", (1, 2, 3))
    table = _table(cover, hands)
    double = opened(table, cover, 1, 1, 12)
    assert legal_moves(table, cover, double, 1, set()) == [Move((12, 3), 1, COVER)]
    satisfy = GameConfig("triples", (1, 2, 3))
    table = _table(satisfy, hands)
    double = opened(table, satisfy, 1, 1, 12)
    # triples has no Mexican Train (seed 004): the other public trains only.
    assert satisfy.mexican is None
    assert legal_moves(table, satisfy, double, 1, {2}) == [
        Move((12, 3), 1, COVER),
        Move((12, 3), 2, 0),
    ]
    # Another player, while the double waits for its player: no second double.
    assert legal_moves(table, satisfy, double, 2, set()) == [Move((12, 6), 2, 0)]


def test_a_cover_counts_down_and_a_play_that_satisfies_gives_the_end_back():
    config = GameConfig("consensus", (1, 2, 3), chickenfoot=True)
    table = _table(config, {1: [], 2: [], 3: []})
    double = opened(table, config, 1, 1, 12)
    assert not answered(table, double, Move((12, 3), 1, COVER))
    assert (double.covers_left, double.covers_done) == (2, 1)
    assert not answered(table, double, Move((12, 4), 1, COVER))
    assert answered(table, double, Move((12, 5), 1, COVER))
    satisfied = opened(table, config, 2, 2, 12)
    assert answered(table, satisfied, Move((12, 7), 3, 0))
    assert table.trains[2].ends == [12] and satisfied.covers_done == 0  # no cover counted


def test_a_double_nobody_can_cover_is_dead_for_who_must_cover_it():
    config = GameConfig("consensus", (1, 2))
    table = _table(config, {1: [(5, 4)], 2: [(3, 2)]}, boneyard=[(6, 1)])
    double = opened(table, config, 1, 1, 12)
    assert dead(table, double, 1)
    assert not dead(table, double, 2) and not dead(table, None, 1)
    table.boneyard.append((12, 0))
    assert not dead(table, double, 1)


def test_failing_to_answer_marks_but_not_for_a_later_cover_nor_a_follower_who_answers():
    cover = GameConfig("consensus", (1, 2, 3)).profile
    answer = GameConfig("mexicantrainfun", (1, 2, 3)).profile
    double = OpenDouble(1, 12, 1, player=1, responsible=2)
    assert must_mark(cover, None, 2) and must_mark(cover, double, 3)
    assert must_mark(cover, double, 2)
    assert not must_mark(answer, double, 2)  # only who played the double marks
    double.responsible = 1
    assert must_mark(answer, double, 1)
    double.covers_done = 1  # chickenfoot: the 2nd and 3rd covers need no marker
    assert not must_mark(cover, double, 1)

"""tablesim.bots: each bot picks a legal move its own way."""

from tablesim import FirstLegal, LargestPips, Move, RandomLegal

MOVES = [Move((3, 1), 1, 0), Move((9, 1), 2, 0), Move((9, 0), 3, 0), Move((6, 4), 1, 0)]


def test_first_legal_takes_the_first():
    assert FirstLegal().choose(MOVES) == MOVES[0]


def test_largest_pips_takes_the_heaviest_tile_first_on_a_tie():
    assert LargestPips().choose(MOVES) == MOVES[1]


def test_random_legal_is_seeded():
    picks = [RandomLegal(5).choose(MOVES) for _ in range(3)]
    assert picks[0] == picks[1] == picks[2]
    bot = RandomLegal(5)
    assert {bot.choose(MOVES) for _ in range(50)} == set(MOVES)

"""Standings: lowest total best, with the seeds' tie-breaks.

On equal totals the player with the most zero-point rounds is ahead; still equal, the
one whose lowest non-zero round score is lower (a player with no non-zero round at all
is ahead of one with any). Players equal on all three are truly tied: they share a
rank, and :class:`Standing` says ``tied=True``. Within a tie the seat order is kept so
the output is stable; it means nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from scorer.errors import FieldError


@dataclass(frozen=True)
class Standing:
    """One player's place: ``rank`` is 1-based, shared by tied players ("1, 1, 3")."""

    name: str
    total: int
    zero_rounds: int
    lowest_nonzero: int | None
    rank: int
    tied: bool

    def key(self) -> tuple[int, int, int]:
        """The sort key: smaller is better (total, then zero rounds, then lowest round)."""
        return _key(self.total, self.zero_rounds, self.lowest_nonzero)


class Ranking(NamedTuple):
    """Names best first, and the same names grouped so that each group is a true tie."""

    names: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]

    @property
    def winner(self) -> str | None:
        """The single best player, or ``None`` when the best place is a true tie."""
        if not self.groups or len(self.groups[0]) != 1:
            return None
        return self.groups[0][0]

    @property
    def ties(self) -> tuple[tuple[str, ...], ...]:
        """Only the groups of two or more players that the tie-breaks could not split."""
        return tuple(group for group in self.groups if len(group) > 1)


def _key(total: int, zero_rounds: int, lowest_nonzero: int | None) -> tuple[int, int, int]:
    # No non-zero round at all beats any non-zero round: -1 sorts before every score.
    return (total, -zero_rounds, -1 if lowest_nonzero is None else lowest_nonzero)


def _summary(name: str, rounds: Sequence[Mapping[str, int]]) -> tuple[int, int, int | None]:
    scores = [points.get(name, 0) for points in rounds]
    nonzero = [score for score in scores if score != 0]
    return sum(scores), scores.count(0), min(nonzero) if nonzero else None


def standings(players: Sequence[str], rounds: Sequence[Mapping[str, int]]) -> list[Standing]:
    """Every player's :class:`Standing`, best first, over the given rounds' points."""
    if len(set(players)) != len(players):
        raise FieldError("players: each name must appear once", "players", code="names_twice")
    summaries = {name: _summary(name, rounds) for name in players}
    order = sorted(players, key=lambda name: _key(*summaries[name]))
    keys = [_key(*summaries[name]) for name in order]
    result = []
    for index, name in enumerate(order):
        rank = keys.index(keys[index]) + 1
        tied = keys.count(keys[index]) > 1
        result.append(Standing(name, *summaries[name], rank=rank, tied=tied))
    return result


def ranking(players: Sequence[str], rounds: Sequence[Mapping[str, int]]) -> Ranking:
    """Names best first plus tie information (see :class:`Ranking`)."""
    table = standings(players, rounds)
    groups: list[list[str]] = []
    for index, entry in enumerate(table):
        if index and entry.rank == table[index - 1].rank:
            groups[-1].append(entry.name)
        else:
            groups.append([entry.name])
    return Ranking(tuple(entry.name for entry in table), tuple(tuple(g) for g in groups))

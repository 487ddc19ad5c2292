"""Partnerships (the ``consensus`` option): 4, 6 or 8 players in pairs.

Partners sit opposite each other: in seat order ``players[i]`` partners
``players[i + n/2]``. When a player goes out, their partner also scores 0 for the
round; a team's score is the sum of its partners' scores, and teams are ranked with
the same tie-breaks as players (:mod:`scorer.standings`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scorer.errors import FieldError, clip
from scorer.profiles import OPTIONS
from scorer.standings import Ranking, ranking

# The player counts partnerships are played with (the option's own data).
PAIRED = OPTIONS["partnerships"].players or ()


class PartnershipError(FieldError):
    """Players that cannot be paired, or a name that is in no team."""


@dataclass(frozen=True)
class Team:
    """Two partners sitting opposite each other."""

    first: str
    second: str

    @property
    def name(self) -> str:
        """The team's display name: ``"Ann & Cy"``."""
        return f"{self.first} & {self.second}"

    @property
    def members(self) -> tuple[str, str]:
        """Both partners, in seat order."""
        return (self.first, self.second)


def teams(players: Sequence[str]) -> tuple[Team, ...]:
    """Pair players (in seat order) with the player opposite; 4, 6 or 8 players only."""
    count = len(players)
    if count not in PAIRED:
        raise PartnershipError(
            f"partnerships need 4, 6 or 8 players, not {count}",
            "options.partnerships",
            code="option_players",
            name="partnerships",
            counts="4, 6 or 8",
            given=count,
        )
    if len(set(players)) != count:
        raise PartnershipError(
            "partnerships: each player's name must appear once", "players", code="names_twice"
        )
    half = count // 2
    return tuple(Team(players[i], players[i + half]) for i in range(half))


def partner_of(players: Sequence[str], name: str) -> str:
    """The partner (the player sitting opposite) of ``name``."""
    for team in teams(players):
        if name in team.members:
            return team.second if name == team.first else team.first
    raise PartnershipError(
        f"{clip(name)!r} is not a player in this game", code="not_a_player", name=name
    )


def partnership_points(
    players: Sequence[str],
    points: Mapping[str, int],
    went_out: str | None,
) -> dict[str, int]:
    """A round's points with the went-out player's partner scoring 0 too."""
    scored = {name: points[name] for name in players}
    if went_out is not None:
        scored[partner_of(players, went_out)] = 0
    return scored


def team_rounds(
    players: Sequence[str],
    rounds: Sequence[Mapping[str, int]],
) -> list[dict[str, int]]:
    """Each round's team scores (team name → sum of partners' points)."""
    pairs = teams(players)
    return [
        {team.name: sum(points.get(name, 0) for name in team.members) for team in pairs}
        for points in rounds
    ]


def team_totals(players: Sequence[str], rounds: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """Each team's total: the sum of both partners' scores over the rounds."""
    per_round = team_rounds(players, rounds)
    return {team.name: sum(r[team.name] for r in per_round) for team in teams(players)}


def team_ranking(players: Sequence[str], rounds: Sequence[Mapping[str, int]]) -> Ranking:
    """Team names best first, with ties, by the same rules as player standings."""
    names = [team.name for team in teams(players)]
    return ranking(names, team_rounds(players, rounds))

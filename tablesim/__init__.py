"""tablesim: a tile-level Mexican Train simulator that plays at the hub.

Pure (standard library only, no threads, no clock; randomness only from
``random.Random(seed)`` instances). It plays the four rule profiles of
``docs/rules.md`` with bots and turns every play into what a player does at the hub
(:mod:`tablesim.actions`), each followed by the truth the hub must then show::

    from tablesim import GameConfig, RandomLegal, iter_actions
    config = GameConfig.for_players("consensus", 4, seed=7)
    for action, truth in iter_actions(config, RandomLegal(7)):
        ...

:mod:`tablesim.motions` turns each gesture into the pin edges a hand makes (human
timing, contact bounce, marker flicker); ``tablesim.soak`` and ``tablesim.demo`` play them at
the hub.
"""

from tablesim.actions import (
    Action,
    Blocked,
    DoubleTruth,
    EnterScores,
    Gesture,
    Hold,
    LastTile,
    LongHold,
    MarkerOff,
    MarkerOn,
    NewGame,
    RoundResult,
    SetEngine,
    Tap,
    Truth,
)
from tablesim.bots import Bot, FirstLegal, LargestPips, RandomLegal
from tablesim.config import GameConfig
from tablesim.game import PlayedGame, SimGame, iter_actions, play_game, seat_bots
from tablesim.profiles import PROFILES, OracleProfile
from tablesim.round import Round
from tablesim.table import COVER, Layout, Move, OpenDouble

__all__ = [
    "COVER",
    "PROFILES",
    "Action",
    "Blocked",
    "Bot",
    "DoubleTruth",
    "EnterScores",
    "FirstLegal",
    "SimGame",
    "GameConfig",
    "PlayedGame",
    "Gesture",
    "Hold",
    "LargestPips",
    "LastTile",
    "LongHold",
    "SetEngine",
    "MarkerOff",
    "MarkerOn",
    "Move",
    "NewGame",
    "OpenDouble",
    "OracleProfile",
    "RandomLegal",
    "Round",
    "RoundResult",
    "Layout",
    "Tap",
    "Truth",
    "iter_actions",
    "play_game",
    "seat_bots",
]

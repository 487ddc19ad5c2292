"""What the hub says about one table change: pure, no I/O, no clock.

:func:`choose` reads the core's effects for one event and the table after it, and
returns the phrases to speak as ``(key, params)`` pairs: ``key`` names a catalog entry
under ``say.`` (``web/static/i18n/<lang>.json``), ``params`` fill its placeholders.
The setting ``voice`` chooses how much is said:

- ``off``: nothing;
- ``turns``: whose turn (or who must cover the open double), who went out, a blocked
  round and the game's winner;
- ``all``: also a train going public, a last-tile call and the reminders in words.

At most one phrase about the turn is said per change, last: who must cover a double
that is open after the change wins over a plain "Bea's turn".

The voice reads what the core decided, never a sound's name: a double played is the
core's :class:`~hub.core.effects.TablePlayed` of :attr:`~hub.core.news.Play.DOUBLE`, a
train gone public its :class:`~hub.core.effects.TrainPublic`, the rest its log
entries' kinds (:class:`~hub.core.news.Kind`) and a reminder's
:class:`~hub.core.news.Reason`. So a sound the quiet mode or a profile leaves out
changes nothing that is said.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from hub.core import entries
from hub.core.effects import Effect, LogEntry, TablePlayed, TrainPublic
from hub.core.news import Kind, Play, Reason
from hub.core.state import PLAYING, Game, Table

VOICE_MODES = ("off", "turns", "all")
DEFAULT_MODE = "turns"

# Phrases that tell the table whose move it is: they take the turn chime's place and
# are heard in the quiet mode ``turn-only`` as the chime is.
TURN_KEYS = frozenset({"say.turn", "say.double"})


@dataclass(frozen=True)
class Phrase:
    """One sentence to say: catalog ``key`` and its ``params`` (name, value) pairs."""

    key: str
    params: tuple[tuple[str, str], ...] = ()
    # True for a phrase that stands for the turn chime (read on a press's path: a field)
    about_turn: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "about_turn", self.key in TURN_KEYS)


def check_mode(mode: object) -> str:
    """``mode`` if it is a voice setting, else ValueError naming the choices."""
    if mode not in VOICE_MODES:
        raise ValueError(f"expected one of {', '.join(VOICE_MODES)}, got {mode!r}")
    assert isinstance(mode, str)
    return mode


# The log entries a phrase is read from: in every mode, and in ``all`` during a game.
_ANY_MODE = frozenset({Kind.ROUND_OVER, Kind.GAME_OVER})
_SAID_KINDS = _ANY_MODE | {Kind.LAST_TILE, Kind.REMINDER}


@lru_cache(maxsize=1024)  # a game's few hundred phrases, made once each (the press's path)
def _say(key: str, name: str | None = None) -> Phrase:
    """The phrase ``key`` (about player ``name``); positional, so the cache's key is
    cheap to make."""
    return Phrase(key, (("name", name),) if name is not None else ())


def choose(
    effects: Sequence[Effect],
    table: Table,
    mode: str,
    winner: Callable[[int], str | None] | None = None,
) -> list[Phrase]:
    """The phrases for one change: ``effects`` the core gave, ``table`` after it.

    ``winner(game_id)`` names a finished game's winner (the store knows the scores);
    without it, or when it gives None, the game's end is said without a name.
    """
    if mode == "off" or not effects:
        return []
    game = table.game
    read = _SAID_KINDS if mode == "all" and game is not None else _ANY_MODE
    # One pass (a press's path): what the core decided with something to say, and
    # whether it passed the turn or a double was played.
    said: list[Phrase] = []
    turned = opened = False
    for effect in effects:
        phrase = None
        if isinstance(effect, LogEntry):
            if effect.kind is Kind.TURN:
                turned = True
            elif effect.kind in read:
                phrase = _read(effect, game, winner)
        elif isinstance(effect, TablePlayed):
            opened = opened or (effect.kind is Play.DOUBLE and not effect.undone)
        elif isinstance(effect, TrainPublic) and read is _SAID_KINDS:
            phrase = _public(effect.slot, game)
        if phrase is not None:
            said.append(phrase)
    if turned or opened:
        turn = _turn_phrase(table, turned)
        if turn is not None:
            said.append(turn)  # last: "Cid's train is open. Bea's turn."
    return said


def _public(slot: int, game: Game | None) -> Phrase | None:
    """A player's train went public (the Mexican Train always is)."""
    owner = None if game is None else game.owner(slot)
    if owner is None or owner == "mexican":
        return None
    return _say("say.public", owner)


def _read(
    entry: LogEntry, game: Game | None, winner: Callable[[int], str | None] | None
) -> Phrase | None:
    """The phrase log ``entry`` calls for."""
    what = entry.what
    if isinstance(what, entries.RoundOverEntry):
        name = what.went_out
        return _say("say.out", name) if name else _say("say.blocked")
    if isinstance(what, entries.GameOverEntry):
        won = winner(what.game) if winner is not None else None
        return _say("say.winner", won) if won else _say("say.game_over")
    assert game is not None  # the other kinds are read only during a game
    if isinstance(what, entries.LastTileEntry) and what.player:
        return _say("say.last_tile", what.player)
    if type(what) is entries.ReminderEntry:
        owner = game.owner(what.slot)
        if owner is not None and owner != "mexican":
            return _say(REMINDER_KEYS.get(what.reason, "say.reminder.marker"), owner)
    return None


# The sentence for a reminder, by the reason the core gave (any other: the marker's).
REMINDER_KEYS: dict[object, str] = {
    Reason.LAST_TILE: "say.reminder.last_tile",
    Reason.DRAW: "say.reminder.draw",
}


def _turn_phrase(table: Table, turned: bool) -> Phrase | None:
    """Who must act now, after a change that played a double or
    logged a turn (``turned``): the player who must cover a double open now, else the
    new turn's player (only when the turn passed)."""
    game = table.game
    if game is None or table.turn is None or game.phase not in PLAYING:
        return None
    for double in table.doubles:
        if not (double.waiting or double.queued):  # the one open now
            name = game.owner(double.responsible)
            if name is not None and name != "mexican":
                return _say("say.double", name)
            break
    if turned:
        name = game.owner(table.turn)
        if name is not None and name != "mexican":
            return _say("say.turn", name)
    return None


def every_phrase(players: Sequence[str]) -> list[Phrase]:
    """Every phrase a game with ``players`` can need, rendered ahead of time in this
    order: every player's turn first (needed at once), then who must cover, then the
    rest (which follow a chime, and so have a moment more)."""
    named = (
        "say.turn",
        "say.double",
        "say.out",
        "say.winner",
        "say.public",
        "say.last_tile",
        "say.reminder.marker",
        "say.reminder.last_tile",
        "say.reminder.draw",
    )
    fixed = [_say("say.blocked"), _say("say.game_over")]
    return [_say(key, name) for key in named for name in players] + fixed

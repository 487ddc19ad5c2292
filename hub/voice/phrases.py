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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from hub.core.effects import Effect, LogEntry, PlaySound
from hub.core.state import Table

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

    @property
    def about_turn(self) -> bool:
        """True for a phrase that stands for the turn chime."""
        return self.key in TURN_KEYS


def check_mode(mode: object) -> str:
    """``mode`` if it is a voice setting, else ValueError naming the choices."""
    if mode not in VOICE_MODES:
        raise ValueError(f"expected one of {', '.join(VOICE_MODES)}, got {mode!r}")
    assert isinstance(mode, str)
    return mode


# The log entries a phrase is read from; those only ``all`` says.
_ALL_ONLY = frozenset({"marker", "last-tile", "reminder"})
_SAID_KINDS = _ALL_ONLY | {"round-over", "game-over"}


def _sounded(effects: Sequence[Effect], name: str) -> bool:
    return any(isinstance(e, PlaySound) and e.name == name for e in effects)


def _fields(entry: LogEntry) -> dict[str, object]:
    return dict(entry.fields)


@lru_cache(maxsize=1024)  # a game's few hundred phrases, made once each (the press's path)
def _say(key: str, **params: str) -> Phrase:
    return Phrase(key, tuple(sorted(params.items())))


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
    everything = mode == "all"
    game = table.game
    entries = [e for e in effects if isinstance(e, LogEntry)]
    said: list[Phrase] = []
    for entry in entries:
        kind = entry.kind
        if kind not in _SAID_KINDS or (kind in _ALL_ONLY and (game is None or not everything)):
            continue  # most of a change's entries (a press, a turn): nothing to read
        f = _fields(entry)
        if kind == "round-over":
            name = f.get("went_out")
            said.append(_say("say.out", name=str(name)) if name else _say("say.blocked"))
        elif kind == "game-over":
            gid = f.get("game")
            name = winner(gid) if winner is not None and isinstance(gid, int) else None
            said.append(_say("say.winner", name=name) if name else _say("say.game_over"))
        elif game is None:
            continue
        elif kind == "marker" and f.get("present") and _sounded(effects, "choo"):
            owner = game.owner(_slot(f))
            if owner is not None and owner != "mexican":
                said.append(_say("say.public", name=owner))
        elif kind == "last-tile" and f.get("player"):
            said.append(_say("say.last_tile", name=str(f["player"])))
        elif kind == "reminder":
            owner = game.owner(_slot(f))
            if owner is not None and owner != "mexican":
                said.append(_say(_reminder_key(str(f.get("why", ""))), name=owner))
    turn = _turn_phrase(effects, entries, table)
    if turn is not None:
        said.append(turn)  # last: "Cid's train is open. Bea's turn."
    return said


def _reminder_key(why: str) -> str:
    """The sentence for a reminder, by the reason the core logged."""
    if "last tile" in why:
        return "say.reminder.last_tile"
    if "keep drawing" in why:
        return "say.reminder.draw"
    return "say.reminder.marker"


def _slot(fields: dict[str, object]) -> int:
    slot = fields.get("slot")
    return slot if isinstance(slot, int) else 0


def _turn_phrase(effects: Sequence[Effect], entries: list[LogEntry], table: Table) -> Phrase | None:
    """Who must act now: the player who must cover a double opened or handed on by this
    change, else the new turn's player."""
    game = table.game
    if game is None or table.turn is None or game.phase not in ("first-turn", "play"):
        return None
    turned = any(e.kind == "turn" for e in entries)
    opened = _sounded(effects, "chicken")
    double = next((d for d in table.doubles if not (d.waiting or d.queued)), None)
    if double is not None and (turned or opened):
        name = game.owner(double.responsible)
        if name is not None and name != "mexican":
            return _say("say.double", name=name)
    if turned:
        name = game.owner(table.turn)
        if name is not None and name != "mexican":
            return _say("say.turn", name=name)
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
    return [_say(key, name=name) for key in named for name in players] + fixed

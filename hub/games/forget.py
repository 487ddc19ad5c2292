"""What forgetting a player changes beside the database (docs/storage.md, "Where a
name lives"): the store renames the seats (:func:`scorer.people.forget`); this follows
it everywhere else the hub holds the name.

- the table, when it still shows a game the player sat at (a finished one: the store
  refuses the game in play): a :class:`~hub.core.events.SeatsRenamed` event, which
  also starts a new journal segment (``table.journal`` keeps the old names in no
  record), and the snapshot it announces goes to the phones and to MQTT's retained
  ``state``;
- MQTT's retained ``game`` and the phones: the table's game is published again
  (MQTT's retained ``game`` may have been a past game, corrected since);
- the recent event log (``GET /api/log``): every name (and spelling) replaced;
- the voice's spellings (``spoken_names`` in ``settings.json``, ``GET /api/settings``
  and MQTT's retained ``settings``): a spelling of the name goes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hub.core.events import SeatsRenamed
from hub.core.state import Table
from scorer.names import skeleton
from scorer.people import Forgotten

Names = dict[str, str]  # an old name (or spelling) -> its anonymous name


class ForgetLoop(Protocol):
    """What forgetting needs of the loop (:class:`hub.runtime.loop.HubLoop`)."""

    @property
    def table(self) -> Table:
        """The table now."""

    def submit(self, event: SeatsRenamed) -> Any:
        """Queue ``event``; a future of the snapshot after it."""

    def settled(self, timeout: float = 5.0) -> dict[str, Any]:
        """The snapshot once everything queued is applied and journaled."""


@dataclass(frozen=True)
class ForgetParts:
    """The parts a forget reaches, handed in by the composition root."""

    loop: ForgetLoop
    rewrite_log: Callable[[Callable[[dict[str, Any]], dict[str, Any]]], None]
    publish: Callable[[str, Any], None]  # the broadcaster's news (phones, MQTT)
    get_game: Callable[[int], dict[str, Any]]
    settings_now: Callable[[], dict[str, Any]]
    apply_settings: Callable[[dict[str, Any]], dict[str, Any]]
    now: Callable[[], float]


def follow(parts: ForgetParts, forgotten: Forgotten) -> None:
    """Rename ``forgotten``'s seats on the table, in the log, and drop its spellings."""
    by_game: dict[int, Names] = {}
    for game_id, old, new in forgotten.seats:
        by_game.setdefault(game_id, {})[old] = new
    fallback: Names = {}  # the newest game's names first: a spoken name is theirs
    for game_id in sorted(by_game, reverse=True):
        for old, new in by_game[game_id].items():
            fallback.setdefault(old, new)
    newest = next(iter(fallback.values()), "Player")
    for name in (forgotten.name, *_drop_spellings(parts, forgotten)):
        fallback.setdefault(name, newest)
    _follow_table(parts, by_game)
    parts.rewrite_log(lambda fields: _scrubbed(fields, by_game, fallback))


def _follow_table(parts: ForgetParts, by_game: Mapping[int, Names]) -> None:
    """The table's game renamed (and journaled), then published to the phones and MQTT
    (whatever game MQTT's retained ``game`` held, a past one corrected, it is the
    table's again)."""
    game = parts.loop.table.game
    if game is None:
        return
    if game.id in by_game:
        renamed = tuple(by_game[game.id].items())
        parts.loop.submit(SeatsRenamed(game.id, renamed, parts.now())).result(5.0)
        parts.loop.settled()
    parts.publish("game", parts.get_game(game.id))


def _drop_spellings(parts: ForgetParts, forgotten: Forgotten) -> list[str]:
    """The voice's spellings of any of the forgotten names go (saved, published);
    returns the spellings dropped."""
    keys = {skeleton(forgotten.name)} | {skeleton(old) for _, old, _ in forgotten.seats}
    spellings: dict[str, str] = dict(parts.settings_now().get("spoken_names") or {})
    gone = [name for name in spellings if skeleton(name) in keys]
    if not gone:
        return []
    dropped = [spellings.pop(name) for name in gone]
    parts.apply_settings({"spoken_names": spellings})
    return [*gone, *dropped]


def _scrubbed(
    fields: dict[str, Any], by_game: Mapping[int, Names], fallback: Names
) -> dict[str, Any]:
    """A log entry's fields with the forgotten names replaced: by its game's anonymous
    names when it names a game, else by the newest game's (the table's, mostly)."""
    game = fields.get("game")
    names = dict(by_game.get(game, {}) if isinstance(game, int) else {})  # its own first
    for old, new in fallback.items():
        names.setdefault(old, new)
    return {key: _swapped(value, names) for key, value in fields.items()}


def _swapped(value: Any, names: Names) -> Any:
    if isinstance(value, str):
        if value in names:
            return names[value]
        for old, new in names.items():  # a spoken sentence ("Ann's turn") holds the name
            value = _word_replaced(value, old, new)
        return value
    if isinstance(value, list | tuple):
        return [_swapped(v, names) for v in value]
    if isinstance(value, dict):
        return {_swapped(k, names): _swapped(v, names) for k, v in value.items()}
    return value


def _word_replaced(text: str, old: str, new: str) -> str:
    """``text`` with each whole-word ``old`` (in any case) replaced by ``new``: "Ann's
    turn" loses Ann, "Anna's turn" keeps Anna."""
    low, key = text.lower(), old.lower()
    if not key or len(low) != len(text):  # a lower case of another length: exact only
        return text.replace(old, new)
    kept, i = [], 0
    while (at := low.find(key, i)) != -1:
        end = at + len(key)
        whole = (at == 0 or not text[at - 1].isalnum()) and (
            end == len(text) or not text[end].isalnum()
        )
        kept.append(text[i:at] + (new if whole else text[at:end]))
        i = end
    return "".join(kept) + text[i:]

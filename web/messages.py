"""An API refusal in words for people, in the language of the request.

Every refusal keeps its ``error``: the hub's own message, in English, starting with the
request field at fault (for developers, logs and scripts; its shape is the HTTP
contract). Beside it the body carries ``message``: the same refusal in plain words
(no field names, no system errors) from the catalogs (``web/static/i18n/<lang>.json``,
keys ``error.*``), in the language of the request's ``Accept-Language``.

The hub's messages are made in many places (the scorer, the table, the web layer);
:data:`MESSAGES` is the one table that reads them: a pattern of the English message and
the catalog key whose ``{placeholders}`` are the pattern's named groups. A refusal no
pattern knows is said in general words for its status (in English: the hub's message
without its field name, first letter a capital). tests/test_messages.py holds each
pattern against the messages the code really makes.
"""

from __future__ import annotations

import re
from typing import Any, cast

from hub.wire import i18n

_FIELD = re.compile(r"^[a-z_][a-z0-9_]*(?:\.[^:\s]+)?: ")
_NAME = r"'(?P<name>.+)'"

# (pattern of the English message, catalog key): first match wins, so narrower first.
MESSAGES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.S), key)
    for pattern, key in (
        (r"game (?P<game>\d+): no such game", "error.game_missing"),
        (r"round (?P<round>\d+): game \d+ has rounds 1 to (?P<last>\d+)", "error.round_outside"),
        (
            r"round (?P<round>\d+): not played yet \(game \d+ is at round (?P<now>\d+)\)",
            "error.round_not_played",
        ),
        (r"round (?P<round>\d+) is already scored: .*", "error.round_scored"),
        (r"Round (?P<round>\d+) is still being played on the table\..*", "error.round_in_play"),
        (
            r"game (?P<game>\d+): editing scores needs the scorekeeper's token.*",
            "error.keeper_missing",
        ),
        (r"game (?P<game>\d+): that is not this game's scorekeeper token", "error.keeper_wrong"),
        (r"token: not the scorekeeper's token of game (?P<game>\d+)", "error.handover_wrong"),
        (r"token: expected the scorekeeper's token", "error.handover_wrong_token"),
        (r"game: expected a game id", "error.handover_no_game"),
        (
            r"token: changing the settings needs game (?P<game>\d+)'s scorekeeper token.*",
            "error.settings_keeper",
        ),
        (
            r"token: with no game running, changing the settings needs the table's proof.*",
            "error.settings_table",
        ),
        (r"game (?P<game>\d+) is already finished", "error.game_finished"),
        (r"game (?P<game>\d+): no round has been scored yet.*", "error.nothing_scored"),
        (r"game (?P<game>\d+) is not being played on the table", "error.not_on_table"),
        (r"another game started meanwhile: look again", "error.other_game"),
        (
            r"version \d+: game \d+ changed since .*; see round (?P<round>\d+) as it is now",
            "error.stale",
        ),
        (
            r"undo: the table changed since this phone looked \(\d+ to undo then, \d+ now\): "
            r"look again",
            "error.undo_moved",
        ),
        (
            r"step: the self-test is at step (?P<now>\d+) now, not \d+ \(look again\)",
            "error.selftest_moved",
        ),
        (r"\S+: '(?P<one>.+)' and '(?P<other>.+)' are the same name", "error.same_name"),
        (r"\S+: '(?P<one>.+)' and '(?P<other>.+)' look the same: .*", "error.names_alike"),
        (rf"\S+: {_NAME} is longer than (?P<most>\d+) characters", "error.name_too_long"),
        (rf"\S+: {_NAME} names the Mexican Train, not a player", "error.name_mexican"),
        (rf"\S+: {_NAME} holds an invisible or control character.*", "error.name_invisible"),
        (r"\S+: .* is not a name", "error.not_a_name"),
        (
            r"players: the hub seats (?P<fewest>\d+) to (?P<most>\d+) players, got (?P<given>\d+)",
            "error.player_count",
        ),
        (
            r"rounds: (?P<value>\d+) is not between (?P<low>\d+) and (?P<high>\d+)",
            "error.rounds_range",
        ),
        (r"(?P<field>[a-z_]+): expected a whole number, got (?P<value>.+)", "error.whole_number"),
        (r"seats: two players on the same slot", "error.seats_twice"),
        (r"mexican_slot: slot (?P<slot>\d+) is a player's seat", "error.mexican_on_player"),
        (r"mexican_slot: the (?P<rules>\S+) rules have no Mexican Train", "error.no_mexican"),
        (r"first: slot (?P<slot>\d+) has no player", "error.first_empty"),
        (r"set: (?P<value>.+) is not a domino set .*", "error.not_a_set"),
        (
            r"(?P<name>.+)'s points (?P<value>\d+): more than any hand can hold this round "
            r"\((?P<most>\d+)\)",
            "error.points_too_many",
        ),
        (r"(?P<name>.+)'s points (?P<value>-\d+): cannot be negative", "error.points_negative"),
        (r"(?P<name>.+)'s points (?P<value>.+): must be a whole number", "error.points_whole"),
        (r"no points for (?P<name>.+): every player needs a score.*", "error.points_missing"),
        (r"(?P<name>.+) went out, so scores 0, not (?P<value>\d+)", "error.out_scores_zero"),
        (rf"went out: {_NAME} is not a player in this game", "error.out_unknown"),
        # A table fix the hub refused (hub/core/undo.py, fix_error).
        (r"no round is being played", "error.fix_no_round"),
        (r"slot (?P<slot>\d+): no player sits there", "error.fix_no_player"),
        (r"slot (?P<slot>\d+): only a player's train has a marker", "error.fix_not_a_train"),
        (r"slot (?P<slot>\d+): a marker sits there; take it off instead", "error.fix_marker_there"),
        (r"no double is open", "error.fix_no_double"),
        (
            r"slot (?P<slot>\d+): neither a player's train nor the Mexican Train",
            "error.fix_no_train",
        ),
        (r"covers_left (?P<value>\d+): 1 to 3", "error.fix_covers"),
        (r"responsible (?P<slot>\d+): no player sits there", "error.fix_responsible"),
        (r"responsible: say who must cover it \(nobody's turn yet\)", "error.fix_who_covers"),
        (r"(?P<field>[a-z_.]+): unknown field.*", "error.unknown_field"),
        (r"Not Found: .*", "error.not_found"),
        (r"Request Entity Too Large: .*", "error.too_large"),
        (r"storage: .*", "error.storage"),
    )
)
GENERAL = {401: "error.not_allowed", 403: "error.not_allowed", 404: "error.not_found"}


def plain(message: str) -> str:
    """``message`` without the request field it starts with, its first letter a capital."""
    words = _FIELD.sub("", message, count=1)
    return words[:1].upper() + words[1:]


def words_for(lang: str, status: int, message: str) -> str:
    """The refusal ``message`` (answered with ``status``) in plain words in ``lang``."""
    for pattern, key in MESSAGES:
        match = pattern.fullmatch(message)
        if match:
            # The groups are words; none is "count" (that would choose a plural form).
            return i18n.text(lang, key, **cast("dict[str, Any]", match.groupdict()))
    if status >= 500 and not message.startswith("storage:"):
        return i18n.text(lang, "error.failed")
    if lang == i18n.DEFAULT:
        return plain(message)
    return i18n.text(lang, GENERAL.get(status, "error.refused"))

"""A new game's set-up, checked: players, seats, the Mexican slot, profile, set, rounds.

``parse_setup`` takes the JSON body of ``POST /api/games`` and returns a
:class:`GameSetup` or raises :class:`SetupError` naming the field and the problem.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.deal import DealError, default_set
from scorer.profiles import OPTIONS, PROFILES

SLOT_RANGE = range(1, 9)
SETS = (6, 9, 12, 15, 18)
MAX_NAME = 24


class SetupError(ValueError):
    """The set-up is not valid; the message names the field."""


@dataclass(frozen=True)
class GameSetup:
    """A checked game set-up."""

    players: tuple[str, ...]
    rules: str
    seats: tuple[int, ...]
    mexican_slot: int | None
    first: int | None
    set_max: int
    rounds: int
    options: tuple[tuple[str, object], ...]


def _int(body: dict[str, object], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise SetupError(f"{key}: expected a whole number, got {value!r}")
    return value


def _players(body: dict[str, object]) -> tuple[str, ...]:
    players = body.get("players")
    if not isinstance(players, list) or not players:
        raise SetupError("players: expected a list of names")
    names = []
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise SetupError(f"players: {name!r} is not a name")
        if len(name.strip()) > MAX_NAME:
            raise SetupError(f"players: {name!r} is longer than {MAX_NAME} characters")
        if name.strip().lower() == "mexican":
            raise SetupError("players: 'mexican' names the Mexican Train, not a player")
        names.append(name.strip())
    if len(set(n.lower() for n in names)) != len(names):
        raise SetupError("players: two players have the same name")
    if len(names) < 2 or len(names) > 8:
        raise SetupError(f"players: the hub seats 2 to 8 players, got {len(names)}")
    return tuple(names)


def _seats(body: dict[str, object], count: int) -> tuple[int, ...]:
    seats = body.get("seats")
    if seats is None:
        return tuple(range(1, count + 1))
    if not isinstance(seats, list) or len(seats) != count:
        raise SetupError(f"seats: expected {count} slot numbers, one per player")
    for slot in seats:
        if not isinstance(slot, int) or isinstance(slot, bool) or slot not in SLOT_RANGE:
            raise SetupError(f"seats: {slot!r} is not a slot (1 to 8)")
    if len(set(seats)) != count:
        raise SetupError("seats: two players on the same slot")
    return tuple(seats)


def _mexican(body: dict[str, object], seats: tuple[int, ...]) -> int | None:
    if "mexican_slot" in body and body["mexican_slot"] is None:
        return None
    slot = _int(body, "mexican_slot")
    if slot is None:
        free = [s for s in SLOT_RANGE if s not in seats]
        return free[0] if free else None
    if slot not in SLOT_RANGE:
        raise SetupError(f"mexican_slot: {slot} is not a slot (1 to 8)")
    if slot in seats:
        raise SetupError(f"mexican_slot: slot {slot} is a player's seat")
    return slot


def _options(body: dict[str, object], rules: str, count: int) -> tuple[tuple[str, object], ...]:
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise SetupError("options: expected an object")
    for key, value in options.items():
        if key not in OPTIONS:
            raise SetupError(f"options.{key}: unknown option (allowed: "
                             f"{', '.join(OPTIONS)})")
        values = OPTIONS[key].values
        if value not in values or type(value) is not type(values[0]):
            allowed = ", ".join(str(v).lower() for v in values)
            raise SetupError(f"options.{key}: {value!r} is not one of {allowed}")
    profile = PROFILES[rules]
    if options.get("chickenfoot") and not profile.chickenfoot_allowed:
        raise SetupError(f"options.chickenfoot: not part of the {rules} rules")
    if options.get("partnerships"):
        if not profile.partnerships_allowed:
            raise SetupError(f"options.partnerships: not part of the {rules} rules")
        if count not in (4, 6, 8):
            raise SetupError("options.partnerships: needs 4, 6 or 8 players")
    return tuple(sorted(options.items()))


def parse_setup(body: object, default_rules: str = "consensus") -> GameSetup:
    """Check a ``POST /api/games`` body; raise :class:`SetupError` naming what is wrong."""
    if not isinstance(body, dict):
        raise SetupError("body: expected a JSON object")
    known = {"players", "rules", "seats", "mexican_slot", "first", "set", "rounds", "options"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise SetupError(f"{unknown[0]}: unknown field (allowed: {', '.join(sorted(known))})")
    players = _players(body)
    rules = body.get("rules", default_rules)
    if rules not in PROFILES:
        raise SetupError(f"rules: {rules!r} is not one of {', '.join(PROFILES)}")
    assert isinstance(rules, str)
    seats = _seats(body, len(players))
    mexican = _mexican(body, seats)
    first = _int(body, "first")
    if first is not None and first not in seats:
        raise SetupError(f"first: slot {first} has no player")
    set_max = _set(body, rules, len(players))
    rounds = _int(body, "rounds")
    if rounds is None:
        rounds = set_max + 1
    if not 1 <= rounds <= set_max + 1:
        raise SetupError(f"rounds: {rounds} is not between 1 and {set_max + 1}")
    options = _options(body, rules, len(players))
    return GameSetup(players, rules, seats, mexican, first, set_max, rounds, options)


def _set(body: dict[str, object], rules: str, count: int) -> int:
    set_max = _int(body, "set")
    try:
        if set_max is None:
            set_max = default_set(rules, count)
        if set_max not in SETS:
            raise SetupError(f"set: {set_max} is not a domino set (6, 9, 12, 15, 18)")
    except DealError as exc:
        raise SetupError(f"set: {exc}") from None
    return set_max

"""The one check of a new game's set-up: players, rules, seats, Mexican slot, set, rounds, options.

:func:`check_setup` takes the JSON body of ``POST /api/games`` and returns a
:class:`GameSetup`, or raises :class:`SetupError` whose ``field`` names the part of the
body at fault (``players``, ``options.chickenfoot``, …). Every value it accepts comes
from :mod:`scorer.profiles`; ``docs/rules.md`` ("A new game") says why each limit is
what it is. The hub, the store and the bot table all start games through it: a game is
checked once, here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scorer.deal import default_set
from scorer.errors import FieldError, clip
from scorer.names import BadName, clash, clean, first_clash
from scorer.profiles import DEFAULT_RULES, HUB_PLAYERS, OPTIONS, PROFILES, SETS, SLOTS
from scorer.rounds import round_schedule

MAX_SEEN = 16  # names checked one by one; a longer list is refused for its length
FIELDS = ("players", "rules", "seats", "mexican_slot", "first", "set", "rounds", "options")


class SetupError(FieldError):
    """A set-up that cannot start a game; ``field`` names the body's field at fault.

    Its ``code`` says which refusal; the message starts with that field
    (``"players: two players have the same name"``).
    """


def _refuse(field: str, why: str, code: str, **params: object) -> SetupError:
    return SetupError(f"{clip(field)}: {why}", field, code=code, **params)


@dataclass(frozen=True)
class GameSetup:
    """A checked new game: names and slots in seat order, every default filled in.

    ``options`` holds the options as given (sorted pairs, so the set-up is hashable);
    an option left out has its default (:data:`scorer.profiles.OPTIONS`).
    """

    players: tuple[str, ...]
    rules: str
    seats: tuple[int, ...]
    mexican_slot: int | None
    first: int | None
    set_max: int
    rounds: int
    options: tuple[tuple[str, bool | int], ...] = ()

    @property
    def engines(self) -> tuple[int, ...]:
        """Each round's engine, first round first (``set_max`` down, ``rounds`` of them;
        an open series goes round again from ``set_max`` after the double-blank)."""
        full = self.set_max + 1
        if self.rounds <= full:
            return round_schedule(self.set_max, self.rounds)
        return tuple(self.set_max - i % full for i in range(self.rounds))


def _whole(body: Mapping[str, object], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise _refuse(
            key, f"expected a whole number, got {clip(value)}", "whole_number", value=value
        )
    return value


def _name(name: object) -> str:
    try:
        return clean(name, "players")
    except BadName as exc:
        raise SetupError(str(exc), exc.field, code=exc.code, **exc.params) from None


def _players(body: Mapping[str, object]) -> tuple[str, ...]:
    players = body.get("players")
    if not isinstance(players, list) or not players:
        raise _refuse("players", "expected a list of names", "names_list")
    names = tuple(_name(name) for name in players[:MAX_SEEN])
    alike = first_clash(names)
    if alike is not None:
        exc = clash("players", *alike)
        raise SetupError(str(exc), exc.field, code=exc.code, **exc.params)
    fewest, most = HUB_PLAYERS
    if not fewest <= len(players) <= most:
        raise _refuse(
            "players",
            f"the hub seats {fewest} to {most} players, got {len(players)}",
            "player_count",
            fewest=fewest,
            most=most,
            given=len(players),
        )
    return names


def _rules(body: Mapping[str, object], default_rules: str) -> str:
    rules = body.get("rules", default_rules)
    if not isinstance(rules, str) or rules not in PROFILES:
        raise _refuse(
            "rules",
            f"{clip(repr(rules))} is not one of {', '.join(PROFILES)}",
            "no_such_rules",
            value=rules,
            allowed=tuple(PROFILES),
        )
    return rules


def _seats(body: Mapping[str, object], count: int) -> tuple[int, ...]:
    seats = body.get("seats")
    if seats is None:
        return tuple(range(1, count + 1))
    if not isinstance(seats, list) or len(seats) != count:
        raise _refuse(
            "seats", f"expected {count} slot numbers, one per player", "seats_count", count=count
        )
    for slot in seats:
        if not isinstance(slot, int) or isinstance(slot, bool) or slot not in SLOTS:
            raise _refuse("seats", f"{clip(slot)} is not a slot (1 to 8)", "not_a_slot", value=slot)
    if len(set(seats)) != count:
        raise _refuse("seats", "two players on the same slot", "seats_twice")
    return tuple(seats)


def _mexican(body: Mapping[str, object], seats: tuple[int, ...], rules: str) -> int | None:
    if not PROFILES[rules].mexican_train:
        if body.get("mexican_slot") is not None:
            raise _refuse(
                "mexican_slot",
                f"the {rules} rules have no Mexican Train",
                "no_mexican",
                rules=rules,
            )
        return None
    if "mexican_slot" in body and body["mexican_slot"] is None:
        return None  # asked for: no slot (the centre button stands for the train)
    slot = _whole(body, "mexican_slot")
    if slot is None:
        free = [s for s in SLOTS if s not in seats]
        return free[0] if free else None
    if slot not in SLOTS:
        raise _refuse("mexican_slot", f"{slot} is not a slot (1 to 8)", "not_a_slot", value=slot)
    if slot in seats:
        raise _refuse(
            "mexican_slot", f"slot {slot} is a player's seat", "mexican_on_player", slot=slot
        )
    return slot


def _set(body: Mapping[str, object], rules: str, count: int) -> int:
    set_max = _whole(body, "set")
    if set_max is None:
        return default_set(rules, count)
    if set_max not in SETS:
        sets = ", ".join(map(str, SETS))
        raise _refuse(
            "set", f"{set_max} is not a domino set ({sets})", "not_a_set", value=set_max, sets=sets
        )
    return set_max


def _rounds(body: Mapping[str, object], set_max: int, rules: str) -> int:
    rounds = _whole(body, "rounds")
    if rounds is None:
        return set_max + 1
    most = PROFILES[rules].most_rounds(set_max)
    if not 1 <= rounds <= most:
        raise _refuse(
            "rounds",
            f"{rounds} is not between 1 and {most}",
            "rounds_range",
            value=rounds,
            low=1,
            high=most,
        )
    return rounds


def _option(key: str, value: object, rules: str, count: int) -> bool | int:
    field = f"options.{key}"
    option = OPTIONS.get(key)
    if option is None:
        allowed = ", ".join(OPTIONS)
        raise _refuse(
            field,
            f"unknown option (allowed: {allowed})",
            "unknown_option",
            name=key,
            allowed=tuple(OPTIONS),
        )
    if type(value) is not type(option.default) or value not in option.values:
        allowed = ", ".join(str(v).lower() for v in option.values)
        raise _refuse(
            field,
            f"{clip(repr(value))} is not one of {allowed}",
            "option_value",
            name=key,
            value=value,
            allowed=tuple(str(v).lower() for v in option.values),
        )
    assert isinstance(value, bool | int)
    offered = PROFILES[rules].options
    if key not in offered and value != option.default:
        raise _refuse(
            field,
            f"not part of the {rules} rules (they offer: {', '.join(offered)})",
            "option_not_offered",
            name=key,
            rules=rules,
        )
    if option.players is not None and value != option.default and count not in option.players:
        *most, last = map(str, option.players)
        counts = f"{', '.join(most)} or {last}"
        raise _refuse(
            field,
            f"needs {counts} players, not {count}",
            "option_players",
            name=key,
            counts=counts,
            given=count,
        )
    return value


Options = tuple[tuple[str, bool | int], ...]


def _options(body: Mapping[str, object], rules: str, count: int) -> Options:
    options = body.get("options")
    if options is None:
        return ()
    if not isinstance(options, dict):
        raise _refuse("options", "expected an object", "options_object")
    checked = {key: _option(key, value, rules, count) for key, value in options.items()}
    for key, value in checked.items():
        option = OPTIONS[key]
        for other, allowed in option.requires if value != option.default else ():
            if checked.get(other, OPTIONS[other].default) not in allowed:
                *most, last = (str(v).lower() for v in allowed)
                values = f"{', '.join(most)} or {last}"
                raise _refuse(
                    f"options.{key}",
                    f"with {key} on, {other} must be {values}",
                    "option_requires",
                    name=key,
                    other=other,
                    values=values,
                )
    return tuple(sorted(checked.items()))


def check_setup(body: object, default_rules: str = DEFAULT_RULES) -> GameSetup:
    """Check a ``POST /api/games`` body; raise :class:`SetupError` naming the field at fault.

    Keys: ``players`` (2 to 8 names in seat order, clockwise; trimmed, at most 24
    characters, Unicode-normalised, no invisible or control characters, no two alike
    (:mod:`scorer.names`), not "Mexican"), ``rules`` (a profile id, default
    ``default_rules``), ``seats`` (each player's slot 1-8, default 1, 2, …),
    ``mexican_slot`` (a free slot, default the lowest free one; ``null``: none; a
    profile without a Mexican Train, ``triples``: only ``null`` or left out),
    ``first`` (round 1's starting slot), ``set`` (one of :data:`SETS`, default the
    profile's set for that many players), ``rounds`` (1 to set + 1, default set + 1;
    an open series, ``aces``: up to :data:`~scorer.profiles.SERIES_MAX`)
    and ``options`` (the profile's options with their allowed values).
    """
    if not isinstance(body, dict):
        raise SetupError("body: expected a JSON object", code="not_an_object")
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        allowed = ", ".join(sorted(FIELDS))
        raise _refuse(
            unknown[0],
            f"unknown field (allowed: {allowed})",
            "unknown_field",
            name=unknown[0],
            allowed=tuple(sorted(FIELDS)),
        )
    players = _players(body)
    rules = _rules(body, default_rules)
    seats = _seats(body, len(players))
    mexican = _mexican(body, seats, rules)
    first = _whole(body, "first")
    if first is not None and first not in seats:
        raise _refuse("first", f"slot {first} has no player", "first_empty", slot=first)
    set_max = _set(body, rules, len(players))
    rounds = _rounds(body, set_max, rules)
    options = _options(body, rules, len(players))
    return GameSetup(players, rules, seats, mexican, first, set_max, rounds, options)

"""The voice (issue 24): what is said for each change (pure), the real engine's PCM in
both languages, the cache, the dispatcher's speech beside the chimes, a scripted game's
log, the setting and its trust, spellings, and the MQTT ``event`` (docs/sound.md)."""

from __future__ import annotations

import array
import json
import math
import re

import pytest

from hub.core import entries as E
from hub.core.effects import LogEntry, PlaySound, TablePlayed, TrainPublic
from hub.core.news import Play, Reason, Sound
from hub.core.reading import reminder
from hub.core.state import Double, Game, Table
from hub.io.sound import SoundPolicy
from hub.runtime.broadcast import Broadcaster
from hub.runtime.clock import SystemClock
from hub.runtime.dispatch import EffectDispatcher
from hub.runtime.eventlog import EventLog
from hub.voice import engine
from hub.voice.phrases import VOICE_MODES, Phrase, check_mode, choose, every_phrase
from hub.voice.speaker import Announcer, Cache, joined
from hub.wire.i18n import LANGUAGES, catalog, text
from scorer.setup import check_setup
from tablesim.virtual import FakeClock, RecordingPlayer
from tests.conftest import need
from tests.helpers import CoreDriver, until

PLAYERS = ("Ann", "Bea", "Cid")
RATE = engine.RATE


def game(**changes):
    base = {
        "id": 1,
        "rules": "consensus",
        "players": PLAYERS,
        "seats": (1, 2, 3),
        "mexican_slot": 8,
        "set_max": 12,
        "rounds": 13,
        "round": 1,
        "first": 1,
        "phase": "play",
    }
    return Game(**{**base, **changes})


def table(turn=2, doubles=(), **changes):
    return Table(game=game(**changes), turn=turn, doubles=tuple(doubles))


def keys(phrases):
    return [(p.key, dict(p.params)) for p in phrases]


# --- what is said: pure, effects + table + setting -> phrases ---------------------


def test_a_new_turn_says_whose_it_is_and_off_says_nothing():
    effects = [PlaySound(Sound.TURN), LogEntry(E.TurnEntry(2, "Bea"), 1.0)]
    assert keys(choose(effects, table(), "turns")) == [("say.turn", {"name": "Bea"})]
    assert keys(choose(effects, table(), "all")) == [("say.turn", {"name": "Bea"})]
    assert choose(effects, table(), "off") == []
    assert choose([], table(), "all") == []


def test_an_open_double_names_who_must_cover_it_instead_of_the_turn():
    opened = [
        LogEntry(E.HoldEntry(1, 1.5), 1.0),
        PlaySound(Sound.CHICKEN),
        TablePlayed(1, 1, "Ann", Play.DOUBLE),
    ]
    after = table(turn=1, doubles=[Double(slot=1, covers_left=1, responsible=1, player=1)])
    assert keys(choose(opened, after, "turns")) == [("say.double", {"name": "Ann"})]
    # passed on with the turn: the next player must cover it, said once
    passed = [PlaySound(Sound.TURN), LogEntry(E.TurnEntry(2, "Bea"), 2.0)]
    after = table(turn=2, doubles=[Double(slot=1, covers_left=1, responsible=2, player=1)])
    assert keys(choose(passed, after, "turns")) == [("say.double", {"name": "Bea"})]
    # a double that waits (triples' first turn) binds nobody yet: a plain turn
    waiting = [Double(slot=1, covers_left=1, responsible=1, waiting=True, player=1)]
    assert keys(choose(passed, table(turn=2, doubles=waiting), "turns")) == [
        ("say.turn", {"name": "Bea"})
    ]


def test_public_trains_last_tiles_and_reminders_only_with_everything():
    effects = [
        LogEntry(E.MarkerEntry(3, True), 1.0),
        PlaySound(Sound.CHOO),
        TrainPublic(3),
        LogEntry(E.LastTileEntry(1, "Ann"), 1.1),
        reminder(2, 1.2, Reason.PRIVATE),
        reminder(1, 1.3, Reason.LAST_TILE),
        PlaySound(Sound.TURN),
        LogEntry(E.TurnEntry(1, "Ann"), 1.4),
    ]
    assert keys(choose(effects, table(turn=1), "turns")) == [("say.turn", {"name": "Ann"})]
    assert keys(choose(effects, table(turn=1), "all")) == [
        ("say.public", {"name": "Cid"}),
        ("say.last_tile", {"name": "Ann"}),
        ("say.reminder.marker", {"name": "Bea"}),
        ("say.reminder.last_tile", {"name": "Ann"}),
        ("say.turn", {"name": "Ann"}),  # last: who plays now
    ]
    # the Mexican Train's slot is always public: nothing to say about it
    mexican = [
        LogEntry(E.MarkerEntry(8, True), 1.0),
        PlaySound(Sound.CHOO),
        TrainPublic(8),
    ]
    assert choose(mexican, table(), "all") == []


def test_the_voice_reads_what_the_core_decided_not_the_sounds_name():
    """A double played and a train gone public are said from the core's decision: a
    change whose chicken or choo nobody plays (switched off, left out) says the same."""
    hub = CoreDriver()
    hub.start(PLAYERS, first=1, mexican_slot=8)
    for slot in (1, 2, 3):  # the first turns: Ann's turn again, in play
        hub.tap(slot)
    hub.marker(1, True)  # Ann marks her train: her turn ends, Bea's
    effects = hub.hold(2)  # Bea plays a double on her own train: she must cover it
    assert PlaySound(Sound.CHICKEN) in effects
    silent = [e for e in effects if not isinstance(e, PlaySound)]
    said = [("say.double", {"name": "Bea"})]
    assert keys(choose(effects, hub.table, "turns")) == said
    assert keys(choose(silent, hub.table, "turns")) == said
    assert keys(choose(silent, hub.table, "all")) == said
    effects = hub.marker(3, True)  # Cid's train goes public (the sensor), not his turn
    assert PlaySound(Sound.CHOO) in effects
    silent = [e for e in effects if not isinstance(e, PlaySound)]
    assert keys(choose(silent, hub.table, "all")) == [("say.public", {"name": "Cid"})]
    # and a chicken or a choo alone, with no decision of the core's, says nothing
    sounds = [PlaySound(Sound.CHICKEN), PlaySound(Sound.CHOO)]
    assert choose(sounds, hub.table, "all") == []


def test_round_and_game_ends_name_the_winner_when_known():
    over = table(turn=None, phase="round-over")
    out = [
        PlaySound(Sound.OUT),
        LogEntry(E.RoundOverEntry(1, "Cid"), 1.0),
    ]
    assert keys(choose(out, over, "turns")) == [("say.out", {"name": "Cid"})]
    blocked = [LogEntry(E.RoundOverEntry(1, None), 1.0)]
    assert keys(choose(blocked, over, "turns")) == [("say.blocked", {})]
    done = table(turn=None, phase="finished")
    ended = [LogEntry(E.GameOverEntry(1), 1.0)]
    assert keys(choose(ended, done, "turns", lambda gid: "Bea")) == [
        ("say.winner", {"name": "Bea"})
    ]
    assert keys(choose(ended, done, "turns", lambda gid: None)) == [("say.game_over", {})]
    assert keys(choose(ended, done, "turns")) == [("say.game_over", {})]


def test_the_setting_takes_three_values():
    assert VOICE_MODES == ("off", "turns", "all")
    for mode in VOICE_MODES:
        assert check_mode(mode) == mode
    for bad in ("loud", "", None, 1, "Turns"):
        with pytest.raises(ValueError, match="off, turns, all"):
            check_mode(bad)


def test_every_phrase_has_its_words_in_both_catalogs():
    phrases = every_phrase(["Bea"])
    said = {p.key for p in phrases}
    for lang in LANGUAGES:
        entries = catalog(lang)
        assert said <= set(entries), lang
        assert {k for k in entries if k.startswith("say.") and k != "say.test"} == said
        for phrase in phrases:
            words = text(lang, phrase.key, **dict(phrase.params))
            assert words and "{" not in words
            assert ("Bea" in words) == bool(phrase.params)


# --- the real engine: non-silent PCM of a plausible length, both languages --------


def rms(samples):
    return math.sqrt(sum(s * s for s in samples) / len(samples))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_announcement_is_rendered_by_espeak_ng(lang):
    need("espeak-ng")
    assert engine.available() is None
    for phrase in [*every_phrase(["Bea"]), Phrase("say.test")]:
        words = text(lang, phrase.key, **dict(phrase.params))
        samples = engine.render(words, lang)
        seconds = len(samples) / RATE
        per_char = seconds / len(words)
        assert 0.03 < per_char < 0.15, (words, seconds)  # measured: 0.054-0.086 s a character
        assert max(map(abs, samples)) > 8000, words  # heard: not silence, not a click
        assert rms(samples) > 1000, words
        # trimmed: the first and last samples are sound, not the engine's lead-in
        assert abs(samples[0]) > engine.SILENT and abs(samples[-1]) > engine.SILENT


def test_the_two_languages_use_two_voices_and_differ():
    need("espeak-ng")
    english = engine.render("Bea", "en")
    spanish = engine.render("Bea", "es")
    assert english != spanish
    assert engine.voice_for("en") == "en-us" and engine.voice_for("es") == "es-419"
    assert engine.voice_for("fr") == "en-us"


def test_engine_faults_are_clear():
    with pytest.raises(engine.EngineError, match="nothing to say"):
        engine.render("  ", "en")
    with pytest.raises(engine.EngineError, match="no WAV"):
        engine.wav_samples(b"nonsense")
    header = b"RIFF\xff\xff\xff\x7fWAVEfmt " + (16).to_bytes(4, "little")
    fmt = (1).to_bytes(2, "little") + (2).to_bytes(2, "little") + (22050).to_bytes(4, "little")
    fmt += bytes(6) + (16).to_bytes(2, "little")
    with pytest.raises(engine.EngineError, match="2 ch"):
        engine.wav_samples(header + fmt + b"data" + bytes(12))
    assert len(engine.trimmed(array.array("h", [0, 3, 500, -700, 2, 0]))) == 2
    assert len(engine.trimmed(array.array("h", [0, 1, -1]))) == 0


# --- the cache and the render thread ----------------------------------------------


def test_the_cache_is_bounded_and_keeps_the_most_recently_used():
    cache = Cache(budget=3000)
    for i in range(4):
        cache.put(("en", f"s{i}"), array.array("h", bytes(1000)))
    assert len(cache) == 3 and ("en", "s0") not in cache and cache.used == 3000
    assert cache.get(("en", "s1")) is not None  # used: s2 goes next
    cache.put(("en", "s4"), array.array("h", bytes(1000)))
    assert ("en", "s1") in cache and ("en", "s2") not in cache


class Renders:
    """A stand-in engine that counts its calls (one tone per text)."""

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def __call__(self, words, lang):
        self.calls.append((lang, words))
        return array.array("h", [1000, -1000] * (100 * len(words)))


def test_a_game_is_rendered_ahead_once_and_again_after_a_spelling_or_language_change():
    render = Renders()
    settings = {"voice": "turns", "lang": "en", "names": {}}
    voice = Announcer(
        text,
        mode=lambda: settings["voice"],
        lang=lambda: settings["lang"],
        spellings=lambda: settings["names"],
        render=render,
    )
    try:
        now = table()
        voice.prepare(now)
        assert voice.wait_ready(10)
        first = len(render.calls)
        assert first == len(every_phrase(PLAYERS))
        voice.prepare(now)
        assert voice.wait_ready(10) and len(render.calls) == first  # nothing new
        settings["names"] = {"Bea": "Bay uh"}
        voice.prepare(now)
        assert voice.wait_ready(10)
        again = render.calls[first:]
        assert again and all("Bay uh" in words for _, words in again)  # only Bea's
        spoken = voice.announce([PlaySound(Sound.TURN), LogEntry(E.TurnEntry(2, "Bea"), 1.0)], now)
        assert [(s.text, s.lang) for s in spoken] == [("Bea's turn", "en")]
        assert spoken[0].samples is not None
        assert len(spoken[0].samples) == 2 * 100 * len("Bay uh's turn")  # the spelling's PCM
        settings["lang"] = "es"
        voice.prepare(now)
        assert voice.wait_ready(10)
        assert ("es", "Te toca, Bay uh") in [(lang, w) for lang, w in render.calls]
        settings["voice"] = "off"
        assert voice.announce([LogEntry(E.TurnEntry(2, None), 1.0)], now) == []
    finally:
        voice.close()


def test_joined_sentences_wait_for_the_chimes_and_pause_between():
    one = array.array("h", [5] * 10)
    assert joined([one]) is one  # the press's path: no copy
    both = joined([one, one], lead_frames=7)
    assert list(both[:7]) == [0] * 7 and both[7] == 5
    assert len(both) == 7 + 10 + 4410 + 10


# --- the dispatcher: speech beside the chimes, quiet modes, the log ----------------


class Said:
    """A dispatcher with a voice on a stand-in engine and a recording player."""

    def __init__(self, mode="all", quiet="off"):
        self.render = Renders()
        self.sound = RecordingPlayer()
        self.policy = SoundPolicy(quiet=quiet)
        self.eventlog = EventLog(FakeClock())
        self.mode = mode
        self.voice = Announcer(
            text,
            mode=lambda: self.mode,
            lang=lambda: "en",
            spellings=dict,
            render=self.render,
            on_late=self.sound.say,
        )
        self.dispatch = EffectDispatcher(
            self.sound,
            lights=type("Lights", (), {"refused": lambda self, slot: None})(),
            eventlog=self.eventlog,
            broadcaster=Broadcaster(),
            policy=self.policy,
            voice=self.voice,
            chime_frames={"choo": 1000, "turn": 500},
        )

    def log(self, kind):
        return [e for e in self.eventlog.recent(100) if e["kind"] == kind]


TURN_TO_BEA = [PlaySound(Sound.TURN), LogEntry(E.TurnEntry(2, "Bea"), 1.0)]
CID_PUBLIC = [
    LogEntry(E.MarkerEntry(3, True), 1.0),
    PlaySound(Sound.CHOO),
    TrainPublic(3),
]


def test_a_ready_turn_sentence_takes_the_chimes_place():
    said = Said()
    try:
        said.voice.prepare(table())
        assert said.voice.wait_ready(10)
        said.dispatch(TURN_TO_BEA, table())
        assert said.sound.played == []  # the chime's place went to the sentence ...
        assert len(said.sound.spoken) == 1 and said.sound.spoken[0][0] == 1000  # at once
        assert said.log("sound") == [said.log("sound")[0]]
        assert said.log("sound")[0]["name"] == "turn" and said.log("sound")[0]["voiced"] is True
        entry = said.log("say")[0]
        assert {k: entry[k] for k in ("text", "lang", "played")} == {
            "text": "Bea's turn",
            "lang": "en",
            "played": True,
        }
        # another sentence waits for the change's chimes to end (choo: 1000 frames)
        said.dispatch([*CID_PUBLIC, *TURN_TO_BEA], table())
        assert said.sound.played == ["choo"]
        assert list(said.sound.spoken[1][:1000]) == [0] * 1000 and said.sound.spoken[1][1000]
        assert [e["text"] for e in said.log("say")[1:]] == ["Cid's train is open", "Bea's turn"]
    finally:
        said.voice.close()


def test_a_sentence_not_rendered_yet_is_said_late_and_the_chime_plays():
    said = Said()
    try:
        said.dispatch(TURN_TO_BEA, table(players=("Ann", "Bo", "Cid")))
        assert said.sound.played == ["turn"]  # nothing ready: the chime is heard
        assert said.voice.wait_ready(10)
        until(lambda: said.sound.spoken, "the late sentence")
        entry = said.log("say")[0]
        assert entry["text"] == "Bo's turn" and entry["played"] and entry["late"]
        assert "voiced" not in said.log("sound")[0]
    finally:
        said.voice.close()


@pytest.mark.parametrize(
    ("quiet", "heard"),
    [("off", [True, True]), ("turn-only", [False, True]), ("mute", [False, False])],
)
def test_quiet_modes_apply_to_the_voice_as_to_the_chimes(quiet, heard):
    said = Said(quiet=quiet)
    try:
        said.voice.prepare(table())
        assert said.voice.wait_ready(10)
        said.dispatch([*CID_PUBLIC, *TURN_TO_BEA], table())
        entries = said.log("say")
        # logged whether heard or not, with the flag
        assert [(e["text"], e["played"]) for e in entries] == [
            ("Cid's train is open", heard[0]),
            ("Bea's turn", heard[1]),
        ]
        assert len(said.sound.spoken) == (1 if any(heard) else 0)
        assert not any(e.get("late") for e in entries)
    finally:
        said.voice.close()


def test_a_failing_engine_costs_the_voice_only():
    def broken(words, lang):
        raise engine.EngineError("espeak-ng failed: no voice")

    said = Said()
    said.voice.render = broken
    try:
        said.dispatch(TURN_TO_BEA, table())
        assert said.sound.played == ["turn"]
        assert said.voice.wait_ready(10)
        assert said.voice.status()["available"] is False
        assert "no voice" in str(said.voice.status()["reason"])
        assert said.sound.spoken == [] and said.dispatch.failures == 0
    finally:
        said.voice.close()


# --- the hub: a scripted game on the sim backend, the real engine ------------------


class Fingers:
    """Presses on the mock pins of a hub on a fake clock."""

    def __init__(self, hub):
        self.hub = hub

    def press(self, slot, hold):
        self.hub.sim.button(slot, True)
        self.hub.clock.advance(hold)
        self.hub.loop.drain()
        self.hub.sim.button(slot, False)
        self.hub.clock.advance(0.2)
        self.hub.loop.drain()

    def tap(self, slot):
        self.press(slot, 0.15)

    def hold(self, slot):
        self.press(slot, 1.5)

    def long_hold(self, slot):
        self.press(slot, self.hub.loop.table.timings.long_hold + 0.5)

    def marker(self, slot, present=True):
        self.hub.sim.marker(slot, present)
        self.hub.clock.advance(0.2)
        self.hub.loop.drain()

    def said(self):
        """The sentences logged since the last call."""
        entries = [e for e in self.hub.eventlog.recent(2000) if e["kind"] == "say"]
        new, self._seen = entries[getattr(self, "_seen", 0) :], len(entries)
        return [e["text"] for e in new]


def test_a_scripted_game_says_the_expected_sentence_for_each_event(make_hub):
    need("espeak-ng")
    hub = make_hub(sound={"voice": "all"})
    body = {"players": list(PLAYERS), "first": 1, "options": {"last_tile_call": True}}
    hub.games.new_game(check_setup(body, "consensus"))  # the call: a consensus option
    t = Fingers(hub)
    assert t.said() == ["Ann's turn"]
    assert hub.voice.wait_ready(60)  # everything the game can say, rendered ahead
    hub.sound.played.clear()
    spoken = len(hub.sound.spoken)
    t.tap(1)
    assert t.said() == ["Bea's turn"]
    assert hub.sound.played == [] and len(hub.sound.spoken) == spoken + 1  # in the chime's place
    t.marker(2)  # Bea could not play: her train is public, her turn ends
    assert t.said() == ["Bea's train is open", "Cid's turn"]
    t.tap(3)
    assert t.said() == ["Ann's turn"]  # the first turns are over
    t.hold(1)  # a double on Ann's own train: she covers it
    assert t.said() == ["Ann, cover the double"]
    t.tap(1)
    assert t.said() == ["Bea's turn"]
    t.tap(2)
    assert t.said() == ["Cid's turn"]
    t.tap(3)
    assert t.said() == ["Ann's turn"]
    t.tap(1)
    t.tap(1)  # a second tap on her own (private) slot right away: her last tile
    assert t.said() == ["Bea's turn", "Ann has one tile left"]
    t.tap(2)
    t.tap(3)
    assert t.said() == ["Cid's turn", "Ann's turn"]
    t.long_hold(1)  # Ann went out
    assert t.said() == ["Ann went out"]
    entries = [e for e in hub.eventlog.recent(2000) if e["kind"] == "say"]
    assert all(e["lang"] == "en" and e["played"] for e in entries)
    assert not any(e.get("late") for e in entries[1:])  # ready before each press
    assert all(max(map(abs, pcm)) > 8000 for pcm in hub.sound.spoken)


def test_the_snapshot_says_how_far_the_voice_has_rendered(make_hub):
    need("espeak-ng")
    hub = make_hub(sound={"voice": "turns"})
    assert hub.loop.snapshot["voice"] == {
        "available": True,
        "reason": None,
        "cached": 0,
        "pending": 0,
    }
    hub.games.new_game(check_setup({"players": list(PLAYERS), "first": 1}, "consensus"))
    hub.loop.drain()
    assert hub.loop.snapshot["voice"]["pending"] > 0  # queued with the game's start
    assert hub.voice.wait_ready(60)

    def told():  # the render thread tells the loop once its queue is empty
        hub.loop.drain()
        return hub.loop.snapshot["voice"]["pending"] == 0

    until(told, "the voice's status in the snapshot")
    assert hub.loop.snapshot["voice"]["cached"] == len(every_phrase(PLAYERS))


def test_the_voice_speaks_spanish_and_says_a_spelling(make_hub):
    need("espeak-ng")
    hub = make_hub(sound={"voice": "turns", "voice_language": "es"})
    hub.apply_settings({"spoken_names": {"Cid": "Sid"}})
    hub.games.new_game(check_setup({"players": list(PLAYERS), "first": 1}, "consensus"))
    assert hub.voice.wait_ready(60)
    t = Fingers(hub)
    t.said()
    t.tap(1)
    t.tap(2)
    assert t.said() == ["Te toca, Bea", "Te toca, Cid"]  # the log shows the real name
    assert ("es", "Te toca, Sid") in hub.voice.cache and (
        "es",
        "Te toca, Cid",
    ) not in hub.voice.cache


@pytest.mark.parametrize("threaded", [False, True])
def test_a_spelling_changed_mid_game_is_heard_at_the_next_turn(make_hub, threaded):
    """The sentence said at a press is kept ready with its PCM; a spelling changed
    through the settings (on the loop's thread when it runs) lets it go."""
    need("espeak-ng")
    hub = make_hub(threaded=threaded, sound={"voice": "turns"})
    hub.games.new_game(check_setup({"players": list(PLAYERS), "first": 1}, "consensus"))
    assert hub.voice.wait_ready(60)
    t = Fingers(hub)
    for slot in (1, 2, 3, 1, 2):  # Bea's, Cid's, Ann's turn, then Bea's and Cid's again
        t.tap(slot)
    assert hub.sound.spoken[-1] == hub.voice.cache.get(("en", "Cid's turn"))
    hub.apply_settings({"spoken_names": {"Cid": "Seed"}})
    assert hub.voice.wait_ready(60)
    for slot in (3, 1, 2):  # Ann's, Bea's, and Cid's turn comes round again
        t.tap(slot)
    assert t.said()[-1] == "Cid's turn"  # the log shows the real name
    assert hub.sound.spoken[-1] == hub.voice.cache.get(("en", "Seed's turn"))
    assert hub.sound.spoken[-1] != hub.voice.cache.get(("en", "Cid's turn"))


# --- the setting and its trust ----------------------------------------------------


def test_the_voice_setting_is_checked_and_saved(client, live_hub, table_proof):
    assert client.get("/api/settings").get_json()["voice"] == "off"  # the test fixture's
    r = client.post("/api/settings", json={"voice": "all", "voice_language": "es"})
    assert r.status_code == 200 and r.get_json()["voice"] == "all"
    saved = json.loads((live_hub.state_dir / "settings.json").read_text())
    assert saved["voice"] == "all" and saved["voice_language"] == "es"
    names = {"Siobhan": "Shivawn"}
    assert (
        client.post("/api/settings", json={"spoken_names": names}).get_json()["spoken_names"]
        == names
    )
    for body, fragment in [
        ({"voice": "loud"}, "voice: expected one of off, turns, all"),
        ({"voice": True}, "voice"),
        ({"voice_language": "fr"}, "voice_language: expected one of en, es"),
        ({"spoken_names": ["Shivawn"]}, "spoken_names"),
        ({"spoken_names": {"Siobhan": ""}}, "spoken_names"),
        ({"spoken_names": {"Siobhan": 3}}, "spoken_names"),
        ({"spoken_names": {"Siobhan": "x" * 61}}, "spoken_names"),
        ({"spoken_names": {"Siob\nhan": "Shivawn"}}, "spoken_names"),
        ({"spoken_names": {f"P{i}": "x" for i in range(33)}}, "at most 32"),
    ]:
        r = client.post("/api/settings", json=body)
        assert r.status_code == 400 and r.get_json()["error"] == "setting_value", body
        assert r.get_json()["field"] == fragment.split(":")[0].split()[0] or "at most" in fragment
    assert live_hub.settings.values["voice"] == "all"
    assert live_hub.settings.values["spoken_names"] == names


def test_the_voice_setting_needs_the_table_or_the_scorekeeper(client, live_hub):
    r = client.post("/api/settings", json={"voice": "off"})
    assert r.status_code == 401 and r.get_json()["error"] == "settings_table"
    r = client.post("/api/settings", json={"spoken_names": {"Ann": "Anne"}})
    assert r.status_code == 401
    assert live_hub.settings.values["spoken_names"] == {}


def test_the_config_names_the_voice_default_and_refuses_nonsense(tmp_path):
    from hub.runtime.config import DEFAULTS, ConfigError, load

    assert DEFAULTS["sound"]["voice"] == "turns"
    assert DEFAULTS["sound"]["voice_language"] == "en"
    with pytest.raises(ConfigError, match=re.escape("sound.voice")):
        load(None, {"sound": {"voice": "chatty"}})
    with pytest.raises(ConfigError, match=re.escape("sound.voice_language")):
        load(None, {"sound": {"voice_language": "de"}})


# --- MQTT: the spoken text on ``event`` --------------------------------------------


def test_the_spoken_text_is_published_on_event(make_hub, mosquitto):
    from tests.mqtt_helpers import Listener

    need("espeak-ng")
    listener = Listener(mosquitto.port, ("mtrain/v1/event",))
    listener.wait_connected()
    try:
        hub = make_hub(
            threaded=True,
            clock=SystemClock(),
            hub={"hub_id": "v1"},
            mqtt={"url": mosquitto.url},
            sound={"voice": "turns"},
        )
        hub.games.new_game(check_setup({"players": list(PLAYERS), "first": 1}, "consensus"))

        def said():
            return [
                entry
                for entry in map(json.loads, listener.on("mtrain/v1/event"))
                if entry["kind"] == "say"
            ]

        entries = listener.wait_for(said)
        assert entries[0]["text"] == "Ann's turn" and entries[0]["lang"] == "en"
        assert entries[0]["played"] is True
    finally:
        listener.close()


# --- installed where the hub runs -------------------------------------------------


def test_the_makefile_and_the_installer_install_espeak_ng():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    makefile = (root / "Makefile").read_text()
    runtime = re.search(r"^RUNTIME_PACKAGES := (.*)$", makefile, re.M)
    assert runtime and "espeak-ng" in runtime[1].split()
    installer = re.search(r"^PACKAGES=\(([^)]*)\)", (root / "systemd/install.sh").read_text(), re.M)
    assert installer and "espeak-ng" in installer[1].split()


def test_with_the_sound_switched_off_nothing_is_rendered_and_nothing_is_heard(
    tmp_path, mock_factory
):
    from hub.app import Hub
    from hub.io.sound import DisabledPlayer
    from hub.runtime.config import load

    config = load(
        None,
        {
            "hub": {"backend": "sim", "state_dir": str(tmp_path / "state")},
            "sound": {"enabled": False, "voice": "turns"},
        },
    )
    hub = Hub(config, clock=FakeClock(), pin_factory=mock_factory, sound=DisabledPlayer("off"))
    hub.start(threaded=False)
    try:
        assert not hub.voice.renders
        hub.games.new_game(check_setup({"players": list(PLAYERS), "first": 1}, "consensus"))
        Fingers(hub).tap(1)
        assert hub.voice.wait_ready(10) and len(hub.voice.cache) == 0
        said = [e for e in hub.eventlog.recent(100) if e["kind"] == "say"]
        assert [(e["text"], e["played"]) for e in said] == [
            ("Ann's turn", False),
            ("Bea's turn", False),
        ]
    finally:
        hub.stop()


def test_a_hub_whose_sound_is_off_renders_nothing_even_on_a_recording_player(tmp_path):
    from tablesim.hubs import new_hub

    hub = new_hub(tmp_path / "state", {"sound": {"voice": "all"}})  # the soak's hub
    try:
        assert not hub.voice.renders
        hub.games.new_game(check_setup({"players": list(PLAYERS), "first": 1}, "consensus"))
        hub.loop.drain()
        said = [e for e in hub.eventlog.recent(100) if e["kind"] == "say"]
        assert [(e["text"], e["played"]) for e in said] == [("Ann's turn", False)]
        assert hub.voice.wait_ready(10) and len(hub.voice.cache) == 0
        assert hub.loop.snapshot["voice"]["pending"] == 0
    finally:
        hub.stop()


# --- the self-test on the page: the voice's step ------------------------------------


def test_the_pages_self_test_ends_with_the_voice_saying_a_sentence(make_hub):
    need("espeak-ng")
    hub = make_hub(sound={"voice": "turns", "voice_language": "es"})
    status = hub.selftest.act("start", proven=True)
    total = status["steps"]
    for _ in range(total - 1):  # every step before the voice's, skipped
        status = hub.selftest.act("skip", proven=True)
    assert status["step"]["part"] == "voice"
    assert status["step"]["prompt"] == "Did you hear the hub's voice say a sentence?"
    assert len(hub.sound.spoken) == 1  # said as the step began, in Spanish
    assert len(hub.sound.spoken[0]) == len(engine.render(text("es", "say.test"), "es"))
    status = hub.selftest.act("yes", proven=True)
    assert status["done"] and status["results"][-1]["passed"]


def test_without_the_voice_the_self_test_has_no_voice_step(make_hub):
    hub = make_hub()  # the fixture's voice is off
    status = hub.selftest.act("start", proven=True)
    for _ in range(status["steps"]):
        status = hub.selftest.act("skip", proven=True)
    assert "voice" not in [r["part"] for r in status["results"]]
    assert hub.sound.spoken == []

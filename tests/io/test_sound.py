"""The sound port: the recording fake, the quiet rules and the mixer's priority rules."""

from __future__ import annotations

import array
import sys
from datetime import datetime, time

import pytest

from hub.io import mixer as mixer_module
from hub.io.mixer import Mixer
from hub.io.sound import (
    FRAME_BYTES,
    MAX_VOICES,
    SAY,
    SOUND_NAMES,
    SOUND_PRIORITY,
    DisabledPlayer,
    SoundPolicy,
    audible,
    effective_quiet,
    in_quiet_hours,
    parse_quiet_hours,
)
from tablesim.virtual import RecordingPlayer

N = 4  # frames per period in the mixer tests: small enough to spell out


def pcm(*values: int) -> array.array:
    return array.array("h", values)


def periods(mixer: Mixer) -> list[list[int]]:
    """Every period the mixer produces until it goes quiet, as lists of samples."""
    out = []
    while (chunk := mixer.next_period()) is not None:
        out.append(list(array.array("h", chunk)))
        assert len(out) < 100, "the mixer never went quiet"
    return out


# -- RecordingPlayer ---------------------------------------------------------------


def test_recording_player_records_and_tells_listeners():
    heard = []
    player = RecordingPlayer(listeners=[heard.append])
    player.play("choo")
    player.play("chicken")
    assert player.played == ["choo", "chicken"]
    assert heard == ["choo", "chicken"]
    assert player.status() == {"available": True, "reason": None}


def test_recording_player_checks_volume_like_the_real_one():
    player = RecordingPlayer()
    player.set_volume(0.25)
    assert player.volume == 0.25
    with pytest.raises(ValueError, match="volume"):
        player.set_volume(1.5)
    with pytest.raises(ValueError, match="volume"):
        player.set_volume(True)
    assert player.volume == 0.25


def test_the_disabled_player_keeps_a_bounded_history_and_says_why():
    player = DisabledPlayer("sound is off", keep=3)
    for name in SOUND_NAMES:
        player.play(name)
    assert list(player.recent) == list(SOUND_NAMES[-3:])
    assert player.status() == {"available": False, "reason": "sound is off"}
    assert not isinstance(player, RecordingPlayer)  # production never runs on the fake
    with pytest.raises(ValueError, match="volume"):
        player.set_volume(2)


# -- the policy: whether a sound plays ---------------------------------------------


def test_the_policy_applies_the_quiet_mode():
    policy = SoundPolicy(quiet="mute")
    assert not any(policy.allows(name) for name in SOUND_NAMES)
    policy.set_quiet("turn-only")
    assert [n for n in SOUND_NAMES if policy.allows(n)] == ["turn", "turn_back"]
    policy.set_quiet("off")
    assert all(policy.allows(name) for name in SOUND_NAMES)
    with pytest.raises(ValueError, match="quiet mode must be one of off, turn-only, mute"):
        policy.set_quiet("whisper")
    assert policy.quiet == "off"


def test_the_policy_silences_only_the_turn_chime_when_it_is_off():
    policy = SoundPolicy(turn_chime=False)
    assert [n for n in SOUND_NAMES if not policy.allows(n)] == ["turn"]


def test_the_policy_follows_quiet_hours_on_the_injected_wall_clock():
    now = [datetime(2024, 5, 1, 23, 30)]
    policy = SoundPolicy(
        quiet_hours=parse_quiet_hours("22:00-07:00"),
        quiet_hours_mode="turn-only",
        clock=lambda: now[0],
    )
    assert (policy.allows("choo"), policy.allows("turn")) == (False, True)
    now[0] = datetime(2024, 5, 2, 7, 0)
    assert policy.allows("choo") and policy.mode() == "off"


# -- priorities and quiet modes ------------------------------------------------------


def test_every_sound_has_a_priority_in_the_documented_order():
    assert set(SOUND_PRIORITY) == {*SOUND_NAMES, "say"}
    p = SOUND_PRIORITY
    assert p["out"] > p["chicken"] > p["choo"] > p["reminder"] == p["nope"] > p["turn"]
    assert p["choo"] > p["say"] > p["turn"]  # speech cuts a turn chime, never a "choo"
    assert p["turn_back"] == p["turn"]


@pytest.mark.parametrize(
    ("mode", "heard"),
    [
        ("off", set(SOUND_NAMES)),
        ("turn-only", {"turn", "turn_back"}),
        ("mute", set()),
    ],
)
def test_quiet_modes_let_through(mode, heard):
    assert {name for name in SOUND_NAMES if audible(name, mode)} == heard


def test_quiet_hours_parse():
    assert parse_quiet_hours("22:00-07:00") == (time(22, 0), time(7, 0))
    assert parse_quiet_hours(" 7:30 - 9:05 ") == (time(7, 30), time(9, 5))


@pytest.mark.parametrize("text", ["22-7", "22:00", "25:00-07:00", "22:00-07:60", "a:bc-07:00"])
def test_quiet_hours_reject_malformed_spans(text):
    with pytest.raises(ValueError, match="must look like 22:00-07:00"):
        parse_quiet_hours(text)


def test_quiet_hours_reject_an_empty_span():
    with pytest.raises(ValueError, match="same time"):
        parse_quiet_hours("07:00-07:00")


def test_quiet_hours_wrap_past_midnight():
    night = parse_quiet_hours("22:00-07:00")
    assert in_quiet_hours(night, time(22, 0))
    assert in_quiet_hours(night, time(3, 0))
    assert not in_quiet_hours(night, time(7, 0))
    assert not in_quiet_hours(night, datetime(2024, 5, 1, 12, 0))
    lunch = parse_quiet_hours("12:00-13:30")
    assert in_quiet_hours(lunch, time(13, 29))
    assert not in_quiet_hours(lunch, time(23, 0))


def test_during_quiet_hours_the_stricter_mode_wins():
    night = parse_quiet_hours("22:00-07:00")
    late, noon = datetime(2024, 5, 1, 23, 0), datetime(2024, 5, 1, 12, 0)
    assert effective_quiet("off", night, "turn-only", late) == "turn-only"
    assert effective_quiet("mute", night, "turn-only", late) == "mute"
    assert effective_quiet("off", night, "mute", late) == "mute"
    assert effective_quiet("off", night, "mute", noon) == "off"
    assert effective_quiet("turn-only", None, "mute", late) == "turn-only"


# -- the mixer -------------------------------------------------------------------------


def test_one_sound_plays_in_periods_then_one_of_silence_then_nothing():
    mixer = Mixer(N)
    mixer.start("turn", pcm(1, 2, 3, 4, 5, 6))
    assert periods(mixer) == [[1, 2, 3, 4], [5, 6, 0, 0], [0, 0, 0, 0]]
    assert mixer.next_period() is None


def test_periods_are_whole_16_bit_frames():
    mixer = Mixer(N)
    mixer.start("turn", pcm(1, 2, 3))
    assert len(mixer.next_period()) == N * FRAME_BYTES


def test_volume_scales_the_samples():
    mixer = Mixer(N, volume=0.5)
    mixer.start("turn", pcm(1000, -1000, 30000, -30001))
    assert periods(mixer)[0] == [500, -500, 15000, -15001]  # rounded down, as audioop does


def test_the_volume_is_scaled_in_c_here_and_python_s_fallback_gives_the_same_samples():
    assert mixer_module._scaled is mixer_module._scaled_in_c  # audioop: 3.11's own
    edges = [-32768, -32767, -30001, -7, -1, 0, 1, 7, 101, 30000, 32767]
    chunk = array.array("h", [*edges, *range(-32768, 32768, 97)])
    for volume in (0.0, 0.05, 0.1, 0.25, 1 / 3, 0.5, 0.8, 0.99, 1.0):
        c = mixer_module._scaled_in_c(chunk, volume)
        assert c.typecode == "h"
        assert c == mixer_module._scaled_in_python(chunk, volume), volume


def test_without_audioop_the_mixer_scales_in_python(monkeypatch):
    monkeypatch.setitem(sys.modules, "audioop", None)  # import audioop: ImportError
    assert mixer_module._load_audioop() is None


def test_a_sound_is_kept_scaled_as_it_plays_and_its_next_plays_use_the_copy():
    mixer = Mixer(N, volume=0.5)
    turn = pcm(1000, -1000, 30000, -30001, 7, 8)
    mixer.start("turn", turn)
    first = periods(mixer)
    assert first == [[500, -500, 15000, -15001], [3, 4, 0, 0], [0, 0, 0, 0]]
    (kept,) = mixer._kept.values()
    assert list(kept.scaled) == [500, -500, 15000, -15001, 3, 4]
    mixer.start("turn", turn)
    assert mixer.voices[0].kept is kept
    assert periods(mixer) == first


def test_a_sound_cut_short_keeps_what_it_played_and_the_next_play_goes_on_from_there():
    mixer = Mixer(N, volume=0.5)
    turn, out = pcm(*range(100, 112)), pcm(*[2000] * 4)
    mixer.start("turn", turn)
    periods_take(mixer, 1)
    mixer.start("out", out)  # outranks turn: cut, it fades under out
    periods(mixer)
    assert list(mixer._kept[id(turn)].scaled) == [50, 50, 51, 51, 52, 52, 53, 53]
    mixer.start("turn", turn)
    assert periods(mixer) == [[50, 50, 51, 51], [52, 52, 53, 53], [54, 54, 55, 55], [0] * 4]
    assert len(mixer._kept[id(turn)].scaled) == len(turn)


def test_each_sentence_said_keeps_its_own_copy_though_all_play_as_say():
    mixer = Mixer(N, volume=0.5)
    bob, ann = pcm(*[1000] * 4), pcm(*[3000] * 4)
    for _ in range(2):
        for sentence in (bob, ann):
            mixer.start(SAY, sentence)
            periods(mixer)
    assert {len(kept.scaled) for kept in mixer._kept.values()} == {4}
    assert [kept.loaded for kept in mixer._kept.values()] == [bob, ann]
    mixer.start(SAY, bob)
    assert mixer.voices[0].kept is mixer._kept[id(bob)]
    assert periods(mixer)[0] == [500] * 4


def test_the_kept_copies_are_bounded_the_least_recently_played_let_go_first(monkeypatch):
    monkeypatch.setattr(mixer_module, "KEPT_FRAMES", 8)
    mixer = Mixer(N, volume=0.5)
    first, second, third = (pcm(*[1000 * i] * 4) for i in (1, 2, 3))
    for samples in (first, second, first, third):
        mixer.start(SAY, samples)
        periods(mixer)
    assert [kept.loaded for kept in mixer._kept.values()] == [first, third]
    mixer.start(SAY, second)  # let go: scaled again, right
    assert periods(mixer)[0] == [1000] * 4


def test_a_kept_copy_is_not_used_at_another_volume():
    mixer = Mixer(N, volume=0.5)
    turn = pcm(1000, 2000, 3000, 4000)
    mixer.start("turn", turn)
    periods(mixer)
    mixer.volume = 0.25
    mixer.start("turn", turn)
    assert periods(mixer)[0] == [250, 500, 750, 1000]
    mixer.volume = 1.0
    mixer.start("turn", turn)
    assert periods(mixer)[0] == [1000, 2000, 3000, 4000]


def test_the_volume_applies_from_the_next_period_even_to_a_kept_sound():
    mixer = Mixer(N, volume=0.5)
    turn = pcm(*[1000] * 8)
    mixer.start("turn", turn)
    periods(mixer)
    mixer.start("turn", turn)  # from the copy at 0.5
    assert periods_take(mixer, 1) == [[500] * 4]
    mixer.volume = 0.25
    assert periods(mixer) == [[250] * 4, [0] * 4]


def test_voices_mixed_at_a_volume_are_each_scaled_then_clamped():
    mixer = Mixer(N, volume=0.5)
    mixer.start("chicken", pcm(30000, -30000, 1000, 0))
    mixer.start("turn", pcm(30000, -30000, 1000, 0))
    mixer.start("choo", pcm(30000, -30000, 1000, 0))
    assert periods(mixer)[0] == [32767, -32768, 1500, 0]


def test_a_higher_priority_sound_cuts_the_playing_one_with_a_fade():
    mixer = Mixer(N)
    mixer.start("turn", pcm(*[400] * 12))
    assert periods_take(mixer, 1) == [[400] * 4]
    mixer.start("chicken", pcm(*[10] * 8))
    # The turn chime fades over one period (400, 300, 200, 100) under the chicken, then ends.
    assert periods(mixer) == [[410, 310, 210, 110], [10] * 4, [0] * 4]


def test_a_lower_or_equal_priority_sound_is_mixed_in():
    mixer = Mixer(N)
    mixer.start("chicken", pcm(*[1000] * 8))
    mixer.start("turn", pcm(*[1] * 4))
    mixer.start("choo", pcm(*[20] * 4))
    assert periods(mixer) == [[1021] * 4, [1000] * 4, [0] * 4]
    mixer.start("nope", pcm(*[5] * 4))
    mixer.start("reminder", pcm(*[7] * 4))
    assert periods(mixer) == [[12] * 4, [0] * 4]


def test_a_repeat_of_the_playing_sound_restarts_it():
    mixer = Mixer(N)
    mixer.start("choo", pcm(*range(100, 112)))
    periods_take(mixer, 1)
    mixer.start("choo", pcm(*range(100, 112)))
    first, *rest = periods(mixer)
    # The old choo (104..107) fades out under the new one starting again at 100.
    assert first == [round((104 + i) * (4 - i) / 4 + 100 + i) for i in range(4)]
    assert rest == [[104, 105, 106, 107], [108, 109, 110, 111], [0] * 4]


def test_sums_beyond_16_bits_are_clamped():
    mixer = Mixer(N)
    mixer.start("nope", pcm(30000, -30000, 0, 0))
    mixer.start("reminder", pcm(30000, -30000, 0, 0))
    assert periods(mixer)[0] == [32767, -32768, 0, 0]


def test_no_more_than_max_voices_play_at_once():
    mixer = Mixer(N)
    for _ in range(MAX_VOICES + 3):
        for name in ("nope", "reminder"):
            mixer.start(name, pcm(*[1] * 8))
    assert len(mixer.voices) <= MAX_VOICES


def test_clear_drops_everything_at_once():
    mixer = Mixer(N)
    mixer.start("out", pcm(*[1] * 8))
    mixer.next_period()
    mixer.clear()
    assert mixer.next_period() is None


def periods_take(mixer: Mixer, count: int) -> list[list[int]]:
    return [list(array.array("h", mixer.next_period())) for _ in range(count)]


def test_a_lead_of_silence_comes_before_the_samples_and_keeps_their_copy():
    mixer = Mixer(N, volume=0.5)
    sentence = pcm(1000, 2000, 3000)
    mixer.start(SAY, sentence, lead_frames=6)
    assert periods(mixer) == [[0, 0, 0, 0], [0, 0, 500, 1000], [1500, 0, 0, 0], [0] * 4]
    mixer.start(SAY, sentence, lead_frames=1)
    assert mixer.voices[0].kept is mixer._kept[id(sentence)]
    assert periods(mixer) == [[0, 500, 1000, 1500], [0] * 4]


def test_a_voice_waiting_out_its_lead_is_not_summed_with_the_chime_before_it():
    mixer = Mixer(N)
    mixer.start("choo", pcm(*[100] * 8))
    mixer.start(SAY, pcm(*[7] * 4), lead_frames=8)  # after the chime: played alone too
    summed = []
    mix = mixer._mix
    mixer._mix = lambda voices, n, volume: summed.append(len(voices)) or mix(voices, n, volume)
    assert periods(mixer) == [[100] * 4, [100] * 4, [7] * 4, [0] * 4]
    assert summed == []
    mixer.start(SAY, pcm(*[7] * 4), lead_frames=4)
    mixer.start("choo", pcm(*[100] * 4))  # outranks it: the waiting sentence is cut
    assert periods(mixer) == [[100] * 4, [0] * 4]
    mixer.start(SAY, pcm(*[7] * 4), lead_frames=10)
    mixer.start("nope", pcm(*[1] * 2))
    assert periods(mixer) == [[1, 1, 0, 0], [0] * 4, [0, 0, 7, 7], [7, 7, 0, 0], [0] * 4]
    assert summed == []
    mixer.start(SAY, pcm(*[7] * 4), lead_frames=2)
    mixer.start("nope", pcm(*[1] * 4))  # both sound in the first period: summed
    assert periods(mixer) == [[1, 1, 8, 8], [7, 7, 0, 0], [0] * 4]
    assert summed == [2]

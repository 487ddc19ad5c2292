"""The ALSA player: on a fake device that records (and fails on cue), and on ALSA's null device.

The fake device runs the real player code: its writer thread, mixing, quiet modes and
fault handling. Tests wait on the player (``wait_idle``, ``wait_ready``) or on the
fake's condition, never on a fixed sleep.
"""

from __future__ import annotations

import array
import builtins
import logging
import os
import subprocess
import sys
import threading
import time
import wave

import pytest

from hub.cli import sounds as sound_cli
from hub.io import alsa_output
from hub.io.alsa_player import AlsaPlayer
from hub.io.sound import SOUND_NAMES
from tests.helpers import eventually

PERIOD = 64
SILENCE = bytes(PERIOD * 2)
LOUD = {  # constant-valued sounds, so every written sample says which sound it came from
    "turn": array.array("h", [100] * (PERIOD * 3)),
    "turn_back": array.array("h", [200] * (PERIOD * 3)),
    "nope": array.array("h", [300] * (PERIOD * 2)),
    "reminder": array.array("h", [400] * (PERIOD * 2)),
    "choo": array.array("h", [2000] * (PERIOD * 3)),
    "chicken": array.array("h", [10000] * (PERIOD * 2)),
    "out": array.array("h", [20000] * (PERIOD * 2)),
    "last_tile": array.array("h", [3000] * (PERIOD * 2)),
}


class FakeDevice:
    """A playback device that records every write; it can be unplugged and plugged back.

    ``fail_open`` makes opening fail (no card); ``fail_write`` makes writing fail (the
    card was pulled out while open). ``on_write(count)`` runs on the writer thread
    after each write, to act at an exact point in the stream.
    """

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.opens = 0
        self.open_attempts = 0
        self.closes = 0
        self.fail_open = False
        self.fail_write = False
        self.on_write = None
        self.changed = threading.Condition()

    def open(self, name: str, rate: int, period_frames: int, periods: int) -> FakePcm:
        with self.changed:
            self.open_attempts += 1
            self.changed.notify_all()
        if self.fail_open:
            raise OSError(f"no sound card for {name!r}")
        assert (rate, period_frames) == (22050, PERIOD)
        self.opens += 1
        return FakePcm(self)

    def wait_for(self, predicate, timeout: float = 5.0) -> bool:
        """Until ``predicate()`` holds (asked at each change); False after ``timeout`` s."""
        return bool(eventually(predicate, timeout, condition=self.changed))

    def samples(self) -> list[int]:
        """Everything written after the opening probe, as samples (silence dropped)."""
        return [s for s in array.array("h", b"".join(self.writes)) if s]


class FakePcm:
    def __init__(self, device: FakeDevice) -> None:
        self.device = device

    def write(self, frames: bytes) -> None:
        device = self.device
        if device.fail_write:
            raise OSError("No such device [hw:1]")
        assert len(frames) == PERIOD * 2
        with device.changed:
            device.writes.append(bytes(frames))
            device.changed.notify_all()
        if device.on_write is not None:
            device.on_write(len(device.writes))

    def close(self) -> None:
        self.device.closes += 1


@pytest.fixture
def device():
    return FakeDevice()


@pytest.fixture
def make_player(device):
    players = []

    def make(**options) -> AlsaPlayer:
        options.setdefault("sounds", LOUD)
        options.setdefault("retry_s", 0.01)
        player = AlsaPlayer(open_device=device.open, period_frames=PERIOD, **options)
        players.append(player)
        assert player.wait_ready()
        return player

    yield make
    for player in players:
        player.close()


def played(player: AlsaPlayer, device: FakeDevice, *names: str) -> list[int]:
    """Play ``names``, wait until the player is idle, return the non-silent samples."""
    for name in names:
        player.play(name)
    assert player.wait_idle()
    return device.samples()


def sound_log(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "hub.io.sound" and r.levelno >= 30]


# -- playing -------------------------------------------------------------------------


def test_opens_the_device_once_and_checks_it_takes_data(make_player, device):
    player = make_player()
    assert player.status() == {"available": True, "reason": None}
    assert device.opens == 1
    assert device.writes == [SILENCE]  # the probe


def test_a_sound_reaches_the_device_then_one_period_of_silence(make_player, device):
    player = make_player()
    assert played(player, device, "turn") == list(LOUD["turn"])
    assert device.writes[-1] == SILENCE
    assert device.opens == 1


def test_every_sound_plays_in_order_when_each_ends_first(make_player, device):
    started = []
    player = make_player(on_sound_start=started.append)
    for name in SOUND_NAMES:
        played(player, device, name)
    assert started == list(SOUND_NAMES)
    assert device.samples() == [s for name in SOUND_NAMES for s in LOUD[name]]


def test_the_start_hook_runs_right_before_the_first_write_of_the_sound(make_player, device):
    writes_seen = []
    player = make_player(on_sound_start=lambda name: writes_seen.append(len(device.writes)))
    played(player, device, "choo")
    assert writes_seen == [1]  # only the probe had been written
    assert array.array("h", device.writes[1])[0] == 2000


def test_a_higher_priority_sound_takes_over_mid_sound(make_player, device):
    player = make_player()
    device.on_write = lambda count: player.play("chicken") if count == 2 else None
    samples = played(player, device, "turn")
    # turn's first period, then its fade under the chicken, then the chicken alone.
    assert samples[:PERIOD] == [100] * PERIOD
    faded = samples[PERIOD : 2 * PERIOD]
    assert all(10000 < s <= 10100 for s in faded)
    assert faded == sorted(faded, reverse=True)
    assert samples[2 * PERIOD :] == [10000] * PERIOD
    assert len(samples) == 3 * PERIOD  # the rest of the turn chime was cut


def test_a_lower_priority_sound_is_mixed_in(make_player, device):
    player = make_player()
    device.on_write = lambda count: player.play("turn") if count == 2 else None
    samples = played(player, device, "out")
    assert samples == [20000] * PERIOD + [20100] * PERIOD + [100] * (2 * PERIOD)


def test_volume_scales_what_is_written(make_player, device):
    player = make_player(volume=0.5)
    assert played(player, device, "choo") == [1000] * len(LOUD["choo"])
    player.set_volume(0.0)
    player.set_volume(1.0)
    with pytest.raises(ValueError):
        player.set_volume(2)


def test_the_player_plays_what_it_is_asked_quiet_rules_are_the_policys(make_player, device):
    player = make_player()
    assert not hasattr(player, "set_quiet")
    # The idle device got turn's first period from the caller; turn_back ranks equal,
    # so it is mixed in from the next period (100 + 200).
    assert played(player, device, "turn", "turn_back") == (
        [100] * PERIOD + [300] * (2 * PERIOD) + [200] * PERIOD
    )


def test_play_never_waits_for_the_device(make_player, device):
    gate = threading.Event()
    released = []
    player = make_player()
    # Write 1 is the opening probe and play() writes a sound's first period itself on an
    # idle device (2): the writer thread's first write (3) is the one that sticks.
    device.on_write = lambda count: released.append(gate.wait(10)) if count == 3 else None
    player.play("choo")
    assert device.wait_for(lambda: len(device.writes) >= 3)  # the writer is now stuck
    for _ in range(200):
        player.play("turn")  # would hang here if play() touched the device
    gate.set()
    assert player.wait_idle()
    assert released == [True]  # the test let the writer go, not the gate's timeout


def test_a_press_reads_no_file_and_spawns_no_process(make_player, device, monkeypatch):
    player = make_player(sounds=None)  # the real WAVs, loaded at start

    def forbidden(*args, **kwargs):
        raise AssertionError("file or process touched while playing")

    for target, attr in ((builtins, "open"), (wave, "open"), (subprocess, "Popen"), (os, "read")):
        monkeypatch.setattr(target, attr, forbidden)
    player.play("turn")
    assert player.wait_idle()
    monkeypatch.undo()
    assert len(device.samples()) > 10000
    assert player.status()["available"]


def test_the_writer_idles_without_using_the_cpu(make_player, device):
    player = make_player()
    played(player, device, "turn")
    clock = time.pthread_getcpuclockid(player._thread.ident)
    before = time.clock_gettime(clock)
    writes = len(device.writes)
    assert not device.wait_for(lambda: len(device.writes) > writes, timeout=0.3)
    assert time.clock_gettime(clock) - before < 0.02  # a busy loop would burn ~0.3 s


def test_close_releases_the_device_and_stops_the_writer(make_player, device):
    player = make_player()
    player.close()
    assert device.closes == 1
    assert not player._thread.is_alive()


# -- faults ----------------------------------------------------------------------------


def test_no_sound_card_is_reported_once_and_the_player_recovers(make_player, device, caplog):
    caplog.set_level(logging.DEBUG, logger="hub.io.sound")
    device.fail_open = True
    player = make_player()
    status = player.status()
    assert status["available"] is False
    assert "no sound card for 'default'" in status["reason"]
    for _ in range(5):
        player.play("choo")
    assert device.wait_for(lambda: device.open_attempts >= 4)  # it keeps retrying
    assert len(sound_log(caplog)) == 1
    assert "no sound card" in sound_log(caplog)[0]
    device.fail_open = False
    assert player.wait_available(True)
    assert played(player, device, "turn") == list(LOUD["turn"])  # presses while away are dropped
    assert sound_log(caplog)[1] == "sound available again on ALSA device 'default'"


def test_status_changes_are_announced(make_player, device):
    seen = []
    make_player(on_status_change=seen.append)
    assert seen == [{"available": True, "reason": None}]
    seen.clear()
    device.fail_open = True
    player = make_player(on_status_change=seen.append)
    assert device.wait_for(lambda: device.open_attempts >= 4)
    device.fail_open = False
    assert player.wait_available(True)
    assert [status["available"] for status in seen] == [False, True]  # once each way
    assert "no sound card" in seen[0]["reason"]


def test_pulling_the_device_away_mid_game(make_player, device, caplog):
    player = make_player()
    played(player, device, "turn")
    device.fail_write = True  # pulled out: opening still "works", writing fails
    player.play("choo")
    assert player.wait_available(False)
    assert "No such device" in player.status()["reason"]
    for _ in range(10):
        player.play("chicken")
    assert device.wait_for(lambda: device.opens >= 4)  # reopened, probed, still failing
    assert not player.status()["available"]
    assert len(sound_log(caplog)) == 1
    device.fail_write = False  # plugged back in
    assert player.wait_available(True)
    device.writes.clear()
    assert played(player, device, "out") == list(LOUD["out"])
    assert len(sound_log(caplog)) == 2


def test_bad_sound_files_are_reported_and_the_rest_still_play(
    make_player, device, tmp_path, caplog
):
    (tmp_path / "chicken.wav").write_bytes(b"not a wav at all")
    with wave.open(str(tmp_path / "turn.wav"), "wb") as stereo:
        stereo.setnchannels(2)
        stereo.setsampwidth(2)
        stereo.setframerate(44100)
        stereo.writeframes(bytes(400))
    with wave.open(str(tmp_path / "choo.wav"), "wb") as good:
        good.setnchannels(1)
        good.setsampwidth(2)
        good.setframerate(22050)
        good.writeframes(array.array("h", [7] * PERIOD).tobytes())
    player = make_player(sounds=None, sounds_dir=tmp_path)
    status = player.status()
    assert status["available"] is True
    assert "chicken.wav: not a readable WAV file" in status["reason"]
    assert "turn.wav: 2 channel(s), 16-bit, 44100 Hz" in status["reason"]
    assert "out.wav" in status["reason"]  # missing files count too
    warnings_at_start = len(sound_log(caplog))
    assert played(player, device, "chicken", "chicken", "choo", "chicken") == [7] * PERIOD
    assert len(sound_log(caplog)) == warnings_at_start + 1  # "cannot play 'chicken'", once


def test_no_loadable_sound_means_unavailable(make_player, tmp_path):
    player = make_player(sounds=None, sounds_dir=tmp_path)
    assert player.status()["available"] is False
    assert player.status()["reason"].startswith("no sound could be loaded")


def test_a_failing_start_hook_costs_the_sound_not_the_player(make_player, device, caplog):
    player = make_player(on_sound_start=lambda name: 1 / 0 if name == "nope" else None)
    player.play("nope")
    assert player.wait_available(False)
    assert player.wait_available(True)
    device.writes.clear()
    assert played(player, device, "turn") == list(LOUD["turn"])


# -- the real thing: ALSA's null device ---------------------------------------------------


@pytest.fixture
def alsa_null():
    """ALSA's ``null`` device through pyalsaaudio; fails instead of skipping when CI is set."""
    problem = None
    if alsa_output.alsaaudio is None:
        problem = "pyalsaaudio is not installed (pip install pyalsaaudio; needs libasound2-dev)"
    elif "null" not in alsa_output.alsaaudio.pcms():
        problem = "ALSA has no 'null' device (apt-get install alsa-utils)"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    return "null"


def test_every_sound_plays_on_the_null_device(alsa_null, caplog):
    started = []
    player = AlsaPlayer(device=alsa_null, on_sound_start=started.append)
    try:
        assert player.wait_ready()
        assert player.status() == {"available": True, "reason": None}
        for name in SOUND_NAMES:
            player.play(name)
            assert player.wait_idle()
        for name in SOUND_NAMES:  # all at once: priorities and mixing on the real device
            player.play(name)
        assert player.wait_idle()
        assert player.status() == {"available": True, "reason": None}
    finally:
        player.close()
    assert started[: len(SOUND_NAMES)] == list(SOUND_NAMES)
    assert sound_log(caplog) == []


def test_a_missing_alsa_device_is_reported_not_raised(alsa_null, caplog):
    player = AlsaPlayer(device="no-such-device", retry_s=0.01)
    try:
        assert player.wait_ready()
        player.play("choo")
        assert player.wait_idle()
        status = player.status()
    finally:
        player.close()
    assert status["available"] is False
    assert "no-such-device" in status["reason"]
    assert len(sound_log(caplog)) == 1
    # From the first failure on, alsa-lib's own lines go to the debug log, not stderr.
    assert alsa_output.route_alsa_lib_messages.cache_info().currsize == 1


def test_a_device_that_opens_never_loads_ctypes(alsa_null):
    code = (
        "import sys\n"
        "from hub.io.alsa_player import AlsaPlayer\n"
        f"player = AlsaPlayer(device={alsa_null!r})\n"
        "assert player.wait_ready() and player.status()['available']\n"
        "player.play('turn')\n"
        "assert player.wait_idle()\n"
        "player.close()\n"
        "print('ctypes' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False", out.stderr


# -- what `mtrain-hub sounds` calls (hub/cli/sounds.py) -----------------------------------


def test_the_cli_lists_every_sound():
    assert sound_cli.list_sounds()[: len(SOUND_NAMES)] == list(SOUND_NAMES)


def test_the_cli_plays_a_sound_on_a_named_device(alsa_null):
    sound_cli.play_sound("chicken", device=alsa_null)


def test_the_cli_explains_what_cannot_be_played(alsa_null):
    with pytest.raises(sound_cli.SoundError, match="no sound 'moo'; there are: choo, chicken"):
        sound_cli.play_sound("moo", device=alsa_null)
    with pytest.raises(sound_cli.SoundError, match="ALSA device 'no-such-device': cannot open"):
        sound_cli.play_sound("choo", device="no-such-device")


def test_an_idle_device_gets_the_first_period_from_the_caller(make_player, device):
    starts = []
    player = make_player(
        on_sound_start=lambda name: starts.append((name, threading.current_thread().name))
    )
    assert player.wait_idle()
    player.play("turn")
    # Written before play() returned, on this thread: no wait for the writer thread.
    assert device.writes[-1] == LOUD["turn"][:PERIOD].tobytes()
    assert starts == [("turn", threading.current_thread().name)]
    assert player.wait_idle()
    assert device.samples()[-3 * PERIOD :] == list(LOUD["turn"])
    gate = threading.Event()
    device.on_write = lambda count: (
        gate.wait(10) if threading.current_thread().name == "sound-writer" else None
    )
    player.play("choo")  # its first period from here; the writer then holds the device
    assert device.wait_for(lambda: len(device.writes) >= 2 and not player._idle)
    player.play("chicken")  # so this one is queued for the writer
    gate.set()
    assert player.wait_idle()
    assert ("chicken", "sound-writer") in starts


def test_speech_starts_after_its_lead_of_silence_on_the_device(make_player, device):
    player = make_player()
    assert player.wait_idle()
    before = len(device.writes)
    sentence = array.array("h", [1234] * PERIOD)
    player.say(sentence, lead_frames=PERIOD + 3)
    assert player.wait_idle()
    written = array.array("h", b"".join(device.writes[before:]))
    assert list(written[: PERIOD + 3]) == [0] * (PERIOD + 3)
    assert list(written[PERIOD + 3 : 2 * PERIOD + 3]) == [1234] * PERIOD

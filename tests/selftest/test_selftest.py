"""``mtrain-hub selftest``: the walk-through with a scripted person on the sim backend."""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial

import pytest

from hub.cli.selftest import walk_through
from hub.core.events import ButtonChanged, MarkerChanged
from hub.io.sound import SOUND_NAMES
from hub.runtime.config import load
from hub.selftest.parts import open_parts
from hub.selftest.steps import Step, Wiring, plan
from hub.selftest.walkthrough import Walkthrough, table
from tablesim.virtual import RecordingPlayer
from tests.conftest import need
from tests.doubles import RecordingLeds


def sim_config(tmp_path, **pins):
    return load(
        None, {"hub": {"backend": "sim", "state_dir": str(tmp_path / "state")}, "pins": pins}
    )


class Person:
    """Does what each prompt asks on the simulated pins; ``swap`` wires two slots'
    buttons the wrong way round, ``dead`` markers never read, ``blind`` slots' lights
    are not seen."""

    def __init__(
        self,
        swap: tuple[int, int] | None = None,
        dead: tuple[int, ...] = (),
        blind: tuple[int, ...] = (),
        lets_go: tuple[int, ...] = (),
    ) -> None:
        self.sim = None
        self.lets_go = lets_go  # buttons held at the start, let go at the first prompt
        self.swap = dict([swap, swap[::-1]]) if swap else {}
        self.dead = dead
        self.blind = blind
        self.prompts: list[str] = []

    def say(self, step: Step, number: int, total: int) -> None:
        self.prompts.append(f"[{number}/{total}] {step.part} ({step.pin}): {step.prompt}")
        for slot in self.lets_go:
            self.sim.button(slot, False)
        self.lets_go = ()
        if step.kind == "button":
            slot = self.swap.get(step.slot, step.slot)
            self.sim.button(slot, True)
            self.sim.button(slot, False)
        elif step.kind.startswith("marker") and step.slot not in self.dead:
            self.sim.marker(step.slot, step.kind == "marker-on")

    def ask(self, step: Step) -> bool:
        return not (step.kind == "light" and step.slot in self.blind)


def run(tmp_path, mock_factory, person, capsys, timeout=5.0, ring=True, held=()):
    """The walk-through with ``person``; ``ring`` False: no Pico (no ring handed in);
    ``held``: ``(kind, slot)`` inputs that read active before it starts."""
    config = sim_config(tmp_path)
    sound, leds = RecordingPlayer(), RecordingLeds() if ring else None

    @contextmanager
    def opened(config):
        with open_parts(config, factory=mock_factory, sound=sound, leds=leds) as parts:
            person.sim = parts.sim
            for kind, slot in held:
                parts.sim.button(slot, True) if kind == "button" else parts.sim.marker(slot, True)
            yield parts

    status = walk_through(config, timeout, opened, person.say, person.ask)
    return status, capsys.readouterr().out, sound, leds


def test_a_person_who_does_everything_passes_every_part(tmp_path, mock_factory, capsys):
    need("espeak-ng")  # the last step: the voice says a sentence
    person = Person()
    status, out, sound, leds = run(tmp_path, mock_factory, person, capsys)
    assert status == 0
    assert sound.played == list(SOUND_NAMES)
    assert len(sound.spoken) == 1 and max(map(abs, sound.spoken[0])) > 8000  # the voice
    lit = [[i for i, pixel in enumerate(frame) if pixel[:3] != (0, 0, 0)] for frame in leds.frames]
    assert lit == [[]] + [
        pixels for n in range(8) for pixels in ([3 * n, 3 * n + 1, 3 * n + 2], [])
    ] + [[]]
    total = 8 + 1 + 16 + 8 + len(SOUND_NAMES) + 1  # the voice's step last
    assert person.prompts[0] == (
        f"[1/{total}] slot 1 button (BCM 4 (header pin 7)): Press and release the button of slot 1."
    )
    assert person.prompts[8] == (
        f"[9/{total}] centre button (BCM 10 (header pin 19)): Press and release the centre button."
    )
    assert person.prompts[15] == (
        f"[16/{total}] slot 4 marker on (BCM 12 (header pin 32)): Put a marker on slot 4."
    )
    lines = out.splitlines()
    assert row(out, "slot 3 button").split() == [
        "slot",
        "3",
        "button",
        "BCM",
        "27",
        "(header",
        "pin",
        "13)",
        "PASS",
        "pressed",
        "and",
        "released",
    ]
    assert any(
        line.startswith("slot 8 marker off") and "BCM 11" in line and "PASS" in line
        for line in lines
    )
    assert "slot 2 lights" in out and "pixels 4-6, Pico GP22 (pin 29)" in out
    assert "sound chicken" in out and "ALSA device 'default'" in out
    assert "voice" in row(out, "voice") and "PASS" in row(out, "voice")
    assert person.prompts[-1] == (
        f"[{total}/{total}] voice (ALSA device 'default'): "
        "Did you hear the hub's voice say a sentence?"
    )
    assert lines[-1] == f"{total} passed, 0 failed"


def test_swapped_wires_a_dead_sensor_and_a_dark_slot_fail_by_name(tmp_path, mock_factory, capsys):
    person = Person(swap=(1, 2), dead=(5,), blind=(7,))
    status, out, _, _ = run(tmp_path, mock_factory, person, capsys, timeout=0.05)
    assert status == 1
    rows = {line.split("  ")[0]: line for line in out.splitlines() if "  " in line}
    assert "FAIL" in rows["slot 1 button"]
    assert (
        "no press within 0.05 s; instead slot 2's button answered (wires swapped?)"
        in rows["slot 1 button"]
    )
    assert "BCM 4 (header pin 7)" in rows["slot 1 button"]
    assert "FAIL" in rows["slot 5 marker on"] and "BCM 16" in rows["slot 5 marker on"]
    assert "no marker within 0.05 s" in rows["slot 5 marker on"]
    assert "FAIL" in rows["slot 5 marker off"]  # the sensor never changed at all
    assert "FAIL" in rows["slot 7 lights"] and "not seen" in rows["slot 7 lights"]
    assert "PASS" in rows["slot 3 button"]
    assert out.splitlines()[-1].endswith("failed") and "0 failed" not in out.splitlines()[-1]


def test_the_walkthrough_ignores_edges_it_did_not_ask_for():
    lit, played = [], []
    steps = plan(Wiring("gpio", load(None)["pins"], "default"), slots=2, sounds=("choo",))
    walk = Walkthrough(steps, lit.append, played.append)
    walk.feed(ButtonChanged(1, False, 0.0))  # a release without a press
    walk.feed(MarkerChanged(1, True, 0.0))  # a marker while a button is asked
    assert walk.current() == steps[0] and walk.results == []
    walk.feed(ButtonChanged(1, True, 0.1))
    walk.feed(ButtonChanged(1, False, 0.2))
    assert walk.results[0].passed and walk.current() == steps[1]
    walk.answer(True)  # not a question: ignored
    assert len(walk.results) == 1
    walk.skip()
    assert walk.results[1].detail == "skipped" and not walk.results[1].passed
    status = walk.status()
    assert status["step"]["part"] == "centre button" and status["steps"] == len(steps)
    assert status["results"][1] == {
        "kind": "button",
        "slot": 2,
        "sound": "",
        "part": "slot 2 button",
        "pin": "BCM 17 (header pin 11)",
        "passed": False,
        "detail": "skipped",
        "outcome": "skipped",
        "seconds": None,
        "strays": [],
    }


def test_the_table_counts(tmp_path):
    steps = plan(Wiring("gpio", load(None)["pins"], "default"), slots=1, centre=False, sounds=())
    walk = Walkthrough(steps, print, print)
    for _ in steps:
        walk.skip()
    text = table(walk.results)
    assert text.splitlines()[0].split() == ["part", "pin", "result", "detail"]
    assert text.splitlines()[-1] == f"0 passed, {len(steps)} failed"


@pytest.mark.parametrize(
    "backend, pin", [("gpio", "BCM 4 (header pin 7)"), ("serial", "Pico GP2 (pin 4)")]
)
def test_the_pins_are_named_as_wired(backend, pin):
    steps = plan(Wiring(backend, load(None)["pins"], "default"))
    assert steps[0].pin == pin
    centre = next(s for s in steps if s.part == "centre button")
    assert centre.pin == ("BCM 10 (header pin 19)" if backend == "gpio" else "Pico GP18 (pin 24)")


def test_the_command_without_a_person_fails_each_input_by_name(tmp_path, monkeypatch, capsys):
    from hub.cli.main import main

    monkeypatch.setattr("builtins.input", partial(_answer, "y"))
    status = main(
        [
            "selftest",
            "--backend",
            "sim",
            "--state-dir",
            str(tmp_path),
            "--sound-device",
            "null",
            "--timeout",
            "0.01",
        ]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "FAIL: no press within 0.01 s" in out
    assert row(out, "slot 8 button").split()[3:9] == ["BCM", "26", "(header", "pin", "37)", "FAIL"]
    assert row(out, "sound out").split()[2:] == ["ALSA", "device", "'null'", "PASS", "confirmed"]


def row(out: str, part: str) -> str:
    """The table's row of ``part``."""
    return next(line for line in out.splitlines() if line.startswith(part + "  "))


def _answer(reply: str, prompt: str = "") -> str:
    return reply


def test_inputs_active_before_the_test_fail_at_once_by_name(tmp_path, mock_factory, capsys):
    """The up-front level check: a stuck button or a marker left on is named before the
    first step, and its steps fail at once instead of each waiting out its time (with
    a 60 s wait per step this test would take minutes without it)."""
    person = Person(lets_go=(2,))
    held = [("button", 3), ("marker", 5), ("button", 2)]
    status, out, _, _ = run(tmp_path, mock_factory, person, capsys, timeout=60.0, held=held)
    assert status == 1
    assert "Input levels: these read active before anything was pressed or put on:" in out
    assert "  slot 3 button (BCM 27 (header pin 13)): reads pressed (stuck, or shorted" in out
    assert "  slot 5 marker (BCM 16 (header pin 36)): reads a marker (one left on" in out
    assert "reads pressed since the start, before any press: stuck" in row(out, "slot 3 button")
    assert "reads a marker since the start: one left on" in row(out, "slot 5 marker on")
    assert "never a change: a stuck sensor" in row(out, "slot 5 marker off")
    assert "PASS" in row(out, "slot 2 button")  # let go before its step: asked as usual
    assert not any("slot 3 button" in prompt for prompt in person.prompts)
    assert out.splitlines()[-1] == f"{8 + 1 + 16 + 8 + len(SOUND_NAMES) + 1 - 3} passed, 3 failed"


def test_every_input_released_is_said_up_front(tmp_path, mock_factory, capsys):
    _, out, _, _ = run(tmp_path, mock_factory, Person(), capsys)
    assert "Input levels: every button released, no marker on." in out


def test_without_a_pico_the_lights_are_not_asked_about(tmp_path, mock_factory, capsys):
    person = Person()
    status, out, sound, _ = run(tmp_path, mock_factory, person, capsys, ring=False)
    assert status == 0
    assert "No Pico drives a ring here" in out
    assert not any("lights" in prompt for prompt in person.prompts)
    assert not any(line.startswith("slot 1 lights") for line in out.splitlines())
    assert out.splitlines()[-1] == f"{8 + 1 + 16 + len(SOUND_NAMES) + 1} passed, 0 failed"


def _said_in_english(result) -> str:
    """A result as the page words it (selftest.js), from the English catalog."""
    from hub.wire import i18n

    seconds = "" if result.seconds is None else f"{result.seconds:g}"
    said = i18n.text("en", f"selftest.outcome.{result.outcome}", seconds=seconds)
    if not result.strays:
        return said
    keys = {"button": "selftest.stray.button", "sensor": "selftest.stray.sensor"}
    strays = ", ".join(
        i18n.text("en", "selftest.stray.centre" if slot == 0 else keys[kind], slot=slot)
        for kind, slot in result.strays
    )
    return i18n.text("en", "selftest.instead", detail=said, strays=strays)


def test_every_outcome_has_the_pages_words_and_they_are_the_hubs_in_english():
    """Issue 23: the page says how each step went from the catalog (a Spanish page
    shows no English detail); in English the words are the terminal's, word for word."""
    from hub.selftest.walkthrough import OUTCOMES

    wiring = Wiring("gpio", load(None)["pins"], "default")
    steps = plan(wiring, slots=2, sounds=("choo",))
    walk = Walkthrough(steps, lambda slot: None, lambda name: None)
    walk.feed(ButtonChanged(1, True, 0.0))
    walk.feed(ButtonChanged(1, False, 0.1))  # slot 1: pressed
    walk.feed(ButtonChanged(1, True, 0.2))  # slot 2 asked: others answer instead
    walk.feed(ButtonChanged(0, True, 0.3))
    walk.feed(MarkerChanged(2, True, 0.4))
    walk.timeout(20)
    walk.skip()  # the centre
    walk.feed(MarkerChanged(1, True, 1.0))  # seen
    walk.timeout(20)  # marker 1 off: still reads
    walk.timeout(20)  # marker 2 on: none
    walk.feed(MarkerChanged(2, False, 2.0))  # gone
    walk.answer(True)  # light 1
    walk.answer(False)  # light 2
    walk.answer(False)  # the sound
    stuck = Walkthrough(
        plan(wiring, slots=1, centre=False, sounds=("choo",)),
        lambda slot: None,
        lambda name: None,
        stuck=[("button", 1), ("marker", 1)],
    )
    stuck.timeout(20)  # the light: no answer
    results = [*walk.results, *stuck.results]
    assert [r.outcome for r in walk.results] == [
        "pressed",
        "timeout_button",
        "skipped",
        "seen",
        "timeout_marker_off",
        "timeout_marker_on",
        "gone",
        "confirmed",
        "not_seen",
        "not_heard",
    ]
    assert walk.results[1].strays == (("button", 1), ("button", 0), ("sensor", 2))
    assert {r.outcome for r in results} == set(OUTCOMES)
    for result in results:
        assert _said_in_english(result) == result.detail, result
    status = walk.status()["results"][1]
    assert (status["outcome"], status["seconds"]) == ("timeout_button", 20)
    assert status["strays"][2] == {"input": "sensor", "slot": 2}

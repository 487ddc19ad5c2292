"""How long the voice takes to say a name, measured by the engine itself.

A name is rendered alone, in the voice's language, the way it is said in a sentence
(its spelling for the voice, if it has one), and the length of the PCM is how long it
speaks: no guess from the characters (espeak-ng reads "999999999999" as a long number
and "㍻" as a word, so a count of characters says little). Each (language, text) is
measured once; the last :data:`MEMO` are remembered. A name that speaks longer than
:data:`MOST_NAME_S` is refused (:func:`refusal`), so every sentence about it stays
under :data:`hub.voice.engine.MOST_SECONDS`. See docs/sound.md, "How long a name speaks".
"""

from __future__ import annotations

import array
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from hub.voice import engine
from scorer.errors import FieldError

log = logging.getLogger("hub.voice")

MOST_NAME_S = 3.0  # a long real name takes ~2 s ("Maria Guadalupe Hernández": 1.7 s)
MEMO = 256  # (language, text) measures remembered

Render = Callable[[str, str], "array.array[int]"]  # the engine's render(text, lang)


def refusal(field: str, name: str, seconds: float) -> FieldError:
    """Why ``name`` (as said) cannot be used: it takes ``seconds`` to say."""
    return FieldError(
        f"{field}: {name[:60]!r} takes {seconds:.1f} s to say (at most {MOST_NAME_S:g} s): "
        "give it a shorter spelling for the voice",
        field,
        code="name_speaks_long",
        name=name,
        seconds=round(seconds, 1),
        most=MOST_NAME_S,
    )


class SpeakingTime:
    """Measures names with ``render`` (:func:`hub.voice.engine.render`; a test may pass
    another) in the language ``lang()`` names. ``enabled()`` False measures nothing
    (the hub's sound or voice is off: nothing will be said)."""

    def __init__(
        self,
        render: Render = engine.render,
        lang: Callable[[], str] = lambda: "en",
        enabled: Callable[[], bool] = lambda: True,
    ) -> None:
        self.render = render
        self.lang = lang
        self.enabled = enabled
        self.measured = 0  # renders made to measure (the tests count them)
        self._memo: OrderedDict[tuple[str, str], float | None] = OrderedDict()
        self._lock = threading.Lock()

    def seconds(self, text: str, lang: str) -> float | None:
        """How long ``text`` speaks in ``lang``; None when the engine cannot say it."""
        key = (lang, text)
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return self._memo[key]
        took = self._measure(text, lang)
        with self._lock:
            self._memo[key] = took
            while len(self._memo) > MEMO:
                self._memo.popitem(last=False)
        return took

    def _measure(self, text: str, lang: str) -> float | None:
        self.measured += 1
        try:
            samples = self.render(text, lang)
        except engine.TooLong as exc:
            return exc.seconds
        except Exception as exc:  # no engine: nothing will be said, nothing to refuse
            log.debug("cannot measure %r: %s", text, exc)
            return None
        return len(samples) / engine.RATE

    def check(self, said: Iterable[tuple[str, str]], field: str) -> None:
        """Refuse (:func:`refusal`, a :class:`~scorer.errors.FieldError` naming
        ``field``) the first of ``said`` (shown name, text the engine is given) that
        speaks too long."""
        if not self.enabled():
            return
        lang = self.lang()
        for shown, text in said:
            took = self.seconds(text, lang)
            if took is not None and took > MOST_NAME_S:
                raise refusal(field, shown, took)

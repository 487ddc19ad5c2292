"""The voice's runtime side: words from the catalogs, PCM rendered ahead of time and
cached, one render thread.

:class:`Announcer` is built by the composition root, which hands it the catalogs' words
(``words(lang, key, **params)``: ``hub.wire.i18n.text``), the settings (voice mode,
language, spellings for the voice) and a way to name a finished game's winner.
``hub/voice`` never imports ``web/``.

On the loop thread :meth:`Announcer.announce` turns one change into :class:`Spoken`
sentences, each with its PCM when the cache has it. Everything a game can say is
rendered on the render thread when a game starts, when its players change, and when
the language or a spelling changes, so the PCM is ready before the press (whole
sentences: docs/sound.md, "The voice", says why). A sentence the cache lacks is
rendered at once on that thread and played when ready (``late``).
"""

from __future__ import annotations

import array
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hub.core.effects import Effect
from hub.core.state import Table
from hub.voice import engine
from hub.voice.phrases import Phrase, choose, every_phrase

log = logging.getLogger("hub.voice")

Words = Callable[..., str]  # words(lang, key, **params) -> the sentence
Render = Callable[[str, str], "array.array[int]"]  # render(text, lang) -> PCM
CACHE_BYTES = 8 * 1024 * 1024  # ~190 s of speech: every sentence of two 8-player games
GAP_FRAMES = 4410  # 0.2 s between two sentences said together


@dataclass(frozen=True)
class Spoken:
    """One sentence said: ``text`` as shown (the real name), in ``lang``; ``samples``
    when the cache had them (else None: it is being rendered)."""

    phrase: Phrase
    text: str
    lang: str
    samples: array.array[int] | None


class Cache:
    """PCM by (language, spoken text), least recently used dropped past ``budget`` bytes."""

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self.budget = budget
        self.used = 0
        self._items: OrderedDict[tuple[str, str], array.array[int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> array.array[int] | None:
        with self._lock:
            samples = self._items.get(key)
            if samples is not None:
                self._items.move_to_end(key)
            return samples

    def put(self, key: tuple[str, str], samples: array.array[int]) -> None:
        size = len(samples) * samples.itemsize
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.used -= len(old) * old.itemsize
            self._items[key] = samples
            self.used += size
            while self.used > self.budget and len(self._items) > 1:
                _, dropped = self._items.popitem(last=False)
                self.used -= len(dropped) * dropped.itemsize

    def __contains__(self, key: tuple[str, str]) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class Announcer:
    """What the hub says, and its PCM (see the module doc).

    ``mode()``, ``lang()`` and ``spellings()`` read the settings as they are now;
    ``winner(game_id)`` names a finished game's winner; ``render(text, lang)`` is the
    engine (:func:`hub.voice.engine.render`; tests may pass another);
    ``on_late(samples)`` plays a sentence that was rendered after it was asked for;
    ``renders`` False renders nothing, ahead or late (the hub's sound is switched off:
    the sentences are still chosen and logged, as not played);
    ``on_status(status)`` hears :meth:`status` when renders are queued and when the
    queue is empty again (on the render thread: it should only post to the loop).
    """

    def __init__(
        self,
        words: Words,
        mode: Callable[[], str],
        lang: Callable[[], str],
        spellings: Callable[[], Mapping[str, str]],
        *,
        winner: Callable[[int], str | None] | None = None,
        render: Render = engine.render,
        on_late: Callable[[array.array[int]], None] | None = None,
        cache: Cache | None = None,
        renders: bool = True,
        on_status: Callable[[dict[str, object]], None] | None = None,
    ) -> None:
        self.words = words
        self.mode = mode
        self.lang = lang
        self.spellings = spellings
        self.winner = winner
        self.render = render
        self.on_late = on_late
        self.renders = renders  # False: nothing is rendered (the hub's sound is off)
        self.on_status = on_status
        self.cache = cache or Cache()
        self.failures = 0
        self.problem: str | None = engine.available() if render is engine.render else None
        self._prepared: tuple[object, ...] | None = None
        self._seen: tuple[object, str] | None = None  # (players, lang) _prepared was for
        # (lang, phrase) -> (words shown, words spoken), for the spellings of _prepared
        self._words: dict[tuple[str, Phrase], tuple[str, str]] = {}
        # (lang, phrase) -> the sentence with its PCM, once the cache had it: a press's
        # sentence is one lookup (these hold their PCM until the players, the language
        # or a spelling change, even past the cache's budget: one game's sentences)
        self._ready: dict[tuple[str, Phrase], Spoken] = {}
        self._queue: list[tuple[str, str, bool]] = []  # (lang, spoken text, play when done)
        self._cond = threading.Condition()
        self._busy = False
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="voice-render", daemon=True)
        self._thread.start()

    # -- the loop thread ----------------------------------------------------------

    def announce(self, effects: Sequence[Effect], table: Table) -> list[Spoken]:
        """The sentences for one change (``table`` after it), each with its PCM when
        cached; renders ahead whatever a new game, name or language needs."""
        mode = self.mode()
        if mode == "off":
            return []
        lang = self.lang()
        game = table.game
        if game is not None and self._seen != (game.players, lang):
            self.prepare(table, lang)  # a new game or language (a spelling: prepare is called)
        spoken = []
        ready = self._ready
        for phrase in choose(effects, table, mode, self.winner):
            said = ready.get((lang, phrase))
            if said is None:
                said = self._spoken(phrase, lang)
            spoken.append(said)
        return spoken

    def _spoken(self, phrase: Phrase, lang: str) -> Spoken:
        """``phrase`` in ``lang`` with its PCM if the cache has it (then kept ready)."""
        words = self._words.get((lang, phrase))
        if words is None:
            words = self._words[lang, phrase] = (
                self.words(lang, phrase.key, **dict(phrase.params)),
                self.spoken_text(phrase, lang),
            )
        said = Spoken(phrase, words[0], lang, self.cache.get((lang, words[1])))
        if said.samples is not None:
            self._ready[lang, phrase] = said
        return said

    def spoken_text(self, phrase: Phrase, lang: str) -> str:
        """The sentence as the engine is given it: names replaced by their spellings."""
        names = self.spellings()
        params = {k: names.get(v, v) if k == "name" else v for k, v in phrase.params}
        return self.words(lang, phrase.key, **params)

    def prepare(self, table: Table, lang: str | None = None) -> None:
        """Queue the renders a game with ``table``'s players needs (only when its
        players, the language or the spellings changed since the last call).

        :meth:`announce` calls this when the players or the language changed; whoever
        changes a spelling calls it (the hub does on every settings change)."""
        game = table.game
        if game is None or not self.renders or self.mode() == "off":
            return
        lang = lang or self.lang()
        key = (game.players, lang, tuple(self.spellings().items()))
        self._seen = (game.players, lang)
        if key == self._prepared:
            return
        self._prepared = key
        self._words = {}  # a spelling may have changed
        self._ready = {}
        wanted = [self.spoken_text(p, lang) for p in every_phrase(game.players)]
        with self._cond:
            queued = {(q[0], q[1]) for q in self._queue}
            for text in wanted:
                if (lang, text) not in self.cache and (lang, text) not in queued:
                    self._queue.append((lang, text, False))
                    queued.add((lang, text))
            self._cond.notify()
        self._tell()

    def render_late(self, spoken: Spoken) -> None:
        """Render ``spoken`` before anything else queued, and play it when done."""
        text = self.spoken_text(spoken.phrase, spoken.lang)
        with self._cond:
            self._queue.insert(0, (spoken.lang, text, True))
            self._cond.notify()

    def wait_ready(self, timeout: float = 30.0) -> bool:
        """Block until every queued render is done (tests, the CLI, the bench)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def close(self) -> None:
        """Stop the render thread (a render under way finishes first)."""
        with self._cond:
            self._closing = True
            self._queue.clear()
            self._cond.notify_all()
        self._thread.join(timeout=5.0)

    def status(self) -> dict[str, object]:
        """``{"available": bool, "reason": str | None, "cached": n, "pending": n}`` for
        the snapshot: sentences in the cache, and renders still to do."""
        with self._cond:
            pending = len(self._queue) + self._busy
        return {
            "available": self.problem is None,
            "reason": self.problem,
            "cached": len(self.cache),
            "pending": pending,
        }

    def _tell(self) -> None:
        if self.on_status is not None:
            try:
                self.on_status(self.status())
            except Exception:  # a listener's failure must not stop the voice
                log.exception("voice status listener failed")

    # -- the render thread --------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._closing)
                if self._closing:
                    return
                lang, text, play = self._queue.pop(0)
                self._busy = True
            try:
                self._render_one(lang, text, play)
            finally:
                with self._cond:
                    self._busy = False
                    done = not self._queue
                    self._cond.notify_all()
            if done:
                self._tell()

    def _render_one(self, lang: str, text: str, play: bool) -> None:
        samples = self.cache.get((lang, text))
        if samples is None:
            try:
                samples = self.render(text, lang)
            except Exception as exc:  # a missing or failing engine costs the voice only
                self.failures += 1
                if self.problem is None or self.failures == 1:
                    log.warning("the voice cannot say %r: %s", text, exc)
                self.problem = str(exc)
                return
            self.problem = None
            self.cache.put((lang, text), samples)
        if play and self.on_late is not None:
            self.on_late(samples)


def joined(parts: Sequence[array.array[int]], lead_frames: int = 0) -> array.array[int]:
    """One utterance: ``lead_frames`` of silence, then the parts with a short gap.
    (The dispatcher hands the player its lead apart, :meth:`SoundPlayer.say`: a
    sentence alone then stays the very array the voice's cache holds, whose copy at
    the volume the player keeps.)"""
    if len(parts) == 1 and not lead_frames:
        return parts[0]  # the usual case, on the press's path: no copy
    out = array.array("h", bytes(2 * lead_frames))
    gap = array.array("h", bytes(2 * GAP_FRAMES))
    for i, part in enumerate(parts):
        if i:
            out += gap
        out += part
    return out

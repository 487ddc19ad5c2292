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
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hub.core.effects import Effect
from hub.core.state import Table
from hub.voice import engine
from hub.voice.lengths import SpeakingTime
from hub.voice.phrases import Phrase, choose, every_phrase

log = logging.getLogger("hub.voice")

Words = Callable[..., str]  # words(lang, key, **params) -> the sentence
Render = Callable[[str, str], "array.array[int]"]  # render(text, lang) -> PCM
CACHE_BYTES = 8 * 1024 * 1024  # ~190 s of speech: every sentence of two 8-player games
GAP_FRAMES = 4410  # 0.2 s between two sentences said together
MOST_LATE = 4  # sentences waiting to be said late (a press's; older ones are dropped)
SETTLE_S = 1.0  # a changed spelling is rendered ahead once no newer one came for this long


@dataclass(frozen=True)
class Spoken:
    """One sentence said: ``text`` as shown (the real name), in ``lang``; ``samples``
    when the cache had them (else None: it is being rendered)."""

    phrase: Phrase
    text: str
    lang: str
    samples: array.array[int] | None


class Cache:
    """PCM by (language, spoken text), least recently used dropped past ``budget`` bytes.

    The sentences of the game on the table are kept (:meth:`keep`): only the others
    are dropped, so a game's sentences are never pushed out by another spelling's or
    game's; the cache then holds at most ``budget`` bytes or that one game's sentences,
    whichever is more (each sentence is bounded: :data:`hub.voice.engine.MOST_SECONDS`).
    """

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self.budget = budget
        self.used = 0
        self._items: OrderedDict[tuple[str, str], array.array[int]] = OrderedDict()
        self._kept: frozenset[tuple[str, str]] = frozenset()
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
            self._shrink()

    def keep(self, keys: frozenset[tuple[str, str]]) -> None:
        """Never drop ``keys`` (the game on the table's sentences) to make room; the
        ones kept before may go again."""
        with self._lock:
            self._kept = keys
            self._shrink()

    def _shrink(self) -> None:
        if self.used <= self.budget:
            return
        for key in [k for k in self._items if k not in self._kept]:  # oldest first
            dropped = self._items.pop(key)
            self.used -= len(dropped) * dropped.itemsize
            if self.used <= self.budget:
                return

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
    queue is empty again (on the render thread: it should only post to the loop);
    ``settle_s``: a changed spelling's sentences are rendered once no newer change
    came for this long (a burst of changes costs one change's renders).
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
        settle_s: float = SETTLE_S,
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
        self.settle_s = settle_s
        self.cache = cache if cache is not None else Cache()  # an empty one is falsy
        # how long a name speaks, measured by the same engine (nothing when it renders nothing)
        self.timing = SpeakingTime(render, lang, enabled=lambda: self.renders)
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
        # The render thread's work, both bounded: sentences asked for and not ready (the
        # newest few), then the game's ahead of time (each prepare replaces the list).
        self._late: deque[tuple[str, str]] = deque()  # (lang, spoken text)
        self._ahead: list[tuple[str, str]] = []
        self._not_before = 0.0  # monotonic time before which _ahead waits (a spelling's)
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

    def check_players(self, players: Sequence[str]) -> None:
        """Refuse (:func:`hub.voice.lengths.refusal`) a new game whose player's name
        (its spelling, if it has one) speaks too long, when the voice speaks."""
        if self.mode() == "off":
            return
        names = self.spellings()
        self.timing.check([(name, names.get(name, name)) for name in players], "players")

    def check_spellings(self, spellings: Mapping[str, str], before: Mapping[str, str]) -> None:
        """Refuse a change of ``spoken_names`` whose new spelling speaks too long."""
        new = [(said, said) for name, said in spellings.items() if before.get(name) != said]
        self.timing.check(new, "spoken_names")

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
        # only a spelling changed: wait for it to settle (a burst of changes renders once)
        respelled = self._prepared is not None and self._prepared[:2] == key[:2]
        self._prepared = key
        self._words = {}  # a spelling may have changed
        self._ready = {}
        # dict: each sentence once, in every_phrase's order (the turns first)
        wanted = dict.fromkeys(
            (lang, self.spoken_text(p, lang)) for p in every_phrase(game.players)
        )
        self.cache.keep(frozenset(wanted))
        with self._cond:
            # only the newest spellings are rendered: what an older change queued goes
            self._ahead = [key for key in wanted if key not in self.cache]
            self._not_before = time.monotonic() + self.settle_s if respelled else 0.0
            self._cond.notify()
        self._tell()

    def render_late(self, spoken: Spoken) -> None:
        """Render ``spoken`` before anything else queued, and play it when done."""
        key = (spoken.lang, self.spoken_text(spoken.phrase, spoken.lang))
        with self._cond:
            if key not in self._late:
                self._late.append(key)
                while len(self._late) > MOST_LATE:  # said any later, it is news no more
                    self._late.popleft()
            self._cond.notify()

    def wait_ready(self, timeout: float = 30.0) -> bool:
        """Block until every queued render is done (tests, the CLI, the bench)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending(), timeout)

    def close(self) -> None:
        """Stop the render thread (a render under way finishes first)."""
        with self._cond:
            self._closing = True
            self._late.clear()
            self._ahead = []
            self._cond.notify_all()
        self._thread.join(timeout=5.0)

    def status(self) -> dict[str, object]:
        """``{"available": bool, "reason": str | None, "cached": n, "pending": n}`` for
        the snapshot: sentences in the cache, and renders still to do."""
        with self._cond:
            pending = self._pending()
        return {
            "available": self.problem is None,
            "reason": self.problem,
            "cached": len(self.cache),
            "pending": pending,
        }

    def _pending(self) -> int:
        """Renders still to do (the caller holds ``_cond``)."""
        return len(self._late) + len(self._ahead) + self._busy

    def _tell(self) -> None:
        if self.on_status is not None:
            try:
                self.on_status(self.status())
            except Exception:  # a listener's failure must not stop the voice
                log.exception("voice status listener failed")

    # -- the render thread --------------------------------------------------------

    def _take(self) -> tuple[str, str, bool] | None:
        """The next render (lang, text, play when done), waiting for one; None when
        closing. A late sentence first; the game's, once a spelling has settled."""
        with self._cond:
            while not self._closing:
                if self._late:
                    lang, text = self._late.popleft()
                    self._busy = True
                    return lang, text, True
                wait = self._not_before - time.monotonic() if self._ahead else None
                if wait is not None and wait <= 0:
                    lang, text = self._ahead.pop(0)
                    self._busy = True
                    return lang, text, False
                self._cond.wait(wait)
            return None

    def _run(self) -> None:
        while True:
            taken = self._take()
            if taken is None:
                return
            lang, text, play = taken
            try:
                self._render_one(lang, text, play)
            finally:
                with self._cond:
                    self._busy = False
                    done = not self._pending()
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

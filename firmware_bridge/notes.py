"""The serial link's warnings, rate-limited: a box (or a line) that sends 20,000 bad
frames in three seconds gives two log lines, the first of them and a count of the
rest, not 20,000. Each kind of warning is logged at once the first time, then held
back for ``WINDOW_S``; what was held back is counted and told when the window ends.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

WINDOW_S = 10.0
KEPT = 20  # the newest warnings, for the self-test and the page


@dataclass
class _Held:
    until: float
    count: int = 0
    last: str = ""


class Notes:
    """Warnings to ``log``, each ``kind`` at most once per window, with a count."""

    def __init__(self, log: logging.Logger, window: float = WINDOW_S) -> None:
        self.log = log
        self.window = window
        self.recent: list[str] = []  # the newest warnings, logged or held back
        self._held: dict[str, _Held] = {}

    def note(self, kind: str, message: str, now: float) -> None:
        """Warn ``message`` (of ``kind``) at hub time ``now``, unless one of its kind
        was logged less than a window ago: then it is counted."""
        self.recent.append(message)
        del self.recent[:-KEPT]
        held = self._held.get(kind)
        if held is not None and now < held.until:
            held.count += 1
            held.last = message
            return
        if held is not None:
            self._tell(held)
        self._held[kind] = _Held(now + self.window)
        self.log.warning("serial: %s", message)

    def flush(self, now: float) -> None:
        """Tell the counts of the windows that have ended by ``now``."""
        for kind, held in list(self._held.items()):
            if now >= held.until:
                self._tell(held)
                del self._held[kind]

    def _tell(self, held: _Held) -> None:
        if held.count:
            self.log.warning(
                "serial: %d more like that in %g s (the last: %s)",
                held.count,
                self.window,
                held.last,
            )

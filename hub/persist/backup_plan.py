"""When the hub backs the game database up, and which backups it keeps (docs/storage.md,
"Backups"): pure rules, on times and names handed in.

**Pacing.** A backup is asked for whenever a game finishes or a finished game is
corrected, which a phone can do again and again; each one copies the whole database
onto the SD card. So a backup is taken at most once every ``rest_s`` seconds: one asked
for during the rest is kept (the newest reason wins) and taken when the rest ends, so
the newest state is always backed up, a few minutes late at worst. With nothing asked,
one is taken ``every_s`` after the last (daily).

**Keeping.** The newest ``copies`` backups, and the newest backup of each of the
``days`` most recent earlier days that have one (UTC days, read from the name
``games-<YYYYmmdd>-<HHMMSS>-<reason>.db``; earlier than the newest backup's day, which
the copies hold). A flood of backups on one day can then rotate out that day's
earlier copies only, never an earlier evening's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

REST_S = 300.0  # at most one backup every five minutes
DAY_S = 24 * 3600.0
KEEP_COPIES = 7
KEEP_DAYS = 7


def day_of(backup: Path) -> str | None:
    """The UTC day (``YYYYmmdd``) a backup was taken, from its name; None if unnamed."""
    name = backup.name  # games-<YYYYmmdd>-…
    day = name[6:14]
    return day if name.startswith("games-") and day.isdigit() and name[14:15] == "-" else None


def kept(backups: Sequence[Path], copies: int = KEEP_COPIES, days: int = KEEP_DAYS) -> set[Path]:
    """Which of ``backups`` (newest first) to keep: the newest ``copies``, and the
    newest of each of the ``days`` most recent days before the newest one's."""
    keep = set(backups[:copies])
    newest = day_of(backups[0]) if backups else None
    seen: set[str] = set()
    for backup in backups:
        day = day_of(backup)
        if day is None or day == newest or day in seen:
            continue
        if len(seen) == days:
            break
        seen.add(day)
        keep.add(backup)
    return keep


class Pacing:
    """When the next backup is due (not thread-safe: its owner holds a lock). Times
    are monotonic seconds, handed in."""

    def __init__(self, now: float, rest_s: float = REST_S, every_s: float = DAY_S) -> None:
        self.rest_s = rest_s
        self.every_s = every_s
        self.asked: str | None = None  # the newest reason asked for, not yet taken
        self._last: float | None = None  # when the last backup was started
        self._daily_at = now + every_s

    def ask(self, reason: str) -> None:
        """A backup is wanted (a game finished or was corrected)."""
        self.asked = reason

    def due(self, now: float) -> str | None:
        """The reason of the backup to take at ``now`` (counted as started), or None."""
        resting = self._last is not None and now < self._last + self.rest_s
        if self.asked is not None and not resting:
            reason, self.asked = self.asked, None
        elif now >= self._daily_at:
            reason = "daily"
        else:
            return None
        self._last = now
        self._daily_at = now + self.every_s
        return reason

    def next_at(self) -> float:
        """When :meth:`due` may next answer a reason (unless asked meanwhile)."""
        if self.asked is None:
            return self._daily_at
        return 0.0 if self._last is None else min(self._daily_at, self._last + self.rest_s)

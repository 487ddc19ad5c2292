"""The state folder and the game database: checked before the hub opens them, backed up
while it runs, restored by hand.

A damaged, emptied or missing database (while the backups or the table's journal say
games existed) is never started over silently and never deleted: :func:`check_storage`
raises :class:`StorageProblem`, which says what is wrong and what to do; ``mtrain-hub
run`` prints it, logs it, shows it on the page and exits with status 3
(``hub.cli.EXIT_STORAGE``, the unit's ``RestartPreventExitStatus``). Backups use
SQLite's online backup API, so they are consistent while the hub writes.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from hub.persist.backup_plan import DAY_S, KEEP_COPIES, KEEP_DAYS, REST_S, Pacing, kept
from hub.runtime.config import ConfigError

log = logging.getLogger("hub.persist.storage")

DB_NAME = "games.db"
BACKUP_DIR = "backups"
SQLITE_HEADER = b"SQLite format 3\x00"


class StorageProblem(Exception):
    """The state folder or the database cannot be used as it is: what, where, what to do."""

    def __init__(self, path: Path, problem: str, remedy: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem
        self.remedy = remedy

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}. What to do: {self.remedy}"

    def as_json(self) -> dict[str, str]:
        """The problem as the page shows it."""
        return {"path": str(self.path), "problem": self.problem, "remedy": self.remedy}


def _stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")


def restore_hint(state_dir: Path) -> str:
    """The restore command for ``state_dir``."""
    return (
        f"stop the hub, then run 'mtrain-hub restore --state-dir {state_dir}' to list "
        "the backups and 'mtrain-hub restore --state-dir ... FILE' to put one back "
        "(the current file is kept beside it, never deleted)"
    )


# The files the hub makes in its state folder (each also with a suffix: ``-wal``,
# ``.tmp``, ...); only these, and the backups, are ever made private.
OWN_FILES = ("games.db", "settings.json", "table.journal", "hub.lock")


def _own(state_dir: Path) -> list[Path]:
    found = [p for p in state_dir.iterdir() if p.name.startswith(OWN_FILES)]
    backups = state_dir / BACKUP_DIR
    if backups.is_dir() and not backups.is_symlink():
        found.append(backups)
        found.extend(p for p in backups.iterdir() if p.name.startswith("games-"))
    return found


def make_private(state_dir: Path) -> None:
    """Take away other users' access to the state folder and the hub's own files in
    it (files an older hub made readable by all: games, settings, journal, backups);
    a file the hub did not make keeps its mode. Files the hub makes from now on are
    private anyway: ``run`` sets the umask 077."""
    for path in (state_dir, *_own(state_dir)):
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & 0o077:
            with contextlib.suppress(OSError):  # not ours to change: the check says so
                path.chmod(stat.S_IMODE(mode) & 0o700)


def _probe(state_dir: Path) -> None:
    """Write a block in ``state_dir`` and sync it (an empty file needs no room: a full
    disk would pass); OSError if the disk refuses."""
    fd, name = tempfile.mkstemp(dir=state_dir, prefix=".write-test-")
    try:
        os.write(fd, b"\0" * 4096)
        os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(name)


def check_state_dir(state_dir: Path) -> None:
    """Make the state folder (owner only) if it is missing, then prove it is writable;
    a state folder that is a file is a :class:`~hub.config.ConfigError`."""
    if state_dir.exists() and not state_dir.is_dir():  # a mistake in the config
        raise ConfigError(f"hub.state_dir: {state_dir} is a file, not a folder")
    try:
        state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        make_private(state_dir)
        _probe(state_dir)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise StorageProblem(
                state_dir, "the disk holding the state folder is full", FULL_REMEDY
            ) from None
        raise StorageProblem(
            state_dir,
            f"the state folder cannot be written ({exc.strerror or exc})",
            "check that the disk is mounted read-write and not full, and that the hub's "
            "user owns the folder",
        ) from None


FULL_REMEDY = (
    "free space on that disk (old logs, the backups folder's oldest files), then start "
    "the hub again; the games are not damaged"
)


def _disk_full(folder: Path) -> bool:
    """True when the disk holding ``folder`` has no block left for the hub's user."""
    try:
        return os.statvfs(folder).f_bavail == 0
    except OSError:
        return False


def _integrity(db: Path) -> str:
    """SQLite's quick check of ``db``: ``ok`` or what it found."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    found = [str(r[0]) for r in rows]
    return "ok" if found == ["ok"] else "; ".join(found[:3])


def journal_game(journal: Path) -> int | None:
    """The id of the game the table's journal was in (its checkpoint), or None: no
    journal, no game in it, or a checkpoint that does not decode (replay says so)."""
    from hub.persist.codec import CodecError, decode_table
    from hub.persist.journal import FileJournal

    try:
        records = FileJournal(journal).load()
        table = decode_table(records[0].get("table")) if records else None
    except (OSError, CodecError):
        return None
    return table.game.id if table is not None and table.game is not None else None


def check_database(db: Path, backups: Backups, journal: Path | None = None) -> None:
    """Refuse a database that is damaged, or emptied or missing while the backups or
    the table's ``journal`` say games existed."""
    hint = restore_hint(db.parent)
    latest = backups.latest()
    if not db.exists() or db.stat().st_size == 0:
        state = "missing" if not db.exists() else "empty"
        if latest is not None:
            raise StorageProblem(
                db,
                f"the game database is {state}, but backups of "
                f"earlier games exist (newest: {latest.name})",
                f"{hint}; or, to start afresh, move the folder {backups.folder} away",
            )
        game = journal_game(journal) if journal is not None else None
        if game is not None and journal is not None:
            raise StorageProblem(
                db,
                f"the game database is {state}, but the table's journal ({journal.name}) "
                f"holds game {game}",
                f"put the database back (a copy of {db.name} from elsewhere, or "
                f"'mtrain-hub restore'); or, to start afresh and lose game {game}, move "
                f"{journal} away",
            )
        return
    with open(db, "rb") as f:
        header = f.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise StorageProblem(db, "the game database is damaged: its header is not SQLite's", hint)
    found = _integrity(db)
    if found != "ok" and _disk_full(db.parent):  # SQLite says "disk I/O error" then
        raise StorageProblem(db, f"the disk holding it is full ({found})", FULL_REMEDY)
    if found != "ok":
        raise StorageProblem(db, f"the game database is damaged: {found}", hint)


def check_storage(state_dir: Path, keep: int = KEEP_COPIES) -> Backups:
    """Check the folder and the database before the hub opens them; their backups."""
    check_state_dir(state_dir)
    from hub.persist.journal import FILE_NAME

    backups = Backups(state_dir / BACKUP_DIR, keep)
    check_database(state_dir / DB_NAME, backups, state_dir / FILE_NAME)
    return backups


class Backups:
    """Copies of the game database in ``folder``, by SQLite's backup API (consistent
    while the hub writes), named ``games-<UTC time>-<reason>.db``: the newest ``keep``
    and the newest of each of the ``keep_days`` latest days
    (:func:`hub.persist.backup_plan.kept`)."""

    def __init__(self, folder: Path, keep: int = KEEP_COPIES, keep_days: int = KEEP_DAYS) -> None:
        self.folder = folder
        self.keep = keep
        self.keep_days = keep_days

    def list(self) -> list[Path]:
        """The backups, newest first."""
        if not self.folder.is_dir():
            return []
        return sorted(self.folder.glob("games-*.db"), key=lambda p: p.name, reverse=True)

    def latest(self) -> Path | None:
        """The newest backup, or None."""
        found = self.list()
        return found[0] if found else None

    def take(self, db: Path, reason: str, now: datetime | None = None) -> Path:
        """Copy ``db`` into a new backup, drop the ones no longer kept; its path."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = self.folder / f"games-{_stamp(now)}-{reason}.db"
        _copy_db(db, target)
        found = self.list()
        keep = kept(found, self.keep, self.keep_days)
        for old in found:
            if old not in keep:
                old.unlink()
        return target

    def restore(self, backup: Path, db: Path) -> Path | None:
        """Put ``backup`` back as ``db``; the file it replaces is kept beside it (its
        new path is returned, None when there was none). The hub must be stopped."""
        found = _integrity(backup)
        if found != "ok":
            raise StorageProblem(
                backup, f"this backup is damaged too: {found}", "choose another backup"
            )
        kept = None
        if db.exists():
            kept = db.with_name(f"{db.name}.replaced-{_stamp()}")
            os.replace(db, kept)
        for suffix in ("-wal", "-shm"):
            side = db.with_name(db.name + suffix)
            if side.exists():
                os.replace(side, side.with_name(f"{side.name}.replaced-{_stamp()}"))
        _copy_db(backup, db)
        return kept


def _copy_db(source: Path, target: Path) -> None:
    """Copy an SQLite database with the backup API into ``target`` (atomically)."""
    tmp = target.with_name(target.name + ".part")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
    os.chmod(tmp, 0o600)
    os.replace(tmp, target)


class BackupService:
    """Takes a backup when asked (:meth:`request`: a game finished or was corrected)
    and once a day, on its own thread: the loop thread and the requests never wait
    for the copy. Paced (:class:`hub.persist.backup_plan.Pacing`): at most one every
    ``rest_s`` seconds; one asked for meanwhile is taken when the rest ends, or at
    :meth:`stop`. ``clock``: monotonic seconds."""

    def __init__(
        self,
        backups: Backups,
        db: Path,
        every_s: float = DAY_S,
        on_error: Callable[[str], None] | None = None,
        rest_s: float = REST_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._backups = backups
        self._db = db
        self._on_error = on_error
        self._clock = clock
        self._pacing = Pacing(clock(), rest_s, every_s)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the backup thread."""
        self._thread = threading.Thread(target=self._run, name="backups", daemon=True)
        self._thread.start()

    def request(self, reason: str) -> None:
        """Ask for a backup (now, or when the rest after the last one ends)."""
        with self._lock:
            self._pacing.ask(reason)
        self._wake.set()

    def stop(self) -> None:
        """Stop the thread (a backup under way, or one asked for, is taken first)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                now = self._clock()
                reason = self._pacing.due(now)
                wait = max(0.0, self._pacing.next_at() - now)
            if reason is not None:
                self.take(reason)
            else:
                self._wake.wait(wait)
                self._wake.clear()
        with self._lock:
            pending, self._pacing.asked = self._pacing.asked, None
        if pending is not None:  # asked during the rest: not lost at a stop
            self.take(pending)

    def take(self, reason: str) -> Path | None:
        """One backup now, on the calling thread; failures are logged, never raised."""
        if not self._db.exists():
            return None
        try:
            path = self._backups.take(self._db, reason)
        except (OSError, sqlite3.Error) as exc:
            log.error("backup of %s failed: %s", self._db, exc)
            if self._on_error is not None:
                self._on_error(str(exc))
            return None
        log.info("backup: %s", path)
        return path


LOCK_NAME = "hub.lock"


def lock_state_dir(state_dir: Path) -> int | None:
    """Hold the state folder's lock for this process (a running hub does); the open
    descriptor, or None when another process holds it. Released when the process ends."""
    import fcntl

    fd = os.open(state_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd

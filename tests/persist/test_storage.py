"""Storage faults: damaged, emptied or missing databases, unwritable or full disks,
backups and restore. Nothing is ever started over silently or deleted."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hub.cli import EXIT_STORAGE
from hub.persist.storage import (
    DB_NAME,
    Backups,
    BackupService,
    StorageProblem,
    check_storage,
    lock_state_dir,
)
from hub.runtime.config import ConfigError, load
from scorer.setup import check_setup
from scorer.store import GameStore, new_token
from tablesim.virtual import FakeClock, RecordingPlayer
from tests.helpers import eventually
from tests.http_client import HubProcess, call
from web import create_app

PLAYERS = ["Ann", "Bob", "Cy"]


def _game_db(state_dir: Path, games: int = 1) -> Path:
    """A database with ``games`` games in ``state_dir``."""
    state_dir.mkdir(parents=True, exist_ok=True)
    store = GameStore(state_dir / DB_NAME)
    for _ in range(games):
        store.create_game(check_setup({"players": PLAYERS}), token=new_token())
    store.close()
    return state_dir / DB_NAME


def _backed_up(state_dir: Path) -> Backups:
    backups = Backups(state_dir / "backups")
    backups.take(_game_db(state_dir), "test")
    return backups


def _need_root() -> None:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("these storage tests mount filesystems: CI runs them as root")
        pytest.skip("needs root to mount a small filesystem")


@contextlib.contextmanager
def _tmpfs(path: Path, size: str = "1m"):
    """A small tmpfs at ``path`` (a full or read-only disk on demand)."""
    _need_root()
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)], check=True
    )
    try:
        yield path
    finally:
        for _ in range(2):  # the read-only view (_remount_ro), then the tmpfs itself
            subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


def _remount_ro(path: Path) -> None:
    """``path`` read-only from now on: a read-only bind of it over itself. Remounting the
    tmpfs itself read-only failed once with "mount point is busy": it needs no file
    open for writing anywhere on it, and a child forked by another test's thread holds
    the process's descriptors until it execs. A bind has no writers of its own."""
    subprocess.run(["mount", "--bind", str(path), str(path)], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True)


def _fill(path: Path) -> None:
    """Fill the disk holding ``path`` to the last byte (again: what was freed since)."""
    fd = os.open(path / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (65536, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)


# --- checks before the hub opens anything -------------------------------------------


def test_an_emptied_database_with_backups_is_refused_and_kept(tmp_path):
    backups = _backed_up(tmp_path)
    (tmp_path / DB_NAME).write_bytes(b"")
    with pytest.raises(StorageProblem) as found:
        check_storage(tmp_path)
    text = str(found.value)
    assert str(tmp_path / DB_NAME) in text and "empty" in text and "mtrain-hub restore" in text
    assert (tmp_path / DB_NAME).exists() and backups.latest() is not None


def test_a_missing_database_with_backups_is_refused(tmp_path):
    _backed_up(tmp_path)
    (tmp_path / DB_NAME).unlink()
    with pytest.raises(StorageProblem, match="missing"):
        check_storage(tmp_path)


def test_a_first_start_with_nothing_is_fine(tmp_path):
    assert check_storage(tmp_path / "new").latest() is None


def test_a_damaged_header_is_refused_and_the_file_kept(tmp_path):
    db = _game_db(tmp_path)
    data = bytearray(db.read_bytes())
    data[:16] = b"not a database!!"
    db.write_bytes(bytes(data))
    with pytest.raises(StorageProblem, match="header") as found:
        check_storage(tmp_path)
    assert "restore" in found.value.remedy and db.read_bytes() == bytes(data)


def test_a_damaged_page_is_refused(tmp_path):
    db = _game_db(tmp_path, games=30)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    data[2 * page + 8 : 3 * page - 8] = os.urandom(page - 16)  # a b-tree page in the middle
    db.write_bytes(bytes(data))
    with pytest.raises(StorageProblem, match="damaged"):
        check_storage(tmp_path)


def test_a_state_dir_that_is_a_file_is_a_config_error(tmp_path):
    (tmp_path / "state").write_text("oops")
    with pytest.raises(ConfigError, match="hub.state_dir: .* is a file"):
        check_storage(tmp_path / "state")
    run = _cli("run", "--backend", "sim", "--port", "1", "--state-dir", str(tmp_path / "state"))
    assert run.returncode == 2 and "config error: hub.state_dir" in run.stderr
    assert "Traceback" not in run.stderr and (tmp_path / "state").read_text() == "oops"


def test_a_read_only_state_dir_is_refused(tmp_path):
    with _tmpfs(tmp_path / "ro") as disk:
        _game_db(disk)
        _remount_ro(disk)
        with pytest.raises(StorageProblem, match="cannot be written") as found:
            check_storage(disk)
        assert "read-write" in found.value.remedy


def test_a_missing_state_dir_that_cannot_be_made_is_refused(tmp_path):
    with _tmpfs(tmp_path / "ro") as disk:
        _remount_ro(disk)
        with pytest.raises(StorageProblem, match="cannot be written"):
            check_storage(disk / "state")


# --- the running hub ------------------------------------------------------------------


def _hub(state_dir: Path, mock_factory):
    from hub.app import Hub

    config = load(None, {"hub": {"backend": "sim", "state_dir": str(state_dir)}})
    hub = Hub(config, clock=FakeClock(), pin_factory=mock_factory, sound=RecordingPlayer())
    hub.start(threaded=False)
    return hub


def _tokens(client, body):
    return client.post("/api/games", json=body)


def test_a_full_disk_answers_503_and_changes_nothing(tmp_path, mock_factory):
    with _tmpfs(tmp_path / "disk", size="2m") as disk:
        hub = _hub(disk / "state", mock_factory)
        try:
            client = create_app(hub.web_service(), {"TESTING": True}).test_client()
            first = _tokens(client, {"players": PLAYERS}).get_json()
            before = (hub.loop.snapshot, hub.store.list_games(), dict(hub.settings.values))
            _fill(disk)
            r = client.post(
                f"/api/games/{first['id']}/rounds/1/scores",
                json={"points": {"Ann": 0, "Bob": 5, "Cy": 7}, "mid_round": True},
                headers={"Authorization": f"Bearer {first['token']}"},
            )
            assert r.status_code == 503 and r.get_json()["error"] == "storage"
            assert "full" in r.get_json()["params"]["reason"]
            # The failed write may give some pages back (SQLite's WAL, a journal file a
            # writer let go): a settings file fits in one, so the disk is filled again.
            _fill(disk)
            r = client.post("/api/settings", json={"volume": 0.2})
            assert r.status_code == 503 and r.get_json()["error"] == "storage"
            assert "settings.json" in r.get_json()["params"]["reason"]
            after = (hub.loop.snapshot, hub.store.list_games(), dict(hub.settings.values))
            assert after == before
        finally:
            hub.stop()


def test_a_finished_game_is_backed_up_on_the_backup_thread(tmp_path, mock_factory):
    hub = _hub(tmp_path / "state", mock_factory)
    try:
        client = create_app(hub.web_service(), {"TESTING": True}).test_client()
        game = _tokens(client, {"players": PLAYERS, "rounds": 1}).get_json()
        client.post(
            f"/api/games/{game['id']}/rounds/1/scores",
            json={"points": {"Ann": 0, "Bob": 5, "Cy": 7}, "mid_round": True},
            headers={"Authorization": f"Bearer {game['token']}"},
        )
        backups = Backups(tmp_path / "state" / "backups")
        latest = eventually(backups.latest, 10)
        assert latest is not None and latest.name.endswith(f"-game{game['id']}.db")
        restored = GameStore(latest)
        assert restored.get_game(game["id"])["winner"] == "Ann"
        restored.close()
    finally:
        hub.stop()


def test_backups_keep_the_newest_and_restore_keeps_the_replaced_file(tmp_path):
    db = _game_db(tmp_path)
    backups = Backups(tmp_path / "backups", keep=3)
    service = BackupService(backups, db)
    taken = [service.take(f"n{i}") for i in range(5)]
    assert all(taken) and len(backups.list()) <= 3
    db.write_bytes(b"garbage")
    kept = backups.restore(backups.list()[0], db)
    assert kept is not None and kept.read_bytes() == b"garbage"
    store = GameStore(db)
    assert len(store.list_games()) == 1
    store.close()


def test_a_damaged_backup_is_not_restored(tmp_path):
    backups = _backed_up(tmp_path)
    bad = backups.latest()
    assert bad is not None
    bad.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    with pytest.raises(StorageProblem, match="backup is damaged"):
        backups.restore(bad, tmp_path / DB_NAME)


# --- mtrain-hub run and restore, as processes -------------------------------------------


def _cli(*args: str, **kw):
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args], capture_output=True, text=True, timeout=60, **kw
    )


def test_run_on_a_damaged_database_shows_the_problem_and_exits_3(tmp_path):
    state = tmp_path / "state"
    db = _game_db(state)
    damaged = b"x" * 16 + db.read_bytes()[16:]
    db.write_bytes(damaged)
    hub = HubProcess(state)
    try:
        status, body = call(hub.base, "GET", "/api/state")
        assert status == 503 and body["error"] == "storage_problem"
        assert str(db) in body["message"] and "restore" in body["message"]
        with urllib_open(hub.base + "/") as page:
            assert "The hub cannot use its storage" in page and "mtrain-hub restore" in page
    finally:
        code = hub.stop(signal.SIGTERM)
    assert code == EXIT_STORAGE
    assert db.read_bytes() == damaged
    log = Path(str(state) + ".log").read_text()
    assert "storage problem" in log and "Traceback" not in log


def urllib_open(url: str):
    import urllib.error
    import urllib.request

    @contextlib.contextmanager
    def opened():
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                yield r.read().decode()
        except urllib.error.HTTPError as exc:
            yield exc.read().decode()

    return opened()


def test_restore_lists_refuses_while_a_hub_runs_then_puts_a_backup_back(tmp_path):
    state = tmp_path / "state"
    backups = _backed_up(state)
    (state / DB_NAME).write_bytes(b"")
    listed = _cli("restore", "--state-dir", str(state))
    assert listed.returncode == 0 and backups.latest().name in listed.stdout
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "from pathlib import Path;"
                "from hub.persist.storage import lock_state_dir;"
                f"assert lock_state_dir(Path({str(state)!r})) is not None;"
                "import signal; print('held', flush=True); signal.pause()"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        refused = _cli("restore", "--state-dir", str(state), backups.latest().name)
        assert refused.returncode == 1 and "stop it first" in refused.stderr
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    done = _cli("restore", "--state-dir", str(state), backups.latest().name)
    assert done.returncode == 0, done.stderr
    store = GameStore(state / DB_NAME)
    assert len(store.list_games()) == 1
    store.close()
    assert any(p.name.startswith("games.db.replaced-") for p in state.iterdir())


def test_the_state_lock_is_one_per_folder(tmp_path):
    first = lock_state_dir(tmp_path)
    assert first is not None
    try:
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                (
                    "from pathlib import Path; from hub.persist.storage import lock_state_dir;"
                    f"print(lock_state_dir(Path({str(tmp_path)!r})))"
                ),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert probe.stdout.strip() == "None"
    finally:
        os.close(first)


@pytest.mark.parametrize("how", ["missing", "empty"])
def test_an_empty_database_while_the_journal_holds_a_game_is_refused(tmp_path, mock_factory, how):
    state = tmp_path / "state"
    hub = _hub(state, mock_factory)
    try:
        client = create_app(hub.web_service(), {"TESTING": True}).test_client()
        game = _tokens(client, {"players": PLAYERS}).get_json()
        hub.loop.drain()
    finally:
        hub.stop()
    assert Backups(state / "backups").latest() is None  # no backup to tell of it
    db = state / DB_NAME
    for leftover in state.glob(DB_NAME + "-*"):
        leftover.unlink()
    if how == "missing":
        db.unlink()
    else:
        db.write_bytes(b"")
    with pytest.raises(StorageProblem) as found:
        check_storage(state)
    text = str(found.value)
    assert how in text and "table.journal" in text and f"game {game['id']}" in text
    assert (state / "table.journal").exists()  # kept: nothing is deleted


def test_a_full_disk_at_start_is_called_full_not_damaged(tmp_path):
    with _tmpfs(tmp_path / "disk", size="1m") as disk:
        _game_db(disk / "state")
        empty = disk / "empty"
        empty.mkdir()
        _fill(disk)
        for folder in (disk / "state", empty):
            with pytest.raises(StorageProblem) as found:
                check_storage(folder)
            text = str(found.value)
            assert "full" in text and "damaged:" not in text and str(folder) in text
            assert "free space" in found.value.remedy


def test_state_dir_empty_is_refused():
    with pytest.raises(ConfigError, match="hub.state_dir"):
        load(None, {"hub": {"state_dir": ""}})


def test_only_the_hubs_own_files_are_made_private(tmp_path):
    from hub.persist.storage import make_private

    folder = tmp_path / "state"
    folder.mkdir()
    for name in ("games.db", "games.db-wal", "table.journal", "notes.txt", "photo.jpg"):
        (folder / name).write_text("x")
        (folder / name).chmod(0o644)
    make_private(folder)
    modes = {p.name: p.stat().st_mode & 0o777 for p in folder.iterdir()}
    assert modes == {
        "games.db": 0o600,
        "games.db-wal": 0o600,
        "table.journal": 0o600,
        "notes.txt": 0o644,
        "photo.jpg": 0o644,
    }

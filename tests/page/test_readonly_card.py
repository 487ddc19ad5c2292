"""Issue 25, LOW 10: an SD card that turns read-only under the running hub.

The state folder is a real ext4 file system (a loop device, mounted as a Pi's root is:
``errors=remount-ro``); the test makes the kernel turn it read-only the way an SD card
error does (``trigger_fs_error``: the journal's open file then fails with ``EROFS``).
A press answered afterwards must say the table was not saved, and so must every phone's
snapshot, until a write succeeds. Root only (mount, a loop device); skipped elsewhere,
failed under CI.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.persist.journal import FILE_NAME
from tests.conftest import need
from tests.helpers import eventually


class Card:
    """An ext4 file system on a loop device, mounted at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def device(self) -> str:
        """The loop device's name (``loop3``), from the mount table."""
        for line in Path("/proc/self/mounts").read_text().splitlines():
            source, target = line.split()[:2]
            if target == str(self.path):
                return Path(source).name
        raise AssertionError(f"{self.path} is not mounted")

    def fail(self) -> None:
        """An error the kernel answers by remounting the card read-only."""
        Path(f"/sys/fs/ext4/{self.device()}/trigger_fs_error").write_text("test: issue 25\n")

    def read_only(self) -> bool:
        """Whether the card refuses a new file as read-only (the mount's options say
        ``emergency_ro`` on newer kernels, ``ro`` on older ones)."""
        try:
            (self.path / "probe").touch()
        except OSError as exc:
            return exc.errno == errno.EROFS
        return False


@pytest.fixture
def card(tmp_path) -> Iterator[Card]:
    mkfs, mount = need("mkfs.ext4"), need("mount")
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("a loop-mounted card needs root")
        pytest.skip("a loop-mounted card needs root")
    image, path = tmp_path / "card.img", tmp_path / "card"
    path.mkdir()
    with image.open("wb") as f:
        f.truncate(32 * 1024 * 1024)
    subprocess.run([mkfs, "-q", "-F", str(image)], check=True)
    done = subprocess.run(
        [mount, "-o", "loop,errors=remount-ro", str(image), str(path)], capture_output=True
    )
    if done.returncode != 0:
        message = f"no loop device here: {done.stderr.decode().strip()}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        yield Card(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def press(client, slot: int) -> dict:
    answer = client.post(f"/api/sim/slots/{slot}/press", json={"hold_ms": 0})
    assert answer.status_code == 200
    return answer.get_json()


def test_presses_on_a_card_gone_read_only_are_answered_as_not_saved(card, make_hub, caplog):
    from hub.runtime.clock import SystemClock
    from web import create_app

    hub = make_hub(threaded=True, clock=SystemClock(), hub={"state_dir": str(card.path / "s")})
    client = create_app(hub.web_service(), {"TESTING": True}).test_client()
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "first": 1})
    assert r.status_code == 201
    before = press(client, 1)
    assert before["turn"] != 1 and before.get("storage") is None
    journal = card.path / "s" / FILE_NAME
    kept = journal.read_bytes()

    card.fail()
    assert card.read_only()
    after = press(client, before["turn"])
    assert after["turn"] == 1  # the game goes on ...
    assert after["storage"] == {  # ... and the answer says it was not saved
        "saved": False,
        "problem": "read_only",
        "path": str(journal),
        "detail": "Read-only file system",
    }
    # Every phone's snapshot says it too, and the journal is as it was.
    assert (
        eventually(
            lambda: (client.get("/api/state").get_json().get("storage") or {}).get("problem")
        )
        == "read_only"
    )
    assert journal.read_bytes() == kept
    assert "cannot write" in caplog.text and "Read-only file system" in caplog.text


def test_the_page_shows_the_storage_warning_from_the_snapshot(client):
    """The page's add-on names the problem from the catalog, in either language."""
    js = client.get("/static/storage.js").data.decode()
    assert "snap.storage" in js and "errors.storage.${problem}" in js
    assert 'import("./storage.js")' in client.get("/static/app.js").data.decode()
    for lang in ("en", "es"):
        words = client.get(f"/static/i18n/{lang}.json").get_json()
        for problem in ("read_only", "full", "error"):
            assert "{path}" in words[f"errors.storage.{problem}"]

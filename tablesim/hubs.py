"""Hubs for the soak: on the sim backend, a fake clock, no loop thread, a tmpfs store."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub.runtime.config import load
from tablesim.virtual import FakeClock, RecordingPlayer

if TYPE_CHECKING:
    from hub.app import Hub


def new_hub(state_dir: Path, overrides: dict[str, Any] | None = None) -> Hub:
    """A hub on the sim backend with a fake clock, mock pins and a recording player,
    started without its thread (the soak drains it). ``overrides``: config sections."""
    from hub.app import Hub

    sections: dict[str, dict[str, Any]] = {
        "hub": {"backend": "sim", "state_dir": str(state_dir)},
        "sound": {"enabled": False},
    }
    for section, values in (overrides or {}).items():
        sections.setdefault(section, {}).update(values)
    config = load(None, sections)
    hub = Hub(config, clock=FakeClock(), sound=RecordingPlayer())
    hub.start(threaded=False)
    return hub


def fast_dir() -> str | None:
    """A tmpfs for the store when there is one: the soak needs SQLite, not a disk."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() else None


@contextlib.contextmanager
def quiet_hub(verbose: bool) -> Iterator[None]:
    """Each hub says "backend: sim" at start; a soak may start many. Errors still show."""
    logger = logging.getLogger("hub")
    level = logger.level
    if not verbose:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)

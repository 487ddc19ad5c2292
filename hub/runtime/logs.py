"""Where the hub's log lines go: a terminal, or the systemd journal with levels.

Under systemd (``JOURNAL_STREAM`` is set and names our stderr) each line is written
without a timestamp (journald adds its own) and starts with the syslog priority,
``<3>`` for an error … ``<7>`` for debug, so ``journalctl -p warning`` works. Every
line of a multi-line message (a traceback) carries the prefix, so none of it lands at
the wrong level; Python's warnings come through logging (``py.warnings``). Lines the
hub does not write itself (ALSA's and lgpio's C code, a faulthandler dump) carry no
prefix: the unit's ``SyslogLevel=warning`` gives them warning priority. On a terminal
lines keep their time and level name.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import TextIO

# syslog priorities (RFC 5424) of the logging levels.
PRIORITIES = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}
TERMINAL_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# The flags of a subcommand that logs debug lines too (``configure(verbose=True)``):
# ``run``, ``demo`` and ``board`` take them, and the CLI hands ``verbose`` on here.
VERBOSE = ("-v", "--verbose")


def priority(level: int) -> int:
    """The syslog priority of a logging level (levels between two round down)."""
    for known in sorted(PRIORITIES, reverse=True):
        if level >= known:
            return PRIORITIES[known]
    return 7


class JournalFormatter(logging.Formatter):
    """``<N>name: message``, the prefix repeated on every line of the message."""

    def __init__(self) -> None:
        super().__init__("%(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        """The record as journald's stream reader wants it."""
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def under_journal(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """True when ``stream`` is the journal stream systemd named in ``JOURNAL_STREAM``."""
    value = environ.get("JOURNAL_STREAM", "")
    if not value:
        return False
    try:
        device, inode = (int(part) for part in value.split(":"))
        info = os.fstat(stream.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return (info.st_dev, info.st_ino) == (device, inode)


def configure(
    verbose: bool = False, environ: Mapping[str, str] | None = None, stream: TextIO | None = None
) -> bool:
    """Send the hub's logging to ``stream`` (stderr); returns True when that is the journal.

    Like :func:`logging.basicConfig`, it leaves a logging set up before alone (pytest's).
    """
    stream = sys.stderr if stream is None else stream
    journal = under_journal(stream, os.environ if environ is None else environ)
    root = logging.getLogger()
    if root.handlers:
        return journal
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JournalFormatter() if journal else logging.Formatter(TERMINAL_FORMAT))
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    # Python's warnings (a library's DeprecationWarning, gpiozero's fallbacks) through the
    # handler too, at warning level: in the journal with their priority.
    logging.captureWarnings(True)
    return journal


def print_error(
    text: str, stream: TextIO | None = None, environ: Mapping[str, str] | None = None
) -> None:
    """Print an error for a person on ``stream`` (stderr), at error level in the journal.

    For messages that must reach the terminal whatever logging does (a refused start).
    """
    stream = sys.stderr if stream is None else stream
    journal = under_journal(stream, os.environ if environ is None else environ)
    prefix = f"<{PRIORITIES[logging.ERROR]}>" if journal else ""
    print("\n".join(prefix + line for line in text.splitlines()), file=stream)

"""The fake board's REPL (firmware_bridge/fakerepl.py) byte by byte: what MicroPython
answers to mpremote, and an honest refusal of what the model does not run."""

from __future__ import annotations

import struct

import pytest

from firmware_bridge.fakeboard import BoardReset
from firmware_bridge.fakerepl import BANNER, RAW_BANNER, WINDOW, Repl, SoftReset
from tests.bridge_helpers import BytePort


def repl(files: dict[str, bytes] | None = None) -> tuple[Repl, BytePort]:
    port = BytePort()
    board = Repl(port, {} if files is None else files)
    assert port.sent == BANNER
    port.sent = b""
    return board, port


def say(board: Repl, port: BytePort, data: bytes) -> bytes:
    port.sent, port.inbox = b"", data
    board.poll()
    return port.sent


def test_ctrl_a_enters_the_raw_repl_and_ctrl_d_runs_the_code():
    board, port = repl({"main.py": b"x"})
    assert say(board, port, b"\r\x03").endswith(b">>> ")
    assert say(board, port, b"\r\x01").endswith(b"\r\n" + RAW_BANNER)
    answer = say(board, port, b"import os\nprint(repr(tuple(os.stat('main.py'))))\x04")
    assert answer == b"OK(32768, 0, 0, 0, 0, 0, 1, 0, 0, 0)\r\n\x04\x04>"
    # Names last from one run to the next, as on the board (mpremote relies on it).
    assert say(board, port, b"print(os.listdir())\x04") == b"OK['main.py']\r\n\x04\x04>"
    missing = say(board, port, b"os.remove('nope.py')\x04")
    assert missing.startswith(b"OK\x04Traceback") and b"OSError: [Errno 2] ENOENT" in missing
    assert say(board, port, b"\x04") == b"OK\r\nMPY: soft reboot\r\n" + RAW_BANNER
    forgotten = say(board, port, b"os.listdir()\x04")
    assert b"NameError: name 'os' isn't defined" in forgotten  # the soft reset cleared them
    assert say(board, port, b"\x02") == b"\r\n" + BANNER


def test_raw_paste_mode_with_its_window():
    board, port = repl()
    say(board, port, b"\x01")
    assert say(board, port, b"\x05A\x01") == b"R\x01" + struct.pack("<H", WINDOW) + b"\x01"
    code = b"f=open('big.py','wb')\nw=f.write\nw(b'" + b"a" * 300 + b"')\nf.close()\n"
    answer = say(board, port, code)
    assert answer == b"\x01" * (len(code) // WINDOW)  # one more window per WINDOW bytes
    assert say(board, port, b"\x04") == b"\x04\x04\x04>"
    assert board.files == {"big.py": b"a" * 300}
    assert say(board, port, b"\x05B\x01") == b"R\x00>"  # no other raw mode


def test_what_the_model_does_not_run_is_refused_honestly():
    board, port = repl()
    say(board, port, b"\x01")
    for code, error in [
        (b"for f in range(3):\n print(f)", b"NotImplementedError"),
        (b"open.__globals__", b"AttributeError"),
        (b"().__class__", b"NotImplementedError"),
        (b"import socket", b"ImportError: no module named 'socket'"),
        (b"print(", b"SyntaxError"),
        (b"__import__('os')", b"NameError"),
    ]:
        answer = say(board, port, code + b"\x04")
        assert answer.startswith(b"OK\x04Traceback") and error in answer, (code, answer)
        assert answer.endswith(b"\x04>")
    assert board.files == {}


def test_resets():
    board, port = repl()
    with pytest.raises(SoftReset):  # the friendly REPL's Ctrl-D runs main.py again
        say(board, port, b"\x04")
    board, port = repl()
    say(board, port, b"\x01")
    with pytest.raises(BoardReset):  # what ``mpremote reset`` sends
        say(board, port, b"import time, machine; time.sleep_ms(1); machine.reset()\x04")

"""MicroPython's REPL on the fake board, as a Pico shows it after the update escape
(the centre button held at power-on: ``main.py`` skips the program and returns).

Modelled, byte for byte as MicroPython's ``pyexec.c`` answers them: the friendly
REPL's banner and prompt; Ctrl-C; Ctrl-A into the raw REPL and Ctrl-B out of it;
Ctrl-D, which runs the code sent (``OK``, its output, ``04``, its error, ``04``, ``>``)
or alone is a soft reset (which from the raw REPL does not run ``main.py``); and
raw-paste mode (Ctrl-E ``A`` Ctrl-A, with its flow-control window), which mpremote
uses. Of the code itself only what mpremote sends to stat, copy, remove and reset
files is understood: imports, assignments and calls on ``open``, ``os``, ``time`` and
``machine``, read with :mod:`ast` and never executed; anything else gets an honest
``NotImplementedError`` on the error channel.

Not modelled (only a real Pico shows them): MicroPython itself, the flash file
system's limits and wear, USB timing, and the friendly REPL running typed code.
"""

from __future__ import annotations

import ast
import posixpath
import struct
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.fakeboard import BoardReset

BANNER = (
    b"MicroPython v1.24.1 on 2024-11-29; Raspberry Pi Pico with RP2040\r\n"
    b'Type "help()" for more information.\r\n>>> '
)
RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n>"
WINDOW = 128  # raw-paste flow control: bytes the host may send before each 01
CTRL_A, CTRL_B, CTRL_C, CTRL_D, CTRL_E = 1, 2, 3, 4, 5


class BoardError(Exception):
    """An exception on the board, as its traceback's last line names it."""

    def __init__(self, name: str, text: str) -> None:
        super().__init__(f"{name}: {text}")
        self.line = f"{name}: {text}"


def traceback(error: BoardError) -> bytes:
    """The error channel's text for ``error`` (MicroPython's traceback)."""
    return (
        b"Traceback (most recent call last):\r\n"
        b'  FlashFile "<stdin>", line 1, in <module>\r\n' + error.line.encode() + b"\r\n"
    )


class SoftReset(BaseException):
    """Ctrl-D at the friendly REPL: MicroPython starts again and runs ``main.py``
    (the USB link stays up; the fake microcontroller boots the board again)."""


class Repl:
    """The REPL on ``port`` (``read()``, ``write(data)``); ``files`` is the board's
    flash (name: bytes), changed in place."""

    def __init__(self, port: Any, files: dict[str, bytes]) -> None:
        self.port = port
        self.files = files
        self.mode = "friendly"
        self.line = b""
        self.window = 0  # raw-paste: bytes left in the host's window
        self.session = ReplSession(files)  # its names last until a soft reset, as on the board
        port.write(BANNER)

    def poll(self) -> None:
        """Take whatever the host sent."""
        for byte in self.port.read():
            if self.mode == "paste":
                self._paste(byte)
            elif self.mode == "raw":
                self._raw(byte)
            else:
                self._friendly(byte)

    def _friendly(self, byte: int) -> None:
        if byte == CTRL_A:
            self.mode, self.line = "raw", b""
            self.port.write(b"\r\n" + RAW_BANNER)
        elif byte == CTRL_C:
            self.line = b""
            self.port.write(b"\r\n>>> ")
        elif byte == CTRL_D:
            self.port.write(b"\r\nMPY: soft reboot\r\n")
            raise SoftReset()
        elif byte == 13:
            typed, self.line = self.line, b""
            answer = b"(the fake board runs no typed code: mpremote uses the raw REPL)\r\n"
            self.port.write(b"\r\n" + (answer if typed.strip() else b"") + b">>> ")
        else:
            self.line += bytes((byte,))
            self.port.write(bytes((byte,)))

    def _raw(self, byte: int) -> None:
        if byte == CTRL_A:
            line, self.line = self.line, b""
            if len(line) == 2 and line[0] == CTRL_E:
                self._raw_paste(line[1])
            else:
                self.port.write(RAW_BANNER)
        elif byte == CTRL_B:
            self.mode, self.line = "friendly", b""
            self.port.write(b"\r\n" + BANNER)
        elif byte == CTRL_C:
            self.line = b""
        elif byte == CTRL_D:
            code, self.line = self.line, b""
            self.port.write(b"OK")
            if not code:  # a soft reset: from the raw REPL, main.py does not run
                self.session = ReplSession(self.files)
                self.port.write(b"\r\nMPY: soft reboot\r\n" + RAW_BANNER)
                return
            self._run(code)
        else:
            self.line += bytes((byte,))

    def _raw_paste(self, command: int) -> None:
        if command != ord("A"):
            self.port.write(b"R\x00>")
            return
        self.mode, self.window = "paste", WINDOW
        self.port.write(b"R\x01" + struct.pack("<H", WINDOW) + b"\x01")

    def _paste(self, byte: int) -> None:
        if byte in (CTRL_C, CTRL_D):
            code, self.line = self.line, b""
            self.mode = "raw"
            self.port.write(b"\x04")
            if byte == CTRL_D:
                self._run(code)
            else:
                self.port.write(b"\x04" + traceback(BoardError("KeyboardInterrupt", "")) + b"\x04>")
            return
        self.line += bytes((byte,))
        self.window -= 1
        if not self.window:
            self.window = WINDOW
            self.port.write(b"\x01")

    def _run(self, code: bytes) -> None:
        """Run ``code``: its output, 04, its error, 04, and the raw prompt."""
        board = self.session
        board.output = b""
        try:
            board.run(code)
            error = b""
        except BoardError as exc:
            error = traceback(exc)
        self.port.write(board.output + b"\x04" + error + b"\x04>")


class ReplSession:
    """What the code sent to the REPL may use, its names (kept from one run to the
    next) and its output. Nothing is executed: each statement is read with :mod:`ast`
    and only the calls below are made."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.output = b""
        self.names: dict[str, object] = {
            "open": self.open,
            "print": self.print,
            "repr": repr,
            "tuple": tuple,
        }
        self.modules: dict[str, object] = {
            "os": OsModule(files),
            "time": TimeModule(),
            "machine": MachineModule(),
        }

    def run(self, code: bytes) -> None:
        """Run each statement of ``code``; :class:`BoardError` on the first that fails."""
        try:
            tree = ast.parse(code.decode())
        except (SyntaxError, UnicodeDecodeError):
            raise BoardError("SyntaxError", "invalid syntax") from None
        for statement in tree.body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        """One import, assignment to a name, or expression."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in self.modules:
                    raise BoardError("ImportError", f"no module named '{alias.name}'")
                self.names[alias.asname or alias.name] = self.modules[alias.name]
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            self.names[node.targets[0].id] = self.value(node.value)
        elif isinstance(node, ast.Expr):
            self.value(node.value)
        else:
            raise BoardError("NotImplementedError", "the fake board runs imports, names and calls")

    def value(self, node: ast.expr) -> Any:
        """A literal, a name, an exposed attribute, or a call of one."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise BoardError("NameError", f"name '{node.id}' isn't defined")
            return self.names[node.id]
        if isinstance(node, ast.Attribute):
            owner = self.value(node.value)
            if node.attr not in getattr(owner, "EXPOSED", ()):
                raise BoardError("AttributeError", f"no attribute '{node.attr}'")
            return getattr(owner, node.attr)
        if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
            call: Callable[..., Any] = self.value(node.func)
            args = [self.value(a) for a in node.args]
            kwargs = {k.arg: self.value(k.value) for k in node.keywords if k.arg}
            if not callable(call):
                raise BoardError("TypeError", "object isn't callable")
            return call(*args, **kwargs)
        raise BoardError("NotImplementedError", "the fake board runs imports, names and calls")

    def print(self, *values: object, end: str = "\n") -> None:
        """``print``, its newlines as the board sends them (CR LF)."""
        text = " ".join(str(v) for v in values) + end
        self.output += text.replace("\n", "\r\n").encode()

    def open(self, name: str, mode: str = "r") -> FlashFile:
        """A file of the board's flash."""
        return FlashFile(self.files, _path(name), mode)


def _path(name: object) -> str:
    """A file's name on the flash: its one folder is the root."""
    if not isinstance(name, str):
        raise BoardError("TypeError", "can't convert to str implicitly")
    path = posixpath.normpath("/" + name).lstrip("/")
    return path


def _missing() -> BoardError:
    return BoardError("OSError", "[Errno 2] ENOENT")


class FlashFile:
    """An open file: written to the flash when closed."""

    EXPOSED = ("write", "read", "close")

    def __init__(self, files: dict[str, bytes], name: str, mode: str) -> None:
        if "w" not in mode and "a" not in mode and name not in files:
            raise _missing()
        self.files, self.name, self.mode = files, name, mode
        self.data = b"" if "w" in mode else files.get(name, b"")
        self.at = 0

    def write(self, data: bytes | str) -> int:
        """Append ``data``; returns its length."""
        chunk = data.encode() if isinstance(data, str) else bytes(data)
        self.data += chunk
        return len(chunk)

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all when negative)."""
        end = len(self.data) if size < 0 else self.at + size
        chunk, self.at = self.data[self.at : end], min(end, len(self.data))
        return chunk

    def close(self) -> None:
        """Put a written file on the flash."""
        if "w" in self.mode or "a" in self.mode:
            self.files[self.name] = self.data


class OsModule:
    """The ``os`` module, as far as mpremote uses it."""

    EXPOSED = ("stat", "remove", "listdir")

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def stat(self, name: str) -> tuple[int, ...]:
        """MicroPython's 10-tuple: a directory for the root, else a file's size."""
        path = _path(name)
        if not path:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        if path not in self.files:
            raise _missing()
        return (0x8000, 0, 0, 0, 0, 0, len(self.files[path]), 0, 0, 0)

    def remove(self, name: str) -> None:
        """Delete a file."""
        if self.files.pop(_path(name), None) is None:
            raise _missing()

    def listdir(self, name: str = "") -> list[str]:
        """The file names (one folder: the root)."""
        return sorted(self.files)


class TimeModule:
    """The ``time`` module's pauses (mpremote's reset waits 100 ms first)."""

    EXPOSED = ("sleep_ms", "sleep")

    def sleep_ms(self, ms: int) -> None:
        """Wait ``ms`` (at most a second here)."""
        time.sleep(min(max(ms, 0), 1000) / 1000)

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (at most a second here)."""
        self.sleep_ms(int(seconds * 1000))


class MachineModule:
    """The ``machine`` module's ``reset``: the board boots again."""

    EXPOSED = ("reset",)

    def reset(self) -> None:
        """A hard reset (the fake microcontroller catches it)."""
        raise BoardReset()

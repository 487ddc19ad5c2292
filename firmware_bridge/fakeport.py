"""The fake microcontroller's end of the USB serial link: a pty master (the hub opens
the slave, as it opens ``/dev/ttyACM0``)."""

from __future__ import annotations

import fcntl
import os
import struct
import termios


class PtyPort:
    """The microcontroller's end of the USB serial link: a pty master, non-blocking."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self) -> bytes:
        """Whatever the hub sent, or b''."""
        try:
            return os.read(self.fd, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> None:
        """Send to the hub; dropped when nobody reads (as a full USB buffer drops)."""
        try:
            os.write(self.fd, data)
        except (BlockingIOError, OSError):
            pass


def unread(fd: int) -> int:
    """Bytes waiting on ``fd`` (the hub's side of the pty) that nobody has read yet."""
    try:
        return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])
    except OSError:
        return 0

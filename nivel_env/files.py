"""Opening a file a user names, so that no path can hang or exhaust us: the one check.

Card files, deck files, scenarios, replays, policy files and value heads are all read
from paths a user (or a file of theirs) names.  A path may be a named pipe (reading it
blocks until a writer comes, forever in practice), a device (``/dev/zero`` never ends and
reports size 0), a directory, or a regular file far larger than anything this project
writes.  ``open_regular`` refuses all of those before reading a byte:

* the file is opened without blocking (``O_NONBLOCK``: a FIFO with no writer opens at
  once) and what was opened is examined (``fstat`` on the descriptor, so a path swapped
  between a check and the open cannot slip through): anything but a regular file is
  refused, naming what it is -- a directory, a FIFO (named pipe), a character or block
  device, a socket;
* the size the file system reports is checked against the caller's cap, and
  ``read_bytes`` reads at most one byte past the cap (a file growing while read is still
  refused).

Every refusal is a ``FileRefused`` (a ``ValueError``) carrying ``path`` and ``reason``;
its message is ``"PATH: REASON"``, e.g. ``"game.jsonl: not a regular file but a FIFO
(named pipe)"``.  Loaders that put the file's name at the head of their own errors use
``reason`` alone (``cards.yamlio.read_text`` does so for card, deck, scenario and replay
files).
"""
from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import BinaryIO


class FileRefused(ValueError):
    """A path that is not a regular file within its size cap (or cannot be opened)."""

    def __init__(self, path, reason: str):
        self.path, self.reason = str(path), reason
        super().__init__(f"{self.path}: {reason}")

    def __reduce__(self):       # picklable, so it crosses to and from worker processes
        return type(self), (self.path, self.reason)


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words ("a FIFO (named pipe)", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file that can be read"


def open_regular(path: str | Path, limit: int, what: str = "file") -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file of at most ``limit``
    bytes; else ``FileRefused`` naming the path and what it is.  ``what`` names the kind
    of file in messages ("policy file")."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise FileRefused(path, f"no such {what}") from None
    except IsADirectoryError:                   # Windows opens no directory
        raise FileRefused(path, "not a regular file but a directory") from None
    except OSError as e:
        raise FileRefused(path, f"cannot open it ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(path, f"not a regular file but {kind_of(st.st_mode)}")
        if st.st_size > limit:
            raise FileRefused(path, _too_big(st.st_size, limit, what))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | Path, limit: int, what: str = "file") -> bytes:
    """At most ``limit`` bytes: the whole of the regular file ``path``; ``FileRefused``
    for anything else (see ``open_regular``), or when the file holds more."""
    with open_regular(path, limit, what) as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise FileRefused(path, f"cannot read it ({e.strerror or e})") from None
    if len(data) > limit:
        raise FileRefused(path, _too_big(None, limit, what))
    return data


def read_buffer(path: str | Path, limit: int, what: str = "file") -> io.BytesIO:
    """``read_bytes`` as an in-memory file, for readers that take a file object (torch)."""
    return io.BytesIO(read_bytes(path, limit, what))


def _too_big(size: int | None, limit: int, what: str) -> str:
    if size is None:                            # it grew past the cap while read
        return f"more than the {limit:,} bytes a {what} may have"
    return f"{size:,} bytes, more than the {limit:,} a {what} may have"


__all__ = ["FileRefused", "kind_of", "open_regular", "read_buffer", "read_bytes"]

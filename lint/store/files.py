"""Opening a file to read it: the one way every reader of tlint's inputs, configuration, baseline, cache and
``.gitignore`` files opens one."""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from lint.models.errors import InputError

_NOT_WAITING = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def open_regular(path: str | os.PathLike[str], display: str) -> BinaryIO:
    """``path`` opened for reading, when it is a regular file (links followed); InputError naming ``display``
    otherwise.  Every file tlint reads but standard input is opened so: a FIFO would wait for a writer
    forever and a device (``/dev/zero``) never ends.  It is opened without waiting for a writer and judged on
    the open descriptor, so that nothing can swap the file between a check and the open (non-blocking mode
    does not change how a regular file is read)."""
    try:
        descriptor = os.open(path, _NOT_WAITING)
    except OSError as error:
        raise InputError(f"{display}: cannot read: {error.strerror or error}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{display}: {not_regular(mode)}")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def not_regular(mode: int) -> str:
    """Why a file of ``mode`` (not a regular file) is not read."""
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    if stat.S_ISFIFO(mode):
        kind = "a FIFO"
    elif stat.S_ISSOCK(mode):
        kind = "a socket"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        kind = "a device"
    else:
        kind = "not a regular file"
    return f"{kind}, which is not read: only regular files are (a FIFO or a device may never end; standard input is `-`)"

"""Reading a file groupcheck is given (``--scope @file``, a trace, a history, a spec):
a regular file (not a FIFO, a device such as /dev/zero, or a folder), bounded in size,
UTF-8 text, not empty. Every failure is an InputError naming the file and the problem.
(``model.scopes.shorten`` cuts an input value to what one line of a message shows.)"""
from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_BYTES = 256 * 2 ** 20       # a 10,000-step trace of four consumers is well under this
SPEC_BYTES = 8 * 2 ** 20        # a TLA+ module or TLC config (the largest shipped is under 100 KiB)


class InputError(ValueError):
    """A file that cannot be used; the message names the file and what is wrong."""


def checked(path: Path, max_bytes: int = MAX_BYTES) -> int:
    """``path``'s size once it is a regular file of at most ``max_bytes``; checked before
    it is opened (opening a FIFO waits for a writer; /dev/zero never ends)."""
    try:
        info = os.stat(path)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path} is a folder; give a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path} is not a regular file (a pipe, a device or a socket); give a file")
    if info.st_size > max_bytes:
        raise InputError(f"{path} is larger than {max_bytes // 2 ** 20} MiB ({info.st_size:,} bytes)")
    return info.st_size


def read_text(path: Path, what: str = "a JSON file", max_bytes: int = MAX_BYTES) -> str:
    """The text of ``path`` (``what`` it should be names the fix in messages)."""
    path = Path(path)
    checked(path, max_bytes)
    try:
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > max_bytes:      # it grew since stat
        raise InputError(f"{path} is larger than {max_bytes // 2 ** 20} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                         f"give {what}") from None
    if not text.strip():
        raise InputError(f"{path} is empty; give {what}")
    return text

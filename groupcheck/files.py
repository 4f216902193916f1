"""Reading a file groupcheck is given (``--scope @file``, a trace, a history, a spec):
a regular file or a pipe (``--scope @<(make-scope)``; not a device such as /dev/zero, a
socket or a folder), bounded in size, UTF-8 text, not empty. Every failure is an InputError naming the file and the problem.
(``model.scopes.shorten`` cuts an input value to what one line of a message shows.)"""
from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_BYTES = 256 * 2 ** 20       # a 10,000-step trace of four consumers is well under this
SPEC_BYTES = 8 * 2 ** 20        # a TLA+ module or TLC config (the largest shipped is under 100 KiB)


class InputError(ValueError):
    """A file that cannot be used; the message names the file and what is wrong."""


def checked(path: Path, max_bytes: int = MAX_BYTES, pipes: bool = False) -> int:
    """``path``'s size once it is a regular file of at most ``max_bytes`` (or, with
    ``pipes``, a pipe, whose size shows only as it is read: the reader caps it); checked
    before it is opened (/dev/zero never ends; a reader that must seek cannot use a pipe)."""
    try:
        info = os.stat(path)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path} is a folder; give a file")
    if pipes and stat.S_ISFIFO(info.st_mode):
        return 0
    if not stat.S_ISREG(info.st_mode):
        kind = "a pipe, a device or a socket" if not pipes else "a device or a socket"
        raise InputError(f"{path} is not a regular file ({kind}); give a file")
    if info.st_size > max_bytes:
        raise InputError(f"{path} is larger than {max_bytes // 2 ** 20} MiB ({info.st_size:,} bytes)")
    return info.st_size


def read_text(path: Path, what: str = "a JSON file", max_bytes: int = MAX_BYTES) -> str:
    """The text of ``path`` (``what`` it should be names the fix in messages)."""
    path = Path(path)
    checked(path, max_bytes, pipes=True)       # a pipe is read up to the cap, like a file
    try:
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > max_bytes:      # a pipe, or a file that grew since stat
        raise InputError(f"{path} is larger than {max_bytes // 2 ** 20} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                         f"give {what}") from None
    if not text.strip():
        raise InputError(f"{path} is empty; give {what}")
    return text

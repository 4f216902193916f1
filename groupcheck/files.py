"""Reading a file groupcheck is given (``--scope @file``, a trace): bounded in size,
UTF-8 text, not empty. Every failure is an InputError naming the file and the problem."""
from __future__ import annotations

from pathlib import Path

MAX_BYTES = 256 * 2 ** 20       # a 10,000-step trace of four consumers is well under this


class InputError(ValueError):
    """A file that cannot be used; the message names the file and what is wrong."""


def read_text(path: Path) -> str:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{path} is larger than {MAX_BYTES // 2 ** 20} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                         "give a JSON file") from None
    if not text.strip():
        raise InputError(f"{path} is empty; give a JSON file")
    return text

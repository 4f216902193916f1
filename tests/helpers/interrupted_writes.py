"""A disk that fills half-way through a write: ``half_writes`` makes every file opened for
writing take half of what it is given, then raise ENOSPC. Old code and new alike open
their files through ``io.open`` (``Path.write_text``, ``open``, ``os.fdopen``), so a test
under it shows whether a half-written file is left where the whole one was meant to be."""
from __future__ import annotations

import errno
import io
from contextlib import contextmanager


class _HalfWriter:
    def __init__(self, f):
        self._f = f

    def write(self, data):
        self._f.write(data[:len(data) // 2])
        self._f.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()

    def __getattr__(self, name):
        return getattr(self._f, name)


@contextmanager
def half_writes(monkeypatch):
    real = io.open

    def opener(file, mode="r", *args, **kwargs):
        f = real(file, mode, *args, **kwargs)
        return _HalfWriter(f) if any(c in mode for c in "wxa") else f

    with monkeypatch.context() as m:
        m.setattr(io, "open", opener)
        yield

"""Writing what a command produces: never over what is there, never half a file.

Every command that writes goes through here:

- ``atomic_write_text`` / ``atomic_write_bytes``: the data goes to a temporary name in
  the target's folder, then takes the target's name in one step (``os.link`` when the
  name must be free, ``os.replace`` with ``force``), so an interrupt leaves the old file
  or none, never part of one. Without ``force`` an existing file is never replaced
  (``OutputExists``).
- ``atomic_folder``: the same for a folder written as a whole (a Parquet dataset,
  Spark's part files): it is written under a temporary name and renamed.
- ``run_folder``: the folder rule of ``--out``, the same for every command. A missing or
  empty folder is used as is; an existing non-empty one is never replaced or mixed into:
  the run takes the first free ``OUT-2``, ``OUT-3``, ... beside it (made with ``mkdir``,
  so two runs cannot take the same); ``--force`` writes into the folder given, replacing
  only the files the run writes.
- ``free_file``: the rule for one output file the user names (``regression -o``): an
  existing file is refused unless ``--force``.
"""
from __future__ import annotations

import errno
import itertools
import os
import shutil
import tempfile
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Iterator


class OutputError(ValueError):
    """An output that cannot be written; the message names the path and what to do."""


class OutputExists(OutputError, FileExistsError):
    """The output file is already there and ``force`` was not given."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()           # what open() would give a new file


def atomic_write_bytes(path: Path, data: bytes, *, force: bool = False, fsync: bool = False) -> Path:
    """Write ``data`` to ``path`` whole or not at all; an existing ``path`` is replaced
    only with ``force`` (else ``OutputExists``). Creates the folder. Returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not force and path.exists():
        raise OutputExists(f"{path} exists; give --force to replace it")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, _MODE)
        if force:
            os.replace(tmp, path)
        else:
            _publish_new(Path(tmp), path)
    finally:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
    return path


def _publish_new(tmp: Path, path: Path) -> None:
    """Give ``tmp`` the name ``path`` only if nothing has it (a hard link fails on an
    existing name, where a rename would replace it)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise OutputExists(f"{path} exists; give --force to replace it") from None
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if path.exists():              # a file system without hard links: check, then rename
            raise OutputExists(f"{path} exists; give --force to replace it") from None
        os.replace(tmp, path)


def atomic_write_text(path: Path, text: str, *, force: bool = False, fsync: bool = False) -> Path:
    """``atomic_write_bytes`` of ``text`` in UTF-8."""
    return atomic_write_bytes(path, text.encode("utf-8"), force=force, fsync=fsync)


@contextmanager
def atomic_folder(path: Path, *, force: bool = False) -> Iterator[Path]:
    """Yield a temporary folder beside ``path``; when the block ends without an error it
    becomes ``path`` (an existing ``path`` is replaced only with ``force``, else
    ``OutputExists``). On an error or an interrupt the temporary folder is removed and
    ``path`` is as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not force and path.exists():
        raise OutputExists(f"{path} exists; give --force to replace it")
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        old = None
        if path.exists():
            if not force:
                raise OutputExists(f"{path} exists; give --force to replace it")
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent))
            os.replace(path, old / "x")
        os.rename(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def run_folder(path: Path, *, force: bool = False, option: str = "--out") -> Path:
    """The folder a run writes into, by the folder rule (module docstring): ``path`` if
    it is missing, empty, or ``force``; else the first free ``path-2``, ``path-3``, ...,
    created here. Raises OutputError if ``path`` is a file or cannot be created. (Only
    the making of a new folder is atomic: two runs given one empty folder both use it.)"""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option}: {path} is a file, not a folder")
    try:
        if force:
            path.mkdir(parents=True, exist_ok=True)
            return path
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            pass
        if not any(path.iterdir()):
            return path
        base = path if path.name not in ("", "..") else path.resolve()      # `--out .` has no name of its own
        for n in itertools.count(2):
            candidate = base.with_name(f"{base.name}-{n}")
            try:
                candidate.mkdir()
                return candidate
            except FileExistsError:
                continue
    except OSError as e:
        raise OutputError(f"{option}: cannot write to {path}: {e.strerror or e}") from None
    raise AssertionError("unreachable")


def moved(given: Path, chosen: Path) -> str | None:
    """The line a command prints when the folder rule sent its run elsewhere."""
    if Path(given) == Path(chosen):
        return None
    return f"{given} is not empty: this run writes to {chosen} (--force writes into {given})"


def free_file(path: Path, *, force: bool = False, option: str = "-o") -> None:
    """The rule for one output file the user names: an existing one is kept unless
    ``force`` (OutputExists naming --force); a folder is refused."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{option}: {path} is a folder; give a file name")
    if path.exists() and not force:
        raise OutputExists(f"{option}: {path} exists; give --force to replace it")


def folder_for_command(given: Path, *, force: bool = False, option: str = "--out") -> Path:
    """``run_folder`` for a command: a bad folder exits 2 with one line; a run sent
    elsewhere than ``given`` says where on stderr."""
    from .console import err, fail
    try:
        chosen = run_folder(given, force=force, option=option)
    except OutputError as e:
        raise fail(str(e)) from None
    note = moved(given, chosen)
    if note:
        err.print(note, markup=False, highlight=False)
    return chosen

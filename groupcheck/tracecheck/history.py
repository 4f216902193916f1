"""Reading and writing histories: JSON lines (``.jsonl``, ``.json``) or Parquet (``.parquet``).

Parquet holds the same lines as columns ``group`` (string), ``seq`` (int64) and ``event``
(the whole JSON line as text), so both formats read the same way. Every failure is an
``InputError`` naming the file (and the line, for JSON lines).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from groupcheck.model.itf import unique_keys
from groupcheck.model.scopes import shorten

from ..files import InputError, checked


@dataclass
class Group:
    group: str
    protocol: str
    scope: dict
    events: list[dict]          # sorted by seq, the book-keeping fields included


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_line(text: str, where: str) -> dict:
    """One JSON line as an event; ``where`` ("file:line") names it in errors."""
    try:
        event = json.loads(text, parse_constant=_no_constant, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
    except ValueError as e:      # NaN / Infinity, a key given twice
        raise InputError(f"{where}: {e}") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None
    if not isinstance(event, dict):
        raise InputError(f"{where}: an event must be a JSON object, got {type(event).__name__}")
    if not isinstance(event.get("group"), str) or not event["group"]:
        raise InputError(f"{where}: an event needs \"group\", a non-empty string")
    if not isinstance(event.get("seq"), int) or isinstance(event.get("seq"), bool):
        raise InputError(f"{where}: an event needs \"seq\", an integer")
    if "kind" not in event:
        raise InputError(f"{where}: an event needs \"kind\"")
    return event


def lines(path: Path) -> Iterator[tuple[str, str]]:
    """(where, JSON text) of every event in ``path``."""
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: a directory; give history files (JSON lines or Parquet)")
    checked(path)                 # a regular file within the size cap, before it is opened
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq
        try:
            table = pq.read_table(path, columns=["event"])
            events = table.column("event").to_pylist()     # decodes the strings: a bad byte fails here
        except Exception as e:       # pyarrow's errors: ArrowInvalid, OSError, KeyError, UnicodeDecodeError ...
            raise InputError(f"{path}: not a history Parquet file with an 'event' column of JSON text "
                             f"({shorten(str(e))})") from None
        for i, text in enumerate(events):
            if not isinstance(text, (str, type(None))):
                raise InputError(f"{path}: row {i + 1}: the 'event' column holds {type(text).__name__}, not JSON text")
            yield f"{path}: row {i + 1}", text or ""
        return
    try:
        with path.open(encoding="utf-8") as f:
            for n, text in enumerate(f, start=1):
                if text.strip():
                    yield f"{path}:{n}", text
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; give JSON lines or Parquet") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None


def assemble(name: str, events: list[tuple[str, dict]]) -> Group:
    """A group's events (with where each came from) as one history: sorted by seq, with
    one protocol and scope."""
    events = sorted(events, key=lambda we: we[1]["seq"])
    protocol = scope = None
    seqs = set()
    for where, e in events:
        if e["seq"] in seqs:
            raise InputError(f"{where}: group {shorten(repr(name))} has two events with seq {e['seq']}")
        seqs.add(e["seq"])
        if "protocol" in e:
            if protocol is not None and e["protocol"] != protocol:
                raise InputError(f"{where}: group {shorten(repr(name))} names protocol "
                                 f"{shorten(repr(e['protocol']))}, earlier {shorten(repr(protocol))}")
            protocol = e["protocol"]
        if "scope" in e:
            if scope is not None and e["scope"] != scope:
                raise InputError(f"{where}: group {shorten(repr(name))} gives a second, different scope")
            scope = e["scope"]
    if protocol is None or scope is None:
        raise InputError(f"{events[0][0]}: group {shorten(repr(name))} names no \"protocol\" and \"scope\" on any line")
    return Group(name, protocol, scope, [e for _, e in events])


def read(paths: Iterable[Path]) -> list[Group]:
    """Every group of the files, in order of first appearance."""
    by: dict[str, list[tuple[str, dict]]] = {}
    for path in paths:
        count = 0
        for where, text in lines(Path(path)):
            e = parse_line(text, where)
            by.setdefault(e["group"], []).append((where, e))
            count += 1
        if not count:
            raise InputError(f"{path}: no events")
    return [assemble(name, evs) for name, evs in by.items()]


def write_jsonl(path: Path, groups: list[Group]) -> None:
    """The groups' events as JSON lines, written whole (``outputs.atomic_write_text``)."""
    from ..outputs import atomic_write_text
    atomic_write_text(path, "".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n"
                                    for g in groups for e in g.events), force=True)


def write_parquet(path: Path, groups: list[Group]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    rows = [(g.group, e["seq"], json.dumps(e, sort_keys=True, separators=(",", ":"))) for g in groups for e in g.events]
    table = pa.table({"group": [r[0] for r in rows], "seq": pa.array([r[1] for r in rows], pa.int64()),
                      "event": [r[2] for r in rows]})
    from ..outputs import atomic_write_bytes
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    atomic_write_bytes(path, sink.getvalue().to_pybytes(), force=True)

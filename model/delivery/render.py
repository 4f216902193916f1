"""The record layer shown: ITF values of ``Log`` and ``App``, one-line texts, and the
explorer's offsets track. Offset masks become ITF sets of offsets; partitions are named
``t0-0`` by ``label``: each function takes ``names``, the model's partition names by bit, or
a stride (bit ``b`` is ``t{b // stride}-{b % stride}``, the classic model's layout)."""
from __future__ import annotations

from typing import Iterable

from ..itf import itf_map, itf_set
from ..partitions import bits, name
from .state import NO_OFFSET, App, Cursor, Log, OffsetCommitReq

Names = int | tuple[str, ...]
"""A model's partition names by bit (KIP-848: its partition index), or a stride."""


def label(p: int, names: Names) -> str:
    """Partition bit ``p``'s name: ``names[p]``, or with a stride ``model.partitions.name``."""
    return name(p, names) if isinstance(names, int) else names[p]


def _offsets(mask: int) -> dict:
    return itf_set(bits(mask))


def log_itf(log: Log) -> dict:
    """One partition's log as an ITF record (the masks as sets of offsets)."""
    return {"end": log.end, "committed": log.committed, "base": log.base, "fetcher": log.fetcher,
            "done": _offsets(log.done), "excused": _offsets(log.excused)}


def logs_itf(logs: tuple[Log, ...] | None, names: Names, present: int = -1) -> dict | None:
    """Every partition of ``present`` (a mask; default all) as an ITF map by name; None when off."""
    if logs is None:
        return None
    return itf_map((label(p, names), log_itf(log)) for p, log in enumerate(logs) if present >> p & 1)


def _commit_itf(req: OffsetCommitReq | None, names: Names) -> dict | None:
    if req is None:
        return None
    return {"member": req.member, "generation": req.generation, "purpose": req.purpose,
            "offsets": itf_map((label(p, names), o) for p, o in req.offsets)}


def app_itf(app: App | None, names: Names) -> dict | None:
    """The application as an ITF record (cursors as a map by partition name); None when off
    or when the process is down."""
    if app is None:
        return None
    return {"cursors": itf_map((label(c.partition, names), {
                "position": c.position, "processed": c.processed,
                "unfetchable": c.unfetchable, "revoking": c.revoking}) for c in app.cursors),
            "commit": _commit_itf(app.commit, names), "reply": app.reply, "waiting": app.waiting,
            "meta_generation": app.meta_generation}


def _cursor_text(c: Cursor, names: Names) -> str:
    marks = ("!" if c.unfetchable else "") + ("~" if c.revoking else "")
    return f"{label(c.partition, names)}@{c.processed}/{c.position}{marks}"


def describe_app(app: App | None, names: Names) -> str:
    """One line: each cursor ``t0-0@processed/position`` (``!`` unfetchable, ``~`` revoking),
    the commit in flight, an unread answer and a waiting phase."""
    if app is None:
        return "no app"
    parts = [" ".join(_cursor_text(c, names) for c in app.cursors) or "no cursors"]
    if app.commit is not None:
        offsets = ", ".join(f"{label(p, names)}={o}" for p, o in app.commit.offsets)
        parts.append(f"committing {offsets} ({app.commit.purpose}, gen {app.commit.generation})")
    if app.reply is not None:
        parts.append(f"answer {app.reply or 'NONE'} unread")
    if app.waiting:
        parts.append(f"waiting in {app.waiting}")
    return "; ".join(parts)


def describe_log(p: int, log: Log, names: Names) -> str:
    """One line: ``t0-0 end 2 committed 1 done {0} excused {}``."""
    def show(mask: int) -> str:
        return "{" + ", ".join(str(o) for o in bits(mask)) + "}"
    return (f"{label(p, names)} end {log.end} committed {log.committed} base {log.base} "
            f"done {show(log.done)} excused {show(log.excused)}")


def offsets(logs: tuple[Log, ...] | None, holders: Iterable[tuple[str, App | None]], names: Names,
            present: int = -1) -> dict[str, dict]:
    """The explorer's offsets track: per partition of ``present`` its log end, committed offset,
    ``base`` (where the group started reading), the offsets processed (``done``) and excused by a
    fault (``excused``), and per holder (a label such as ``C1`` and its app) ``[processed,
    position]``. Empty when off. Plain JSON values: the explorer reads nothing else."""
    if logs is None:
        return {}
    holders = tuple(holders)
    out: dict[str, dict] = {}
    for p, log in enumerate(logs):
        if not present >> p & 1:
            continue
        positions = {holder: [c.processed, c.position] for holder, app in holders
                     for c in (app.cursors if app is not None else ()) if c.partition == p}
        out[label(p, names)] = {"end": log.end, "committed": log.committed, "base": log.base,
                                "done": list(bits(log.done)), "excused": list(bits(log.excused)),
                                "positions": positions}
    return out


def processed_again(before: dict[str, dict], after: dict[str, dict]) -> list[tuple[str, int, str, bool]]:
    """The records a step processed that were processed before, read off two states' offsets
    tracks (``offsets``): ``(partition, offset, holder, excused)`` for each offset a holder's
    ``processed`` moved over that was in the earlier state's ``done``; ``excused``: a fault had
    excused it. A cursor that restarts (processed NO_OFFSET before) processed nothing: the
    same reading as ``claims.no_duplicate_without_failure``, which decides what is a violation."""
    out = []
    for item, now in after.items():
        was = before.get(item)
        if was is None:
            continue
        for holder, (processed, _) in now["positions"].items():
            old = was["positions"].get(holder)
            if old is None or old[0] == NO_OFFSET:
                continue
            out += [(item, o, holder, o in was["excused"]) for o in range(old[0], processed) if o in was["done"]]
    return out

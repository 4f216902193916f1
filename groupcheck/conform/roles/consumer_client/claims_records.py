"""Judge what real consumers did with the records: lost or processed twice (issue 30).

The consumer models state four claims over their record layer, once, in
``model/delivery/claims.py`` (design §2). A real client gives JSON lines instead
(``targets/clients/worker.py`` with ``--commit-policy``): ``produced`` (the harness's
producer), ``assign`` / ``revoke`` / ``lost`` (the application's view of what it owns),
``processed`` (partition, offset), ``commit_sent`` / ``commit`` (offsets, error), ``held``,
and at the end ``offsets`` (each partition's log end offset from ListOffsets and the group's
committed offset from OffsetFetch). ``judge`` replays them in time order into the model's
own record state -- a ``delivery.Log`` per partition (``done``, ``excused``, ``fetcher``,
``committed``), a ``Holder`` with one ``Cursor`` for the member acting -- and asks the
model's claim functions, so a real client is judged by the very statement the models are:

* ``no_record_lost``: asked once per offset below the group's final committed offset (the
  log's ``base`` at that offset and the offsets above it taken as done, so the claim's
  first answer is about that offset; no live holder: every worker has stopped), from the
  log start: every worker resets to ``earliest`` (``base`` 0).
* ``no_duplicate_without_failure``: asked at each ``processed`` of an offset already
  ``done``, the member's cursor moving over it. A fault *excuses* (the model's
  ``excuse``) the offsets done so far on the partitions its member owns: a SIGKILL,
  SIGSTOP or poll stall the harness applied, an on_partitions_lost, a commit answered with
  an error the worker saw. A member a fault struck stays *struck* until its next
  on_assign: what it processes meanwhile is excused as well, both a record it processes
  again (a zombie after SIGCONT or a stall, before it learns it was fenced) and the
  records a killed member processes after the ``kill`` op was recorded (the harness
  records the op, then waits for the member's ``held`` line before it sends SIGKILL).
  Not judged under policy ``none`` (every handover redelivers by design).
* ``commits_fenced_after_handover``: asked for each partition of a commit the coordinator
  accepted (a ``commit`` line without error, sent at its ``commit_sent``), with the logs
  as they were when it was sent; a log's ``fetcher`` is the member last assigned the
  partition (its OffsetFetch follows the assignment). Auto-commits report no send time
  and are not judged here (they are still counted in the final OffsetFetch).
* ``fetch_stops_at_revocation``: asked at each ``processed``; the member's cursor is
  ``revoking`` when the partition is not one it owns as its listener was told (after its
  revoke or lost callback gave it back, or never given).

The model's ``done`` counts only processing by the owner of the time (``delivery.process``
is applied only then); so does this judge. ``tally`` counts lost and duplicated records
(with and without an excusing fault) for the results table; each message is the model
claim's, with the member's name for a member and ``t<k>-<p>`` for partition ``p`` of the
``k``-th topic (``stride``: partitions per topic). The log end is the larger of the
broker's ListOffsets answer and what the harness's producer was told it wrote
(``produced``): Tansu 0.6.0 answers ListOffsets LATEST short of its log after a batch of
several records (its end is the last batch's base offset + 1), so a note says when the
broker's end is below what was produced.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from groupcheck.model.delivery import (ACCEPTED, NO_OFFSET, App, Cursor, Holder, Log, OffsetCommitReq,
                                       commits_fenced_after_handover, excuse, fetch_stops_at_revocation,
                                       no_duplicate_without_failure, no_record_lost, process)

from .claims import Result

PROPERTIES = ("no_record_lost", "no_duplicate_without_failure", "commits_fenced_after_handover",
              "fetch_stops_at_revocation")
POLICIES = ("auto", "sync-on-revoke", "after-processing", "none")
FAULT_OPS = ("kill", "sigstop", "stall")          # harness faults that excuse a redelivery
STRIDE = 1000                                     # partitions per topic when the caller names none
EMPTY = Log(end=0, committed=NO_OFFSET, base=0, fetcher=0, done=0, excused=0)


@dataclass
class Tally:
    lost: list = field(default_factory=list)              # (partition, offset)
    duplicated: list = field(default_factory=list)        # (partition, offset, excused_by or None)
    unconsumed: list = field(default_factory=list)        # at or above committed, never processed
    notes: list = field(default_factory=list)             # what the broker said that cannot be

    def counts(self) -> dict:
        excused = sum(1 for d in self.duplicated if d[2])
        return {"lost": len(self.lost), "duplicated": len(self.duplicated), "duplicated_excused": excused,
                "duplicated_unexcused": len(self.duplicated) - excused, "unconsumed": len(self.unconsumed)}


@dataclass
class RecordJudgement:
    results: dict
    tally: Tally

    def violated(self) -> list[str]:
        return [p for p in PROPERTIES if self.results[p].violations]

    def summary(self) -> dict:
        return {p: {"verdict": r.verdict(), "checks": r.checks, "violations": len(r.violations),
                    "first": None if not r.violations else r.violations[0][2]}
                for p, r in self.results.items()} | {"tally": self.tally.counts(), "notes": self.tally.notes}


@dataclass
class History:
    """The model's record state rebuilt from the events so far."""
    logs: dict = field(default_factory=dict)       # partition -> delivery.Log
    first: dict = field(default_factory=dict)      # (partition, offset) -> who processed it first (as owner)
    excuses: dict = field(default_factory=dict)    # (partition, offset) -> the fault that excused it

    def tuple(self, override: dict | None = None) -> tuple[Log, ...]:
        """Every partition's ``Log`` by index (``delivery``'s ``logs``); ``override``: p -> Log."""
        logs = {**self.logs, **(override or {})}
        return tuple(logs.get(p, EMPTY) for p in range(max(logs, default=-1) + 1))

    def store(self, logs: tuple[Log, ...]) -> None:
        self.logs.update({p: log for p, log in enumerate(logs) if log != EMPTY or p in self.logs})

    def fault(self, partitions, cause: str) -> None:
        """The model's ``excuse`` on ``partitions``; remember which fault excused each offset."""
        before = self.tuple({p: self.logs.get(p, EMPTY) for p in partitions})     # every one of them indexed
        self.store(excuse(before, sum(1 << p for p in partitions)))
        for p in partitions:
            new = self.logs.get(p, EMPTY).excused & ~before[p].excused
            for o in range(new.bit_length()):
                if new >> o & 1:
                    self.excuses[(p, o)] = cause


def _holders(m: str, p: int, o: int, owns: bool) -> tuple[tuple[Holder], tuple[Holder]]:
    """(before, after) of member ``m`` processing offset ``o`` of ``p``: one cursor whose
    ``processed`` moves over ``o``; ``revoking`` when the application does not own ``p``."""
    def holder(processed: int) -> Holder:
        c = Cursor(partition=p, position=o + 1, processed=processed, unfetchable=not owns, revoking=not owns)
        return Holder(member=m, live=True, app=App(cursors=(c,), commit=None, reply=None, waiting=""))
    return (holder(o),), (holder(o + 1),)


def judge(events: list[dict], *, policy: str, stride: int = STRIDE) -> RecordJudgement:
    """The four claims over one scenario's events (time-ordered, as ``ProcessGroup.events``)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown commit policy {policy!r}; known: {', '.join(POLICIES)}")
    res = {p: Result() for p in PROPERTIES}
    tally = Tally()
    h = History()
    owned: dict[str, set] = {}
    sent: dict[str, tuple] = {}                    # member -> the logs when its commit was sent
    struck: dict[str, str] = {}                    # member -> the fault, until its next on_assign
    produced: dict[int, int] = {}                  # partition -> the producer's end offset
    final = None
    for i, ev in enumerate(events):
        kind, t, m = ev["kind"], ev.get("t", 0.0), ev.get("member")
        if kind == "assign":
            struck.pop(m, None)
            owned.setdefault(m, set()).update(ev["partitions"])
            for p in ev["partitions"]:             # its OffsetFetch follows: the log's fetcher
                h.logs[p] = h.logs.get(p, EMPTY)._replace(fetcher=m)
        elif kind in ("revoke", "lost"):
            mine = owned.setdefault(m, set())
            if kind == "lost":
                h.fault(mine & set(ev["partitions"]), f"{m} lost its partitions")
            mine.difference_update(ev["partitions"])
        elif kind == "op" and ev["op"] in FAULT_OPS:
            who = ev["args"]["member"]
            h.fault(owned.get(who, set()), f"{ev['op']} {who}")
            struck[who] = f"{ev['op']} {who}"
        elif kind == "commit_sent":
            sent[m] = h.tuple()
        elif kind == "commit":
            at_send = None if ev.get("auto") else sent.pop(m, None)     # an auto-commit has no commit_sent
            if ev.get("error"):
                parts = {int(p) for p in (ev.get("offsets") or {})} or owned.get(m, set())
                h.fault(parts, f"{m}'s commit failed: {ev['error']}")
            elif at_send is not None:
                _judge_commit(res["commits_fenced_after_handover"], i, t, ev, m, at_send, stride)
        elif kind == "processed":
            if m in struck:             # a duplicate by, or of, a struck member is the fault's
                h.fault({ev["partition"]}, struck[m])
            _judge_processed(res, i, t, ev, m, owned.get(m, set()), h, tally, policy, stride)
            if m in struck:
                h.fault({ev["partition"]}, struck[m])
        elif kind == "produced":
            produced[ev["partition"]] = max(produced.get(ev["partition"], 0), ev["offset"] + 1)
        elif kind == "offsets":
            final = ev
    if final is not None:
        _judge_final(res["no_record_lost"], len(events) - 1, final, produced, h, tally, stride)
    return RecordJudgement(res, tally)


def _judge_processed(res, i, t, ev, m, mine, h: History, tally, policy, stride) -> None:
    p, o = ev["partition"], ev["offset"]
    before, after = _holders(m, p, o, p in mine)
    fs = res["fetch_stops_at_revocation"]
    fs.checks += 1
    message = fetch_stops_at_revocation(before, after, stride)
    if message is not None:
        fs.violations.append((i, t, f"{message} (it owns {sorted(mine)})"))
        return
    logs = h.tuple()
    if (p, o) not in h.first:
        h.first[(p, o)] = m
        h.store(process(before[0].app, logs, p)[1])
        return
    tally.duplicated.append((p, o, h.excuses.get((p, o))))
    if policy == "none":
        return
    nd = res["no_duplicate_without_failure"]
    nd.checks += 1
    message = no_duplicate_without_failure(logs, before, after, stride)
    if message is not None:
        nd.violations.append((i, t, f"{message} (first by {h.first[(p, o)]})"))


def _judge_commit(r: Result, i, t, ev, m, logs: tuple[Log, ...], stride) -> None:
    """Each partition of an accepted commit, against the logs when it was sent."""
    for p in sorted(int(p) for p in (ev.get("offsets") or {})):
        r.checks += 1
        req = OffsetCommitReq(member=m, generation=ev.get("generation", -1), offsets=((p, ev["offsets"][str(p)]),),
                              purpose="manual")
        padded = logs + (EMPTY,) * (p + 1 - len(logs))
        message = commits_fenced_after_handover(padded, [(req, ACCEPTED)], stride)
        if message is not None:
            r.violations.append((i, t, message))


def _judge_final(r: Result, i, final: dict, produced: dict, h: History, tally, stride) -> None:
    """no_record_lost over the final ListOffsets / OffsetFetch, one offset at a time (held
    records: none, every worker has stopped by then)."""
    committed = {int(p): o for p, o in (final.get("committed") or {}).items()}
    ends = {int(p): e for p, e in (final.get("end") or {}).items()}
    for p in sorted(set(ends) | set(produced)):
        if ends.get(p, 0) < produced.get(p, 0):
            tally.notes.append(f"partition {p}: ListOffsets said end {ends.get(p, 0)}, "
                               f"the producer wrote up to {produced[p]}")
        log = h.logs.get(p, EMPTY)._replace(end=max(ends.get(p, 0), produced.get(p, 0)),
                                            committed=committed.get(p, NO_OFFSET), base=0)
        for o in range(log.end):
            if o >= log.committed:
                if not log.done >> o & 1:
                    tally.unconsumed.append((p, o))
                continue
            r.checks += 1
            above = ((1 << log.committed) - 1) & ~((1 << o + 1) - 1)    # taken as done: ask about o alone
            message = no_record_lost(h.tuple({p: log._replace(base=o, done=log.done | above)}), (), stride)
            if message is not None:
                tally.lost.append((p, o))
                if len(r.violations) < 5:
                    r.violations.append((i, final.get("t", 0.0), message))

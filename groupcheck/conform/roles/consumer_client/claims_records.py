"""Judge what real consumers did with the records: lost or processed twice (issue 30).

The consumer models state four claims over their record layer (design §2: a per-partition
``Log`` with ``end``, ``committed``, ``done`` and ``excused``, and per-client cursors).
A real client gives JSON lines instead (``targets/clients/worker.py`` with
``--commit-policy``): ``produced`` (the harness's producer), ``assign`` / ``revoke`` /
``lost`` (the application's view of what it owns), ``processed`` (partition, offset),
``commit_sent`` / ``commit`` (offsets, error), ``held``, and at the end ``offsets`` (each
partition's log end offset from ListOffsets and the group's committed offset from
OffsetFetch). ``judge`` replays them in time order and restates each claim over them:

* ``no_record_lost``: every offset below the group's final committed offset (from the
  log start: every worker resets to ``earliest``) was processed by a member that owned the
  partition then. KafkaConsumer javadoc: "it is possible for the committed offset to get
  ahead of the consumed position, which results in missing records."
* ``no_duplicate_without_failure``: a record processed again was processed before only by
  members a fault struck after (a SIGKILL, SIGSTOP or poll stall the harness applied to the
  member, an on_partitions_lost, a commit answered with an error the worker saw): the
  fault *excuses* the offsets its member's partitions had done then (the model's
  ``excuse``). A member a fault struck stays *struck* until its next on_assign: what it
  processes meanwhile is excused as well, both a record it processes again (a zombie
  after SIGCONT or a stall, before it learns it was fenced) and the records a killed
  member processes after the ``kill`` op was recorded (the harness records the op, then
  waits for the member's ``held`` line before it sends SIGKILL). Not judged under policy
  ``none`` (every handover redelivers by design).
* ``commits_fenced_after_handover``: a commit the coordinator accepted (a ``commit``
  line without error, sent at its ``commit_sent``) carries no partition that another
  member was assigned after the committer and before the commit was sent: a zombie commit
  must be fenced (KAFKA-19779's description). Auto-commits report no send time and are
  not judged here (they are still counted in the final OffsetFetch).
* ``fetch_stops_at_revocation``: a member processes a record only of a partition it owns
  as its listener was told (not after its revoke or lost callback gave it back).

The model's ``done`` counts only processing by the owner of the time; so does this judge
(``processed`` by a non-owner breaks ``fetch_stops_at_revocation`` and adds nothing).
``tally`` counts lost and duplicated records (with and without an excusing fault) for
the results table. The log end is the larger of the broker's ListOffsets answer and what
the harness's producer was told it wrote (``produced``): Tansu 0.6.0 answers ListOffsets
LATEST short of its log after a batch of several records (its end is the last batch's base
offset + 1), so a note says when the broker's end is below what was produced.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .claims import Result

PROPERTIES = ("no_record_lost", "no_duplicate_without_failure", "commits_fenced_after_handover",
              "fetch_stops_at_revocation")
POLICIES = ("auto", "sync-on-revoke", "after-processing", "none")
FAULT_OPS = ("kill", "sigstop", "stall")          # harness faults that excuse a redelivery


@dataclass
class Log:
    """One partition as the judge rebuilds it (the model's ``delivery.Log``)."""
    done: dict = field(default_factory=dict)       # offset -> member that processed it first (as owner)
    excused: set = field(default_factory=set)      # offsets whose redelivery a fault excuses
    assigned_to: str | None = None                 # the member last assigned it
    assigned_at: float = -1.0                      # when


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


def _fault(logs: dict, owned: set, cause: str, excuses: dict) -> None:
    """Excuse the offsets done so far on the partitions the faulty member owns."""
    for p in owned:
        log = logs.setdefault(p, Log())
        for o in log.done:
            if o not in log.excused:
                log.excused.add(o)
                excuses[(p, o)] = cause


def judge(events: list[dict], *, policy: str) -> RecordJudgement:
    """The four claims over one scenario's events (time-ordered, as ``ProcessGroup.events``)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown commit policy {policy!r}; known: {', '.join(POLICIES)}")
    res = {p: Result() for p in PROPERTIES}
    tally = Tally()
    logs: dict[int, Log] = {}
    owned: dict[str, set] = {}
    sent_at: dict[str, float] = {}
    struck: dict[str, str] = {}                    # member -> the fault, until its next on_assign
    excuses: dict[tuple, str] = {}
    produced: dict[int, int] = {}                  # partition -> the producer's end offset
    final = None
    for i, ev in enumerate(events):
        kind, t, m = ev["kind"], ev.get("t", 0.0), ev.get("member")
        if kind == "assign":
            struck.pop(m, None)
            owned.setdefault(m, set()).update(ev["partitions"])
            for p in ev["partitions"]:
                log = logs.setdefault(p, Log())
                log.assigned_to, log.assigned_at = m, t
        elif kind in ("revoke", "lost"):
            mine = owned.setdefault(m, set())
            if kind == "lost":
                _fault(logs, mine & set(ev["partitions"]), f"{m} lost its partitions", excuses)
            mine.difference_update(ev["partitions"])
        elif kind == "op" and ev["op"] in FAULT_OPS:
            who = ev["args"]["member"]
            _fault(logs, owned.get(who, set()), f"{ev['op']} {who}", excuses)
            struck[who] = f"{ev['op']} {who}"
        elif kind == "commit_sent":
            sent_at[m] = t
        elif kind == "commit":
            if ev.get("error"):
                parts = {int(p) for p in (ev.get("offsets") or {})} or owned.get(m, set())
                _fault(logs, parts, f"{m}'s commit failed: {ev['error']}", excuses)
            elif m in sent_at:
                _judge_commit(res["commits_fenced_after_handover"], i, t, ev, m, sent_at.pop(m), logs)
        elif kind == "processed":
            if m in struck:             # a duplicate by, or of, a struck member is the fault's
                _fault(logs, {ev["partition"]}, struck[m], excuses)
            _judge_processed(res, i, t, ev, m, owned.get(m, set()), logs, excuses, tally, policy)
            if m in struck:
                _fault(logs, {ev["partition"]}, struck[m], excuses)
        elif kind == "produced":
            produced[ev["partition"]] = max(produced.get(ev["partition"], 0), ev["offset"] + 1)
        elif kind == "offsets":
            final = ev
    if final is not None:
        _judge_final(res["no_record_lost"], len(events) - 1, final, produced, logs, tally)
    return RecordJudgement(res, tally)


def _judge_processed(res, i, t, ev, m, mine, logs, excuses, tally, policy) -> None:
    p, o = ev["partition"], ev["offset"]
    fs = res["fetch_stops_at_revocation"]
    fs.checks += 1
    if p not in mine:
        fs.violations.append((i, t, f"{m} processed {p}:{o} but does not own partition {p} "
                                    f"(owns {sorted(mine)}): fetching did not stop at revocation"))
        return
    log = logs.setdefault(p, Log())
    if o not in log.done:
        log.done[o] = m
        return
    tally.duplicated.append((p, o, excuses.get((p, o))))
    if policy == "none":
        return
    nd = res["no_duplicate_without_failure"]
    nd.checks += 1
    if o not in log.excused:
        nd.violations.append((i, t, f"{m} processed {p}:{o} again (first by {log.done[o]}) "
                                    f"and no fault struck in between"))


def _judge_commit(r: Result, i, t, ev, m, sent: float, logs) -> None:
    for p in sorted(int(p) for p in (ev.get("offsets") or {})):
        r.checks += 1
        log = logs.get(p)
        if log is not None and log.assigned_to not in (None, m) and log.assigned_at <= sent:
            r.violations.append((i, t, f"{m}'s commit of partition {p} (offset {ev['offsets'][str(p)]}) was "
                                       f"accepted after {log.assigned_to} was assigned it"))


def _judge_final(r: Result, i, final: dict, produced: dict, logs, tally) -> None:
    """no_record_lost over the final ListOffsets / OffsetFetch (held records: none, every
    worker has stopped by then)."""
    committed = {int(p): o for p, o in (final.get("committed") or {}).items()}
    ends = {int(p): e for p, e in (final.get("end") or {}).items()}
    for p in sorted(set(ends) | set(produced)):
        if ends.get(p, 0) < produced.get(p, 0):
            tally.notes.append(f"partition {p}: ListOffsets said end {ends.get(p, 0)}, "
                               f"the producer wrote up to {produced[p]}")
        end = max(ends.get(p, 0), produced.get(p, 0))
        log = logs.get(p, Log())
        top = committed.get(p, -1)
        for o in range(end):
            if o < top:
                r.checks += 1
                if o not in log.done:
                    tally.lost.append((p, o))
                    if len(r.violations) < 5:
                        r.violations.append((i, final.get("t", 0.0),
                                             f"partition {p} offset {o} is below the committed offset {top} "
                                             f"but no owner processed it"))
            elif o not in log.done:
                tally.unconsumed.append((p, o))

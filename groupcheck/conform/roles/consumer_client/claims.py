"""Judge recorded observations with the consumer model's named properties.

The model's claims (model/consumer/properties.py, listener_claims.py) are functions of
model states; a real client gives callbacks instead. ``timeline`` replays the
observations into per-member states (owned partitions as the application was told,
member id, generation, live / stalled / fenced), and each claim below restates the
model's claim of the same name over those states, within what the callbacks show:

The same judge serves librdkafka on its mock (one process, ``librdkafka/client.py``)
and real clients as processes on a real broker (``targets/clients/``): the operations
it reads are the scenario's (``scenarios.py``), whoever performed them. A ``grown`` op
(a new topic matched the members' pattern subscription) raises the number of partitions
every later settle must find owned exactly once, and counts as a membership change.

* *live*: joined, not closed or killed, not stalled or stopped (it polls).
* *fenced*: its member id is empty, or its generation is behind the group's (the
  highest generation any member has reported), or it has *expired* and not been
  assigned since: stalled (``stall``: no poll, heartbeats go on) for longer than
  ``max.poll.interval.ms`` (the client leaves the group then; it learns so, and calls
  on_lost, when it polls again), or stopped (``sigstop``: no heartbeats) for longer than
  the session timeout less one heartbeat interval (the broker expires it).
* *current*: live and not fenced (the model's "live, current member").
* *group member*: joined, not closed or closing, with a member id, and not expelled by a
  stall (stalled members still heartbeating count: the model's "paused or not"). A
  member the application is closing has stopped fetching before it leaves, whatever it
  was last told it owns (aiokafka's ``stop()`` calls no on_partitions_revoked).
"""
from __future__ import annotations

from dataclasses import dataclass, field

FENCING_ERRORS = {"UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "_TRANSPORT", "COORDINATOR_NOT_AVAILABLE",
                  "NOT_COORDINATOR"}
FAULT_OPS = {"broker_down", "broker_up", "request_errors", "rtt", "stall", "resume", "kill", "sigstop", "sigcont"}
PROPERTIES = ("no_double_ownership", "revoke_before_reassign", "callbacks_consistent",
              "lost_only_when_fenced", "settles_fully_owned", "converges_within_k", "commits_fenced")


@dataclass
class MemberState:
    joined: bool = False
    closed: bool = False
    stalled: bool = False
    stall_start: float | None = None
    expire_s: float = 0.0           # how long this stall lasts before the member is out of the group
    expired: bool = False           # stalled past expire_s, not assigned since
    commit_stale: bool = False      # its last OffsetCommit was sent with a generation behind the group's
    owned: frozenset = frozenset()
    member_id: str = ""
    generation: int = -1
    fence_cause: str | None = None  # why an on_lost would be legitimate
    reset: bool = False             # lost its member id / got on_lost: must rejoin owning nothing
    closing: bool = False


@dataclass
class Result:
    checks: int = 0
    violations: list = field(default_factory=list)   # (event index, t, message)

    def verdict(self) -> str:
        if self.violations:
            return "violated"
        return "held" if self.checks else "not exercised"


@dataclass
class Judgement:
    results: dict
    states: list                    # per event: {member: MemberState snapshot as dict}, group generation

    def violated(self) -> list[str]:
        return [p for p in PROPERTIES if self.results[p].violations]

    def summary(self) -> dict:
        return {p: {"verdict": r.verdict(), "checks": r.checks, "violations": len(r.violations),
                    "first": (None if not r.violations else
                              {"event": r.violations[0][0], "t": r.violations[0][1], "message": r.violations[0][2]})}
                for p, r in self.results.items()}


def _show(parts) -> str:
    return "{" + ",".join(str(p) for p in sorted(parts)) + "}"


def judge(events: list[dict], *, cooperative: bool, partitions: int, max_poll_interval_ms: int,
          session_timeout_ms: int | None = None, heartbeat_interval_ms: int = 0) -> Judgement:
    """Replay ``events`` (client.Group.events, or a ProcessGroup's) and judge every
    property; the session timeout times ``sigstop`` expiry (processes only)."""
    res = {p: Result() for p in PROPERTIES}
    members: dict[str, MemberState] = {}
    group_gen = -1
    max_poll_s = max_poll_interval_ms / 1000.0
    stop_s = ((session_timeout_ms or max_poll_interval_ms) - heartbeat_interval_ms) / 1000.0
    last_settle_gen: int | None = None
    segment_changes, segment_faulted = 0, False
    states = []

    def fenced(m: MemberState) -> bool:
        return not m.member_id or m.generation < group_gen or m.expired

    def current(m: MemberState) -> bool:
        return m.joined and not m.closed and not m.stalled and not fenced(m)

    def group_member(m: MemberState) -> bool:
        return m.joined and not m.closed and not m.closing and bool(m.member_id) and not m.expired

    def violate(prop: str, i: int, t: float, msg: str) -> None:
        res[prop].violations.append((i, t, msg))

    for i, ev in enumerate(events):
        t, kind = ev["t"], ev["kind"]
        # a stalled member expires once max.poll.interval.ms has passed since it stalled
        for m in members.values():
            if m.stalled and not m.expired and m.stall_start is not None and t - m.stall_start >= m.expire_s:
                m.expired = True
                m.fence_cause = f"stalled or stopped for {m.expire_s:g} s"
        name = ev.get("member")
        m = members.setdefault(name, MemberState()) if name else None
        if kind == "op":
            op, args = ev["op"], ev.get("args") or {}
            target = members.setdefault(args["member"], MemberState()) if "member" in args else None
            if op == "join":
                target.__init__()
                target.joined = True
            elif op == "close":
                target.closing = True
            elif op == "closed":
                target.closed = True
            elif op in ("stall", "sigstop") and not target.stalled:
                target.stalled, target.stall_start = True, t
                target.expire_s = max_poll_s if op == "stall" else stop_s
                target.fence_cause = target.fence_cause or op
            elif op in ("resume", "sigcont"):
                target.stalled = False
            elif op == "kill":
                target.closed = True
            elif op == "request_errors" and set(args.get("errors", ())) & FENCING_ERRORS:
                for x in members.values():
                    x.fence_cause = x.fence_cause or f"injected {args['api']} errors {args['errors']}"
            elif op in ("broker_down", "rtt"):
                for x in members.values():
                    x.fence_cause = x.fence_cause or f"fault {op}"
            elif op == "grown":         # a new topic matched the subscription: more to own
                partitions = args["partitions"]
            elif op == "settled":
                _judge_settle(res, i, t, ev, members, current, partitions, cooperative,
                              last_settle_gen, group_gen, segment_changes, segment_faulted)
                last_settle_gen, segment_changes, segment_faulted = group_gen, 0, False
            if op in ("join", "close", "grown"):
                segment_changes += 1
            if op in FAULT_OPS:
                segment_faulted = True
        elif kind == "sample":
            if m.member_id and ev["member_id"] != m.member_id:
                m.reset = True          # member id reset or replaced: the next join must own nothing
            m.member_id, m.generation = ev["member_id"], ev["generation"]
            group_gen = max(group_gen, m.generation)
        elif kind == "commit_sent":
            m.commit_stale = 0 <= ev["generation"] < group_gen
        elif kind == "commit":
            _judge_commit(res, i, t, ev, name, m, group_gen)
        elif kind in ("assign", "revoke", "lost"):
            parts = frozenset(ev["partitions"])
            before = frozenset(ev["owned_before"])
            if kind == "assign":
                if m.stalled and not m.member_id and ev["member_id"]:
                    m.stall_start = t   # stalled before it was in the group: its session starts now
                if ev["member_id"]:
                    if m.member_id and ev["member_id"] != m.member_id:
                        m.reset = True
                    m.member_id = ev["member_id"]
                m.generation = max(m.generation, ev["generation"]) if ev["member_id"] else m.generation
                group_gen = max(group_gen, m.generation)
            _judge_callback(res, i, t, ev, kind, name, m, parts, before, cooperative)
            m.owned = frozenset(ev["owned_after"])
            if kind == "assign":
                m.expired, m.fence_cause, m.reset = False, None, False
                if parts and current(m):
                    res["revoke_before_reassign"].checks += 1
                    for other, y in members.items():
                        if other != name and group_member(y) and y.owned & parts:
                            violate("revoke_before_reassign", i, t,
                                    f"{name} was assigned {_show(y.owned & parts)} at generation {m.generation} "
                                    f"still owned by {other} (a group member, generation {y.generation})")
            if kind == "lost":
                m.reset = True
        cur = [(n, x) for n, x in members.items() if current(x)]
        if len(cur) >= 2:
            res["no_double_ownership"].checks += 1
            seen: dict[int, str] = {}
            for n, x in cur:
                both = [p for p in x.owned if p in seen]
                if both:
                    violate("no_double_ownership", i, t,
                            f"{seen[both[0]]} and {n} both own {_show(both)} (live, current, generation {group_gen})")
                    break
                seen.update({p: n for p in x.owned})
        states.append({"group_generation": group_gen,
                       "members": {n: _snapshot(x, fenced(x)) for n, x in sorted(members.items())}})
    return Judgement(res, states)


def _snapshot(m: MemberState, is_fenced: bool) -> dict:
    return {"owned": sorted(m.owned), "member_id": m.member_id, "generation": m.generation,
            "live": m.joined and not m.closed and not m.stalled, "stalled": m.stalled, "fenced": is_fenced,
            "closed": m.closed}


def _judge_callback(res, i, t, ev, kind, name, m: MemberState, parts, before, cooperative) -> None:
    """callbacks_consistent and lost_only_when_fenced, per callback."""
    cc, lf = res["callbacks_consistent"], res["lost_only_when_fenced"]
    if kind == "assign":
        cc.checks += 1
        if cooperative and parts & before:
            cc.violations.append((i, t, f"{name} on_assign({_show(parts)}) includes already owned {_show(parts & before)}"
                                        " (COOPERATIVE: only newly added partitions)"))
        if not cooperative and before:
            cc.violations.append((i, t, f"{name} on_assign({_show(parts)}) while still owning {_show(before)}"
                                        " (EAGER: everything is revoked before rejoining)"))
        if m.reset:
            lf.checks += 1
            if before:
                lf.violations.append((i, t, f"{name} rejoined after a reset still owning {_show(before)}"))
    elif kind == "revoke":
        cc.checks += 1
        if not parts <= before:
            cc.violations.append((i, t, f"{name} on_revoke({_show(parts)}) of partitions it did not own"
                                        f" {_show(parts - before)}"))
        if not cooperative and parts != before and not m.closing:
            cc.violations.append((i, t, f"{name} on_revoke({_show(parts)}) is not revoke-all of {_show(before)}"
                                        " (EAGER)"))
    elif kind == "lost":
        lf.checks += 1
        if not (m.fence_cause or m.closing):
            lf.violations.append((i, t, f"{name} on_lost({_show(parts)}) without being fenced"
                                        " (no stall, no injected fencing error or coordinator fault)"))


def _judge_commit(res, i, t, ev, name, m: MemberState, group_gen) -> None:
    """commits_fenced: an OffsetCommit sent with a generation behind the group's must be
    refused (ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID / REBALANCE_IN_PROGRESS), never accepted."""
    if not m.commit_stale:
        return
    cf = res["commits_fenced"]
    cf.checks += 1
    if ev.get("error") is None:
        cf.violations.append((i, t, f"{name}'s OffsetCommit with generation {ev['generation']} was accepted "
                                    f"while the group was at generation {group_gen} or later"))
    m.commit_stale = False


def _judge_settle(res, i, t, ev, members, current, partitions, cooperative, last_gen, group_gen, changes, faulted):
    """settles_fully_owned and converges_within_k at the end of a settle operation."""
    sf, ck = res["settles_fully_owned"], res["converges_within_k"]
    if not any(current(x) or (x.joined and not x.closed) for x in members.values()):
        return      # no consumer running: nothing is subscribed, nothing to own
    if ev["args"].get("cut"):
        return      # a limit (the campaign's deadline) cut the wait short: nothing to judge
    sf.checks += 1
    if not ev["args"].get("ok"):
        # the seconds actually waited (the op's max_s bounded by the target's budget)
        waited = ev["args"].get("seconds", ev["args"].get("max_s"))
        sf.violations.append((i, t, f"not settled within {waited} s"))
        return
    owners: dict[int, list[str]] = {p: [] for p in range(partitions)}
    for n, x in members.items():
        if current(x):
            for p in x.owned:
                owners.setdefault(p, []).append(n)
    bad = {p: o for p, o in owners.items() if len(o) != 1}
    if bad:
        sf.violations.append((i, t, "settled with partitions not owned exactly once: "
                                    + ", ".join(f"{p}: {o or 'none'}" for p, o in sorted(bad.items()))))
    if last_gen is None or faulted or not changes:
        return
    k = 2 if cooperative else 1
    rounds = group_gen - last_gen
    ck.checks += 1
    if rounds > k * changes:
        ck.violations.append((i, t, f"{rounds} rounds (generations {last_gen}->{group_gen}) for {changes} membership"
                                    f" change(s); at most {k} per change"))

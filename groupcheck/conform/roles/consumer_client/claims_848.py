"""Judge observations of a consumer-protocol group with the model's properties, by name.

``model/consumer_group/properties.py`` states the claims over model states; here each is
restated over what a real client shows: every ``on_assign`` / ``on_revoke`` / ``on_lost``
with the member id and member epoch at the call, the (member id, epoch) samples after
each poll, and the driver's operations. Per member the replay keeps:

* *live*: joined, not closed, not stalled (the driver polls it);
* *fenced*: no member id, member epoch <= 0 (joining, fenced and reset to 0 by
  ``rd_kafka_cgrp_consumer_reset``, or left), or stalled past ``max.poll.interval.ms``
  (librdkafka leaves the group then and says so, with on_lost, at the next poll);
* *zombie*: between the last fault before an ``on_lost`` and that ``on_lost`` (``zombie_spans``):
  the coordinator had fenced it, the client did not know yet;
* *current*: live, subscribed, not fenced, not a zombie (the model's "live, non-fenced member");
* *group member*: subscribed, with a member id, not closed and not expired (a stalled
  member still heartbeats from librdkafka's thread: the coordinator still counts it).

An injected heartbeat error, a broker fault or a stall gives a member a *fence cause*:
the reason an on_lost or a reset epoch is legitimate. The mock's injected request errors
are cluster-wide (the next ConsumerGroupHeartbeats of *any* member get them), so when the
observations carry the client's own ``heartbeat_error`` events (``heartbeat_errors_observed``:
librdkafka logged that this member's heartbeat was answered with an error) an injected
error fences exactly the member whose heartbeat got it, at the moment the client handled
it; without them (older streams, fakes) it is attributed to every member at the injection.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .claims import Judgement, Result, _show

_NOW = object()     # "the event's time" in MEMBER_OPS
# what an operation on one member changes in the replayed state (join and the faults aside)
# kill / sigstop / sigcont: real member processes (runner_broker.py); a stopped one no longer
# counts as a group member at once (its session expiry is the broker's, not judged here).
MEMBER_OPS = {"close": {"closing": True}, "closed": {"closed": True}, "subscribe": {"subscribed": True},
              "unsubscribe": {"subscribed": False, "unsubscribed_at": _NOW}, "resume": {"stalled": False},
              "stall": {"stalled": True, "stall_start": _NOW}, "kill": {"closed": True},
              "sigstop": {"stalled": True, "stall_start": _NOW, "expired": True}, "sigcont": {"stalled": False}}

PROPERTIES = ("no_double_ownership", "member_epoch_never_decreases", "revoke_before_reassign",
              "callbacks_in_order", "assigned_within_subscription", "converges")

FENCING_ERRORS = {"UNKNOWN_MEMBER_ID", "FENCED_MEMBER_EPOCH", "_TRANSPORT", "COORDINATOR_NOT_AVAILABLE",
                  "NOT_COORDINATOR", "COORDINATOR_LOAD_IN_PROGRESS", "STALE_MEMBER_EPOCH"}


class Judgement848(Judgement):
    """The classic target's Judgement over this target's properties."""

    def violated(self) -> list[str]:
        return [p for p in PROPERTIES if self.results[p].violations]


@dataclass
class M:
    name: str = ""
    joined: bool = False
    closed: bool = False
    closing: bool = False
    subscribed: bool = False
    stalled: bool = False
    stall_start: float | None = None
    expired: bool = False
    owned: frozenset = frozenset()
    member_id: str = ""
    epoch: int = -1
    top_epoch: int = 0                 # highest epoch of this incarnation (member id)
    fence_cause: str | None = None
    reset: bool = False                # lost or reset: its next assignment must start from nothing
    unsubscribed_at: float | None = None
    history: list = field(default_factory=list)


def zombie_spans(events: list[dict], heartbeat_errors_observed: bool = False) -> dict[str, list[tuple[int, int]]]:
    """Per member, the event spans in which the coordinator had (as it later turned out)
    already fenced it: from the last fault before an ``on_lost`` (a stall of that member,
    an injected fencing error - this member's heartbeat answered with it when observed -,
    RTT or a broker down) to the ``on_lost``. The client cannot know before it is told; the
    model's claims are over members the coordinator has not fenced, so ownership inside a
    span is a zombie's, not a current member's."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for k, ev in enumerate(events):
        if ev["kind"] != "lost":
            continue
        m = ev["member"]
        for j in range(k - 1, -1, -1):
            e = events[j]
            if e["kind"] == "op" and (e["op"] in ("rtt", "broker_down") or e["op"] == "stall" and
                                      (e.get("args") or {}).get("member") == m or
                                      e["op"] == "heartbeat_errors" and not heartbeat_errors_observed
                                      and set(e["args"]["errors"]) & FENCING_ERRORS) or \
                    e["kind"] == "heartbeat_error" and e["member"] == m and e["error"] in FENCING_ERRORS:
                spans.setdefault(m, []).append((j, k))
                break
            if e["kind"] in ("assign", "revoke") and e.get("member") == m and e["partitions"]:
                break       # it was still a member when this callback ran: no fault explains the loss
    return spans


def judge(events: list[dict], *, partitions: int, max_poll_interval_ms: int,
          heartbeat_errors_observed: bool = False, **_ignored) -> Judgement:
    """Replay ``events`` (ConsumerGroup.events) and judge every property.
    ``heartbeat_errors_observed``: the stream records, per member, every heartbeat the
    coordinator answered with an error (``heartbeat_error`` events), so an injected error
    fences only the member that got it."""
    res = {p: Result() for p in PROPERTIES}
    spans = zombie_spans(events, heartbeat_errors_observed)
    index = 0

    def zombie(name: str) -> bool:
        return any(a <= index <= b for a, b in spans.get(name, ()))
    members: dict[str, M] = {}
    max_poll_s = max_poll_interval_ms / 1000.0
    target: dict[str, list[int]] | None = None
    states = []

    def fenced(m: M) -> bool:
        return not m.member_id or m.epoch <= 0 or m.expired

    def current(m: M) -> bool:
        return m.joined and not m.closed and m.subscribed and not m.stalled and not fenced(m) and not zombie(m.name)

    def group_member(m: M) -> bool:
        return m.joined and not m.closed and m.subscribed and bool(m.member_id) and not m.expired \
            and not zombie(m.name)

    def violate(prop, i, t, msg):
        res[prop].violations.append((i, t, msg))

    def epoch_seen(i, t, name, m: M, epoch: int, member_id: str) -> None:
        """member_epoch_never_decreases: within one member id, an epoch only goes up, or
        to 0 / -1 after a fence cause, a leave or a close."""
        if member_id and member_id != m.member_id and m.member_id:
            m.reset, m.top_epoch = True, 0          # a new incarnation
        if m.member_id or member_id:
            res["member_epoch_never_decreases"].checks += 1
            if m.top_epoch > 0 and epoch < m.top_epoch:
                legit = epoch <= 0 and (m.fence_cause or m.closing or not m.subscribed or m.unsubscribed_at)
                if not legit:
                    violate("member_epoch_never_decreases", i, t,
                            f"{name} member epoch went {m.top_epoch} -> {epoch} (member id {member_id or m.member_id})"
                            + ("" if epoch <= 0 else ": a lower positive epoch"))
                if epoch <= 0:
                    m.reset, m.top_epoch = True, 0
        if epoch > 0:
            m.top_epoch = max(m.top_epoch, epoch)
        if member_id:
            m.member_id = member_id
        m.epoch = epoch

    for i, ev in enumerate(events):
        index = i
        t, kind = ev["t"], ev["kind"]
        for m in members.values():
            if m.stalled and not m.expired and t - m.stall_start >= max_poll_s:
                m.expired, m.fence_cause = True, "stalled past max.poll.interval.ms"
        name = ev.get("member")
        m = members.setdefault(name, M(name=name)) if name else None
        if kind == "op":
            op, args = ev["op"], ev.get("args") or {}
            x = members.setdefault(args["member"], M(name=args["member"])) \
                if "member" in args and op != "skipped" else None
            if op == "join":
                x.__init__(name=x.name, joined=True, subscribed=True)
            elif op in MEMBER_OPS:
                for attr, value in MEMBER_OPS[op].items():
                    setattr(x, attr, t if value is _NOW else value)
                if op in ("stall", "sigstop", "kill"):
                    x.fence_cause = x.fence_cause or {"stall": "stalled", "sigstop": "SIGSTOP", "kill": "SIGKILL"}[op]
            elif op in ("broker_down", "rtt", "heartbeat_errors"):
                fencing = op != "heartbeat_errors" or set(args["errors"]) & FENCING_ERRORS \
                    and not heartbeat_errors_observed     # then the heartbeat_error events say whom
                cause = f"{op} {args}" if fencing else None
                for y in members.values():
                    y.fence_cause = y.fence_cause or cause
            elif op == "target":
                target = args["assignment"]
            elif op == "settled":
                _converges(res["converges"], i, t, args, members, current, partitions, target)
        elif kind == "sample":
            epoch_seen(i, t, name, m, ev["generation"], ev["member_id"])
        elif kind == "heartbeat_error" and ev["error"] in FENCING_ERRORS:
            m.fence_cause = f"its heartbeat was answered {ev['error']}"
        elif kind in ("assign", "revoke", "lost"):
            parts, before = frozenset(ev["partitions"]), frozenset(ev["owned_before"])
            if ev["member_id"]:
                epoch_seen(i, t, name, m, ev["generation"], ev["member_id"])
            _in_order(res["callbacks_in_order"], i, t, kind, name, m, parts, before, heartbeat_errors_observed)
            if kind == "assign" and parts:
                w = res["assigned_within_subscription"]
                w.checks += 1
                if not m.subscribed or m.closed:
                    w.violations.append((i, t, f"{name} on_assign({_show(parts)}) while not subscribed"))
                elif any(not 0 <= p < partitions for p in parts):
                    w.violations.append((i, t, f"{name} on_assign({_show(parts)}) outside the topic's partitions"))
            m.owned = frozenset(ev["owned_after"])
            if kind == "assign":
                if ev["generation"] > 0 and not m.stalled:     # a member again: the old fence is over
                    m.expired = False
                    if parts:
                        m.fence_cause = None
                if not before or parts:
                    m.reset = False
                if parts and current(m):
                    res["revoke_before_reassign"].checks += 1
                    held = {o: y for o, y in members.items() if o != name and group_member(y) and y.owned & parts}
                    if held:
                        o, y = sorted(held.items())[0]
                        violate("revoke_before_reassign", i, t,
                                f"{name} was assigned {_show(y.owned & parts)} at epoch {m.epoch} still owned by "
                                f"{o} (a group member at epoch {y.epoch}, not yet revoked)")
            if kind == "lost":
                m.reset = True
        cur = {n: x for n, x in members.items() if current(x)}
        if len(cur) >= 2:
            res["no_double_ownership"].checks += 1
            shared = _shared(cur)
            if shared:
                (a, b), parts = shared
                violate("no_double_ownership", i, t, f"{a} and {b} both own {_show(parts)} (live, non-fenced; epochs "
                                                     f"{cur[a].epoch}, {cur[b].epoch})")
        states.append({"group_generation": max((x.epoch for x in members.values()), default=-1),
                       "members": {n: {"owned": sorted(x.owned), "member_id": x.member_id, "generation": x.epoch,
                                       "live": x.joined and not x.closed and not x.stalled, "stalled": x.stalled,
                                       "fenced": fenced(x), "closed": x.closed}
                                   for n, x in sorted(members.items())}})
    return Judgement848(res, states)


def _shared(cur: dict) -> tuple | None:
    """The first two current members (by name) owning a common partition, and what they share."""
    names = sorted(cur)
    pairs = [((a, b), cur[a].owned & cur[b].owned) for k, a in enumerate(names) for b in names[k + 1:]]
    return next(((ab, both) for ab, both in pairs if both), None)


def _in_order(r: Result, i, t, kind, name, m: M, parts, before, observed: bool = False) -> None:
    """callbacks_in_order: on_assign only adds (incremental under KIP-848), on_revoke only
    owned partitions, on_lost only after a fence cause or on close, and a member that
    was lost or reset starts again owning nothing."""
    r.checks += 1
    if kind == "assign":
        if parts & before:
            r.violations.append((i, t, f"{name} on_assign({_show(parts)}) includes already owned {_show(parts & before)}"))
        if m.reset and before and parts:
            r.violations.append((i, t, f"{name} was reset (lost / fenced) but is assigned {_show(parts)} while still"
                                       f" owning {_show(before)}"))
    elif kind == "revoke" and not parts <= before:
        r.violations.append((i, t, f"{name} on_revoke({_show(parts)}) of partitions it did not own {_show(parts - before)}"))
    elif kind == "lost" and not (m.fence_cause or m.closing):
        why = (f"no stall, no coordinator fault, no heartbeat of {name} answered with an error" if observed
               else "no stall, no injected heartbeat error, no coordinator fault")
        r.violations.append((i, t, f"{name} on_lost({_show(parts)}) without a fence ({why})"))


def _converges(r: Result, i, t, args, members, current, partitions, target) -> None:
    """converges: a settle ends with the injected target (each current member its own
    partitions) or, under the mock's own assignment, every partition owned exactly once."""
    if not any(x.joined and not x.closed and x.subscribed for x in members.values()):
        return
    r.checks += 1
    if not args.get("ok"):
        r.violations.append((i, t, f"not settled within {args.get('max_s')} s"))
        return
    cur = {n: x for n, x in members.items() if current(x)}
    if target is not None:
        bad = {n: sorted(x.owned) for n, x in cur.items() if sorted(x.owned) != sorted(target.get(n, []))}
        if bad:
            r.violations.append((i, t, f"settled away from the injected target {target}: {bad}"))
        return
    every = set(range(partitions)).union(*(x.owned for x in cur.values()))
    wrong = [(p, sorted(n for n, x in cur.items() if p in x.owned)) for p in sorted(every)]
    wrong = [(p, o) for p, o in wrong if len(o) != 1]
    if wrong:
        r.violations.append((i, t, "settled with partitions not owned exactly once: "
                                   + ", ".join(f"{p}: {o or 'none'}" for p, o in wrong)))

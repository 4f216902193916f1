"""Scenarios: paths of the consumer model, and the coordinator calls each step makes.

A path is ``[init index, action index, ...]`` (``model.core``). Along it, the model's
coordinator handles requests (``deliver``, the LeaveGroup of a ``bounce``) and time
passes (``session_timeout``, ``rebalance_timeout``); a ``crash`` closes the member's
connection. Every other action is the client's business and sends nothing. Paths come
from a breadth-first enumeration (every distinct state's shortest path, up to a depth)
and seeded swarm walks.

Between the model's steps, *probes* ask the coordinator what the model's state implies
without moving the group (``probes``): whenever the group's state, generation or members,
or a consumer's member id or generation changed, each live consumer holding a member id commits an offset with its member id and
generation (fenced or not by Kafka's rule, ``model.consumer.probes``), an OffsetFetch
reads back what was stored, a Stable group gets an OffsetCommit and a Heartbeat from a
made-up member id, and a settled group (``quiescent``, or Empty and idle) or one whose
member's session just expired a DescribeGroups.
Probes go on their own connection, ``PROBE_SLOT``: Kafka answers one request per
connection at a time, so a member's own would wait behind its parked JoinGroup.
"""
from __future__ import annotations

import itertools
import random
from collections import deque
from dataclasses import dataclass

from groupcheck.model.consumer import (DOWN, EMPTY, MODEL, NO_MEMBER, NO_OFFSET, STABLE, ConsumerScope,
                                       DescribeGroups, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, quiescent,
                                       rebalance_timeout, remove_member, sends_leave_group, stored_after,
                                       unreachable)

from ...targets.inprocess.coordinator import handle   # the model's coordinator, probes included

SCOPES = {
    "two-members": ConsumerScope(members=2, partitions=(2,), budget=1, max_generation=4,
                                 faults=("crash", "pause", "lose_response")),
    "three-members": ConsumerScope(members=3, partitions=(3,), budget=1, max_generation=3,
                                   faults=("crash", "pause")),
}


PROBE_SLOT = 9        # the connection probes are sent on (no member slot: scopes have at most 3 members)
MADE_UP = 99          # a member id no coordinator handed out (on the wire "unknown-99")
PROBE_KINDS = ("OffsetCommit", "OffsetFetch", "DescribeGroups")


@dataclass(frozen=True)
class Call:
    """One call to the target: ``request`` (slot, request), ``advance`` (reason, the
    member ids whose timers expire) or ``disconnect`` (slot, member id)."""

    f: str
    slot: int = -1
    request: tuple = ()
    reason: str = ""
    members: tuple = ()
    member_id: int = NO_MEMBER


@dataclass(frozen=True)
class ModelStep:
    index: int              # position in the path (1-based, as in the path)
    action: tuple
    call: Call | None
    expected: tuple         # ((slot, response), ...) the model coordinator sends and the network delivers
    departs: str = ""       # where Kafka's coordinator knowingly answers otherwise (``departure``)
    probe: int = 0          # 0: the path's step; k: the k-th probe made after it (``probes``)


def departure(state, action, after, pending: set) -> str:
    """Why Kafka 3.9's coordinator may answer this step otherwise than the model, or "".

    Two of the model's documented abstractions (model/consumer/README.md) are steps a
    Kafka-faithful target answers differently: (1) GroupMetadata.hasAllMembersJoined also
    waits for pending members (ids handed out with MEMBER_ID_REQUIRED, not yet joined;
    a crashed process's pending id expires only after a session timeout), so a join the
    model completes outside a rebalance timeout may be held; a round started from Empty
    (InitialDelayedJoin, delay 0 here) is not; (2) MemberMetadata.hasSatisfiedHeartbeat:
    a member awaiting a JoinGroup or SyncGroup response is never expired by its session
    timer, which the model's session_timeout does."""
    before = state.group
    if action.kind == "session_timeout":
        m = before.member(action.arg)
        if m is not None and (m.joined or m.syncing):
            return (f"the model expires m{action.arg}, which awaits a "
                    f"{'JoinGroup' if m.joined else 'SyncGroup'} response; Kafka does not "
                    "(MemberMetadata.hasSatisfiedHeartbeat)")
    if after.group.generation > before.generation and before.status != EMPTY and pending \
            and action.kind != "rebalance_timeout":
        return (f"the model completes a join while member id(s) {sorted(pending)} are pending; Kafka waits for "
                "them (GroupMetadata.hasAllMembersJoined)")
    return ""


def delivered(state, out) -> tuple:
    """The responses that reach a consumer (``step._deliver_responses``): none to a
    crashed process, none addressed to an earlier incarnation's member id."""
    keep = []
    for slot, resp in out:
        c = state.consumers[slot]
        if c.status == DOWN or (resp.to != NO_MEMBER and resp.to != c.member_id):
            continue
        keep.append((slot, resp))
    return tuple(keep)


def call_of(scope, state, action) -> tuple[Call | None, tuple]:
    """The coordinator call ``action`` makes in ``state``, and the model coordinator's out."""
    kind, slot, group = action.kind, action.slot, state.group
    if kind == "deliver":
        req = state.consumers[slot].outbox[0]
        return Call("request", slot, req), handle(group, slot, req).out
    if kind == "bounce" and sends_leave_group(state.consumers[slot]):
        req = LeaveGroup(member_id=state.consumers[slot].member_id)
        return Call("request", slot, req), handle(group, slot, req).out
    if kind == "session_timeout":
        return Call("advance", reason="session_timeout", members=(action.arg,)), \
            remove_member(group, action.arg, "session timeout").out
    if kind == "rebalance_timeout":
        late = tuple(m.member_id for m in group.members if not m.joined and unreachable(state, m.slot, m.member_id))
        return Call("advance", reason="rebalance_timeout", members=late), rebalance_timeout(group, late).out
    if kind == "crash":
        return Call("disconnect", slot, member_id=state.consumers[slot].member_id), ()
    return None, ()


def _settled(scope, state) -> bool:
    """The model says the group is settled: ``quiescent``, or Empty with nothing pending or on the wire."""
    idle = all(not c.awaiting and not c.outbox for c in state.consumers)
    return quiescent(scope, state) or (state.group.status == EMPTY and not state.group.pending and idle)


def probes(scope, state, index: int, stored: int, expired: bool = False) -> tuple[list, int]:
    """The probe steps after path step ``index`` in ``state`` and the committed offset after
    them; ``expired``: the step was a session timeout (DescribeGroups then tells whether the
    target removed the member, settled or not)."""
    group, reqs = state.group, []
    for slot, c in enumerate(state.consumers):
        if c.status != DOWN and c.member_id != NO_MEMBER:
            reqs.append(OffsetCommit(member_id=c.member_id, generation=c.generation, offset=100 * index + slot))
    if group.status == STABLE:
        reqs += [OffsetCommit(member_id=MADE_UP, generation=group.generation, offset=100 * index + 99),
                 Heartbeat(member_id=MADE_UP, generation=group.generation)]
    reqs.append(OffsetFetch())
    if expired or _settled(scope, state):
        reqs.append(DescribeGroups())
    out = []
    for k, req in enumerate(reqs, 1):
        (slot, resp), = handle(group, PROBE_SLOT, req, stored).out
        if req.kind == "OffsetCommit":
            stored = stored_after(stored, req, resp)
        out.append(ModelStep(index, None, Call("request", PROBE_SLOT, req), ((slot, resp),), probe=k))
    return out, stored


def model_steps(scope: ConsumerScope, path: list[int], with_probes: bool = True) -> list[ModelStep]:
    """Replay ``path`` through the consumer model; the coordinator call of each step, and
    the probes after each step that changed the group (once the coordinator made it)."""
    state = MODEL.init_states(scope)[path[0]]
    out, orphans = [], set()        # orphans: pending ids whose process crashed (Kafka keeps them a while)
    seen, stored = None, NO_OFFSET  # the group as last probed, the committed offset
    for i, index in enumerate(path[1:], 1):
        action = MODEL.actions(scope, state)[index]
        call, sent = call_of(scope, state, action)
        if action.kind == "crash" and state.consumers[action.slot].member_id in state.group.pending:
            orphans.add(state.consumers[action.slot].member_id)
        before, (state, _) = state, MODEL.step(scope, state, action)
        if call is not None:
            out.append(ModelStep(i, action, call, delivered(state, sent),
                                 departure(before, action, state, set(before.group.pending) | orphans)))
        g = state.group
        now = (g.status, g.generation, tuple(m.member_id for m in g.members), _settled(scope, state),
               tuple((c.member_id, c.generation) for c in state.consumers if c.status != DOWN))
        if with_probes and g.next_id > 1 and now != seen:
            made, stored = probes(scope, state, i, stored, expired=action.kind == "session_timeout")
            out += made
            seen = now
    return out


def bfs_paths(scope: ConsumerScope, depth: int, limit: int) -> list[list[int]]:
    """The shortest path to each distinct state up to ``depth`` steps, longest first
    (the longest cover the shorter), at most ``limit``."""
    first = MODEL.init_states(scope)[0]
    seen = {MODEL.canonical(scope, first)}
    queue, leaves = deque([(first, [0])]), []
    while queue:
        state, path = queue.popleft()
        if len(path) - 1 >= depth:
            leaves.append(path)
            continue
        grew = False
        for i, a in enumerate(MODEL.actions(scope, state)):
            nxt, _ = MODEL.step(scope, state, a)
            key = MODEL.canonical(scope, nxt)
            if key in seen or not MODEL.within_bounds(scope, nxt):
                continue
            seen.add(key)
            grew = True
            queue.append((nxt, path + [i]))
        if not grew:
            leaves.append(path)
    leaves.sort(key=lambda p: (-len(p), p))
    return leaves[:limit]


# the kinds a walk may ban, fixed: drawing over MODEL.fault_kinds would reshuffle every seeded
# walk whenever the model gains a budgeted kind (the record layer's lose_commit_reply, max_poll)
WALK_KINDS = ("add_partition", "crash", "delete_group", "delete_topic", "lose_response", "pause",
              "subscription_change", "timeout")


def walk_paths(scope: ConsumerScope, count: int, length: int, seed: int):
    """Seeded swarm walks, made lazily: each walk disables a random subset of ``WALK_KINDS``."""
    rng = random.Random(seed)
    for _ in range(count):
        banned = {k for k in WALK_KINDS if rng.random() < 0.5}
        state, path = MODEL.init_states(scope)[0], [0]
        for _ in range(length):
            acts = MODEL.actions(scope, state)
            allowed = [i for i, a in enumerate(acts) if a.kind not in banned]
            if not allowed or not MODEL.within_bounds(scope, state):
                break
            i = rng.choice(allowed)
            state, _ = MODEL.step(scope, state, acts[i])
            path.append(i)
        yield path


def scenarios(budget: int, seed: int = 0, depth: int = 14):
    """``budget`` scenarios, made as they are consumed: half BFS leaves (scope
    two-members), half walks (both scopes)."""
    bfs = [("two-members", p) for p in bfs_paths(SCOPES["two-members"], depth, max(1, budget // 2))]
    rest = budget - len(bfs)
    walks = ((name, p) for k, name in enumerate(SCOPES)
             for p in walk_paths(SCOPES[name], (rest + 1 - k) // 2, 40, seed + k))
    return itertools.islice(itertools.chain(bfs, walks), budget)

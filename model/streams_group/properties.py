"""What must always hold for a KIP-1071 streams group (``../shared/seeds/004_863d31bf86b40bd0.txt``).

Each claim's docstring quotes the sentence it enforces; it returns None when the claim
holds, or a message naming the broken clause. Words used below:

* *live* client: running (joining, member or leaving) and its current incarnation is a
  member of the coordinator's group (not fenced, not timed out);
* *held* by a coordinator member: assigned or pending revocation.
"""
from __future__ import annotations

from ..consumer.state import STABLE as CLASSIC_STABLE
from ..consumer.state import Group as ClassicGroup
from ..core import Property
from . import classic_clients as classic
from ..epochs import Fenced, validate_member_epoch
from .coordinator import _assignment
from .coordinator_update import owned_tasks
from .group import ACTIVE, NO_TASKS, STANDBY, WARMUP, Group, group_state
from .member import running
from .migration import ClassicGroupMetadata, streams_of
from .records import replay
from .scope import StreamsGroupScope
from .state import EMPTY, NOT_READY, STABLE, StreamsGroupHeartbeat
from .step import ERROR_NAMES, K, converged, source, view
from .topology import REJECT, decide_join
from .validation import validate
from .world import (BECAME_READY, DOWN, FAILED, LEAVING, WARMUP_PROMOTED, Action, State, member_id,
                    slot_of)


def _tasks(mask: int) -> str:
    return "[" + ", ".join(f"T{t}" for t in range(mask.bit_length()) if mask >> t & 1) + "]"


def _live(state: State):
    """Live clients, classic or streams: running, and a member of the group whatever its type."""
    for s, c in enumerate(state.clients):
        if running(c) and classic.holds(state.group, member_id(s, c.incarnation)):
            yield s, c


def _streams(group):
    """The streams group the coordinator holds (a migrating group's); None for a classic group."""
    return None if isinstance(group, ClassicGroup) else streams_of(group)


def _members(group):
    g = _streams(group)
    return () if g is None or g.dead else g.members


def _classic_request(events) -> bool:
    return bool(events) and bool(events[0].data) and not isinstance(events[0].data[0], StreamsGroupHeartbeat)


def no_task_active_twice(scope: StreamsGroupScope, state: State) -> str | None:
    """KIP-1071 (Reconciliation): "An active task is assigned as soon as no other client
    owns it anymore, that is, once the previous owner (if any) has confirmed the
    revocation of the corresponding active task." Claim: no task runs as active on two
    live clients at once (judged on what the clients run, classic and streams clients alike:
    the classic client's owned active tasks are those of its last SyncGroup)."""
    seen: dict[int, int] = {}
    for s, c in _live(state):
        for t in range(c.owned[ACTIVE].bit_length()):
            if c.owned[ACTIVE] >> t & 1:
                if t in seen:
                    return f"T{t} active on client {seen[t]} and client {s}"
                seen[t] = s
    return None


def revoke_before_reassign(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Reconciliation): "The member must first confirm revocation of these active
    tasks by removing them from the set of active tasks sent in the heartbeat request";
    "Now, active tasks will be incrementally assigned to the member." Claim: a task the
    coordinator newly assigns as active to a member is held by no other member."""
    before = {m.member_id: m.assigned[ACTIVE] for m in _members(prev.group)}
    after = _members(nxt.group)
    for m in after:
        new = m.assigned[ACTIVE] & ~before.get(m.member_id, 0)
        for o in after:
            clash = new & (o.assigned[ACTIVE] | o.pending_revocation[ACTIVE]) if o is not m else 0
            if clash:
                return f"{_tasks(clash)} assigned to {m.member_id} while {o.member_id} still holds it"
    return None


def standby_not_with_active(scope: StreamsGroupScope, state: State) -> str | None:
    """KIP-1071 (Assignment): "A stateful task (in the various roles) cannot be assigned to
    two clients with the same processId." Claims: on no process is a task held as active by
    one member and as standby or warm-up by one (current assignment), nor so targeted."""
    g = _streams(state.group)
    procs: dict[str, list[int]] = {}
    for m in _members(g):
        acc = procs.setdefault(m.process_id, [0, 0, 0, 0])
        acc[0] |= m.assigned[ACTIVE] | m.pending_revocation[ACTIVE]
        acc[1] |= m.assigned[STANDBY] | m.assigned[WARMUP]
        target = g.target_of(m.member_id)
        acc[2] |= target[ACTIVE]
        acc[3] |= target[STANDBY] | target[WARMUP]
    for pid, (active, replica, t_active, t_replica) in sorted(procs.items()):
        if active & replica:
            return f"current assignment: {pid} holds {_tasks(active & replica)} as active and as standby/warm-up"
        if t_active & t_replica:
            return f"target assignment: {pid} gets {_tasks(t_active & t_replica)} as active and as standby/warm-up"
    return None


def stale_topology_no_new_tasks(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Topology updates): "members with a topology epoch that does not correspond
    to the group's topology epoch will not get any new tasks assigned". Claim: a member
    behind the group's topology epoch gets no task in its target assignment, in a role,
    that its previous target did not give it (the assignor's spec carries target tasks,
    target.py; its current assignment then only moves towards that target). A failover
    computes no target (losing an uncommitted write restores the committed one)."""
    g = _streams(nxt.group)
    if g is None or g.dead or g.topology is None or action.kind == "failover":
        return None   # a failover computes no target (a lost write takes it back to the committed one)
    before = {m.member_id: _streams(prev.group).target_of(m.member_id) for m in _members(prev.group)}
    for m in g.members:
        if m.topology_epoch < g.topology.epoch:
            old, now = before.get(m.member_id, NO_TASKS), g.target_of(m.member_id)
            for role, name in ((ACTIVE, "active"), (STANDBY, "standby"), (WARMUP, "warm-up")):
                new = now[role] & ~old[role]
                if new:
                    return (f"{m.member_id} (topology epoch {m.topology_epoch} < {g.topology.epoch}) "
                            f"newly targeted {_tasks(new)} as {name}")
    return None


def not_ready_assigns_nothing(scope: StreamsGroupScope, state: State) -> str | None:
    """KIP-1071: "all members will get an empty assignment when the group is in NOT_READY
    state". Claim: in NOT_READY the target assignment gives every member nothing."""
    g = _streams(state.group)
    if g is None or group_state(g) != NOT_READY:
        return None
    for mid, tasks in g.target_assignment:
        if tasks != NO_TASKS:
            return f"NOT_READY, yet the target gives {mid} {tasks}"
    return None


def not_ready_responses_empty(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071: "In NOT_READY, all heartbeats will be handled as usual ... all members will
    get an empty assignment". Claim: a response sent while the group is NOT_READY carries
    no task."""
    g = _streams(nxt.group)
    if action.kind != "handle" or _classic_request(events) or g is None or group_state(g) != NOT_READY:
        return None
    resp = events[0].data[1]
    for name in ("active_tasks", "standby_tasks", "warmup_tasks"):
        lists = getattr(resp, name)
        if lists and any(t.partitions for t in lists):
            return f"NOT_READY, yet the response's {name} is {lists}"
    return None


def empty_epochs_equal(scope: StreamsGroupScope, state: State) -> str | None:
    """KIP-1071: "The group epoch is bumped: When a member joins or leaves the group"; "Every
    time the group epoch is bumped, a new task assignment is computed". The literal claim
    "EMPTY => group epoch = assignment epoch" does NOT hold: removing the last member bumps
    the group epoch and no heartbeat is left to compute the new target (the coordinator's
    ``remove_member``, as Kafka's ``removeStreamsMember``; two leaves in a row put it two
    ahead). Claim checked instead: in EMPTY no target entry is left (every removal took
    its member's target entry with it)."""
    g = _streams(state.group)
    if g is None or group_state(g) != EMPTY:
        return None
    if g.target_assignment:
        return f"EMPTY, yet target entries remain for {[mid for mid, _ in g.target_assignment]}"
    return None


def member_epoch_never_decreases(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (StreamsGroupHeartbeatRequest.MemberEpoch): "0 to join the group"; the member
    epoch "will be then maintained by the server, incremented as the member reconciles";
    "It will be reset to 0 if the member gets fenced" (StreamsMembershipManager). Claims:
    (client) an incarnation's epoch never decreases except to 0; (coordinator) a member's
    epoch never decreases except to 0 (a rejoin), or in a failover that loses an uncommitted
    write (the coordinator is back at the committed epoch its client still holds)."""
    for s, (a, b) in enumerate(zip(prev.clients, nxt.clients)):
        if a.incarnation == b.incarnation and b.epoch < a.epoch and b.epoch != 0:
            return f"client {s}: epoch {a.epoch} -> {b.epoch}"
    if action.kind == "failover":
        return None   # a lost uncommitted write takes the coordinator back to the committed epochs
    before = {m.member_id: m.epoch for m in _members(prev.group)}
    for m in _members(nxt.group):
        old = before.get(m.member_id)
        if old is not None and m.epoch < old and m.epoch != 0:
            return f"coordinator: {m.member_id} epoch {old} -> {m.epoch}"
    return None


def join_epoch_is_rejoin(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Request Validation): "ActiveTasks, StandbyTasks and WarmupTasks have to be
    non-null and empty when joining (member epoch is 0)"; a fenced member "will release its
    assignment and rejoin the group" (StreamsMembershipManager). Claims: (client) a client
    sending epoch 0 runs no task; (coordinator) a member handled at epoch 0 holds nothing
    pending revocation afterwards (it starts over)."""
    if _classic_request(events) or (action.kind == "send" and nxt.clients[action.slot].classic):
        return None
    if action.kind == "send" and nxt.clients[action.slot].request.epoch == 0:
        c = nxt.clients[action.slot]
        if c.owned != NO_TASKS:
            return f"client {action.slot} joins with epoch 0 still running {c.owned}"
    if action.kind == "handle" and events[0].data[0].member_epoch == 0:
        g = _streams(nxt.group)
        m = None if g is None or g.dead else g.member(events[0].data[0].member_id)
        if m is not None and m.pending_revocation != NO_TASKS:
            return f"coordinator: {m.member_id} rejoined at epoch 0 but still has {m.pending_revocation} pending"
    return None


def replay_gives_live_state(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Persistence): "The metadata sent to the broker via the heartbeat is
    persisted as a new record type in the __consumer_offsets topic and is part of the group
    coordinator state in subsequent requests." Claims: replaying a step's streams records
    on the previous streams group gives the next one (a classic group holds none; a
    conversion back writes the classic group's record, which must hold the group); a
    ``failover`` (the new coordinator replays the compacted log) keeps the streams group."""
    if action.kind == "failover":   # the committed group: without the last write if it was lost
        committed = prev.uncommitted[0] if action.arg else prev.group
        if view(scope, nxt.group) != view(scope, committed):
            return f"failover: the new coordinator's group differs from the live one ({events[0].note})"
        return None
    for e in events:
        if e.data:
            streams = tuple(r for r in e.data[2] if not isinstance(r, ClassicGroupMetadata))
            got = replay(streams, view(scope, prev.group))
            if got != view(scope, nxt.group):
                return f"{action.kind} of client {action.slot}: replay of its {len(streams)} records differs"
            for r in e.data[2]:
                if isinstance(r, ClassicGroupMetadata) and r.value is not None and r.value != nxt.group:
                    return f"{action.kind} of client {action.slot}: the classic group's record differs from it"
    return None


def prescribed_error(scope: StreamsGroupScope, prev: State, request) -> str:
    """The error validation and the decision tables prescribe for ``request`` (\"\": none).
    A classic group (migration.py): only a join passes, and under the shipped profiles only
    when the classic group is empty (KAFKA-19570: "Group X is not a streams group.")."""
    err = validate(request, scope.profile)
    if err is not None:
        return err.code
    if isinstance(prev.group, ClassicGroup):
        if request.member_epoch != 0 or (scope.profile != "kip-1071" and prev.group.members):
            return "GROUP_ID_NOT_FOUND"
    g = view(scope, prev.group)
    if request.member_epoch == 0:
        held = None if g.dead else g.topology
        same = held is not None and held.subtopologies == request.topology.subtopologies
        outcome = decide_join(scope.profile, request.topology.epoch, None if held is None else held.epoch, same)
        return outcome.error.code if outcome.kind == REJECT else ""
    m = None if g.dead else g.member(request.member_id)
    if m is None:
        return "GROUP_ID_NOT_FOUND" if g.dead else "UNKNOWN_MEMBER_ID"
    if request.member_epoch < 0:
        return ""
    try:
        validate_member_epoch(_assignment(m), request.member_epoch, owned_tasks(g, request))
    except Fenced:
        return "FENCED_MEMBER_EPOCH"
    return ""


def error_as_profile_prescribes(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Request Validation, Request Handling): each failed check answers with its
    own error - "INVALID_REQUEST is returned should the request not obey the following
    invariants", "If ER<EG, fail with STREAMS_TOPOLOGY_FENCED", "If the member does not
    exist, returns UNKNOWN_MEMBER_ID", "FENCED_MEMBER_EPOCH is returned otherwise". Claim:
    every response carries the error the profile's validation and decision tables prescribe."""
    if action.kind != "handle" or _classic_request(events):
        return None
    request, response = events[0].data[0], events[0].data[1]
    want = prescribed_error(scope, prev, request)
    got = ERROR_NAMES[response.error_code] if response.error_code else ""
    if got != want:
        return f"epoch {request.member_epoch} heartbeat answered {got or 'NONE'}, prescribed {want or 'NONE'}"
    return None


def _membership_stable(state: State) -> bool:
    if any(c.status in (DOWN, LEAVING, FAILED) for c in state.clients):
        return False
    if len({c.topology_epoch for c in state.clients}) > 1 or source(0) not in dict(state.topics):
        return False
    for m in _members(state.group):
        s, inc = slot_of(m.member_id)
        if state.clients[s].incarnation != inc or not running(state.clients[s]):
            return False
    return True


def converges_within_k(scope: StreamsGroupScope, state: State) -> str | None:
    """KIP-1071 (Reconciliation): "Ultimately, each member will converge to their target
    epoch and assignment." Claim (bounded liveness): with membership and topics unchanged,
    after K = 5 full heartbeat rounds (notice, new target, revoke, acknowledge, assign) every running client is at the target epoch running its
    target tasks (clause 1), and the group is STABLE (clause 2)."""
    if state.calm < K or not _membership_stable(state):
        return None
    for s, c in enumerate(state.clients):
        if running(c) and not converged(state, s, scope):
            return f"{K} rounds without disturbance, yet client {s} is not at the target (epoch {c.epoch})"
    g = state.group   # a classic group: Stable in the classic protocol's words
    now = g.status if isinstance(g, ClassicGroup) else group_state(view(scope, g))
    if any(running(c) for c in state.clients) and now not in (STABLE, CLASSIC_STABLE):
        return f"{K} rounds without disturbance, yet the group is {now}"
    return None


def topology_update_completes(scope: StreamsGroupScope, state: State) -> str | None:
    """Witness: a rolling topology update finished - the group's topology epoch is above 0,
    every client runs it, and the group is STABLE."""
    g = _streams(state.group)
    if g is None:
        return None
    if g.dead or g.topology is None or g.topology.epoch == 0 or group_state(g) != STABLE:
        return None
    if all(c.topology_epoch == g.topology.epoch and converged(state, s, scope) for s, c in enumerate(state.clients)):
        return f"every client converged on topology epoch {g.topology.epoch}"
    return None


def warmup_promoted(scope: StreamsGroupScope, state: State) -> str | None:
    """Witness: a new target assignment made a member's warm-up task its active task ("Each
    warm-up task that has reached acceptable.recovery.lag must be turned into an active task
    or a standby task, or be unassigned from the member")."""
    return "a warm-up task became active in the target" if state.marks & WARMUP_PROMOTED else None


def migration_completes(scope: StreamsGroupScope, state: State) -> str | None:
    """Witness: a group that started classic finished its rolling upgrade. KIP-1071 (Online
    Migration): "upgrading from a classic consumer group currently used in Kafka Streams to
    the new streams group is possible by rolling the Streams clients"; "When the first
    consumer of a Streams client using the new Streams rebalance protocol joins the group,
    the group is converted from a classic group to a streams group." Reached when every
    client speaks the streams protocol, no classic member is left (a plain streams group,
    the migration state gone), the group is STABLE and every running client converged."""
    g = state.group
    if not scope.classic or not isinstance(g, Group) or g.dead or group_state(g) != STABLE:
        return None
    if any(c.classic for c in state.clients):
        return None
    if all(converged(state, s, scope) for s, c in enumerate(state.clients) if running(c)):
        return "every client on the streams protocol, the group STABLE, no classic member left"
    return None


def not_ready_then_ready(scope: StreamsGroupScope, state: State) -> str | None:
    """Witness: the group left NOT_READY for a ready state (topics created or restored)."""
    return "NOT_READY, then ready" if state.marks & BECAME_READY else None


PROPERTIES = (
    Property("no_task_active_twice", "always", no_task_active_twice),
    Property("revoke_before_reassign", "always", revoke_before_reassign, on="step"),
    Property("standby_not_with_active", "always", standby_not_with_active),
    Property("stale_topology_no_new_tasks", "always", stale_topology_no_new_tasks, on="step"),
    Property("not_ready_assigns_nothing", "always", not_ready_assigns_nothing),
    Property("not_ready_responses_empty", "always", not_ready_responses_empty, on="step"),
    Property("empty_epochs_equal", "always", empty_epochs_equal),
    Property("member_epoch_never_decreases", "always", member_epoch_never_decreases, on="step"),
    Property("join_epoch_is_rejoin", "always", join_epoch_is_rejoin, on="step"),
    Property("replay_gives_live_state", "always", replay_gives_live_state, on="step"),
    Property("error_as_profile_prescribes", "always", error_as_profile_prescribes, on="step"),
    Property("converges_within_k", "within", converges_within_k),
    Property("topology_update_completes", "sometimes", topology_update_completes),
    Property("warmup_promoted", "sometimes", warmup_promoted),
    Property("not_ready_then_ready", "sometimes", not_ready_then_ready),
    Property("migration_completes", "sometimes", migration_completes),
)

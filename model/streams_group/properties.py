"""What must always hold for a KIP-1071 streams group (``../shared/seeds/004_863d31bf86b40bd0.txt``).

Each claim's docstring quotes the sentence it enforces; it returns None when the claim
holds, or a message naming the broken clause. Words used below:

* *live* client: running (joining, member or leaving) and its current incarnation is a
  member of the coordinator's group (not fenced, not timed out);
* *held* by a coordinator member: assigned or pending revocation.
"""
from __future__ import annotations

from functools import lru_cache

from ..consumer.state import STABLE as CLASSIC_STABLE
from ..consumer.state import Group as ClassicGroup
from ..core import Property
from . import classic_clients as classic
from ..epochs import Fenced, validate_member_epoch
from .coordinator import _assignment
from .coordinator_update import owned_tasks, switched
from .group import ACTIVE, NO_TASKS, STANDBY, WARMUP, Group, group_state
from .member import running
from .migration import ClassicGroupMetadata, streams_of
from .records import replay
from .scope import StreamsGroupScope
from .state import EMPTY, LEAVE_STATIC_EPOCH, NOT_READY, SHUTDOWN_APPLICATION, STABLE, StreamsGroupHeartbeat
from .step import ERROR_NAMES, K, config, converged, source, view
from .target import lag_levels
from .topology import REJECT, configure, decide_join
from .validation import validate, validate_tasks
from .world import (BECAME_READY, DOWN, FAILED, LEAVING, STATIC_KEPT, WARMUP_PROMOTED, Action, State,
                    member_id, slot_of)


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
    return bool(events) and bool(events[0].data) and not isinstance(events[0].data.request, StreamsGroupHeartbeat)


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
    if prev.group is nxt.group:   # the step left the coordinator's group alone
        return None
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
    if prev.group is nxt.group or g is None or g.dead or g.topology is None or action.kind == "failover":
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
    resp = events[0].data.response
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
    "It will be reset to 0 if the member gets fenced" (StreamsMembershipManager); "-2 to
    indicate that the static member will rejoin". Claims: (client) an incarnation's epoch
    never decreases except to 0; (coordinator) a member's epoch never decreases except to 0
    (a rejoin), to -2 (a static member's temporary leave), or in a failover that loses an
    uncommitted write (the coordinator is back at the committed epoch its client still holds)."""
    for s, (a, b) in enumerate(zip(prev.clients, nxt.clients)):
        if a.incarnation == b.incarnation and b.epoch < a.epoch and b.epoch != 0:
            return f"client {s}: epoch {a.epoch} -> {b.epoch}"
    if action.kind == "failover" or prev.group is nxt.group:
        return None   # a lost uncommitted write takes the coordinator back to the committed epochs;
                      # a step that left the group alone moved no member epoch
    before = {m.member_id: m.epoch for m in _members(prev.group)}
    for m in _members(nxt.group):
        old = before.get(m.member_id)
        if old is not None and m.epoch < old and m.epoch not in (0, LEAVE_STATIC_EPOCH):
            return f"coordinator: {m.member_id} epoch {old} -> {m.epoch}"
    return None


def join_epoch_is_rejoin(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Request Validation): "ActiveTasks, StandbyTasks and WarmupTasks have to be
    non-null and empty when joining (member epoch is 0)"; a fenced member "will release its
    assignment and rejoin the group" (StreamsMembershipManager); MemberEpoch: "0 to join the
    group". Claims: (client) a join heartbeat carries epoch 0, and a client sending epoch 0
    runs no task; (coordinator) a member handled at epoch 0 holds nothing pending revocation
    afterwards (it starts over). Classic clients' requests are not heartbeats: skipped."""
    if _classic_request(events) or (action.kind == "send" and nxt.clients[action.slot].classic):
        return None
    if action.kind == "send" and nxt.clients[action.slot].request.joining and nxt.clients[action.slot].request.epoch != 0:
        return f"client {action.slot} (re-)joins with epoch {nxt.clients[action.slot].request.epoch}"
    if action.kind == "send" and nxt.clients[action.slot].request.epoch == 0:
        c = nxt.clients[action.slot]
        if c.owned != NO_TASKS:
            return f"client {action.slot} joins with epoch 0 still running {c.owned}"
    if action.kind == "handle" and events[0].data.request.member_epoch == 0:
        g = _streams(nxt.group)
        m = None if g is None or g.dead else g.member(events[0].data.request.member_id)
        if m is not None and m.pending_revocation != NO_TASKS:
            return f"coordinator: {m.member_id} rejoined at epoch 0 but still has {m.pending_revocation} pending"
    return None


# cached for the search: one step's records meet one group in many states
_replayed = lru_cache(maxsize=1 << 14)(replay)


def replay_gives_live_state(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Persistence): "The metadata sent to the broker via the heartbeat is
    persisted as a new record type in the __consumer_offsets topic and is part of the group
    coordinator state in subsequent requests." Claims: replaying a step's streams records
    on the previous streams group gives the next one (a classic group holds none; a
    conversion back writes the classic group's record, which must hold the group); a
    ``failover`` (the new coordinator replays the compacted log) keeps the streams group."""
    if action.kind == "failover":   # the committed group: without the last write if it was lost
        committed = prev.uncommitted.committed if action.arg else prev.group
        if view(scope, nxt.group) != view(scope, committed):
            return f"failover: the new coordinator's group differs from the live one ({events[0].note})"
        return None
    for e in events:
        if e.data:
            streams = tuple(r for r in e.data.records if not isinstance(r, ClassicGroupMetadata))
            got = _replayed(streams, view(scope, prev.group))
            if got != view(scope, nxt.group):
                return f"{action.kind} of client {action.slot}: replay of its {len(streams)} records differs"
            for r in e.data.records:
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
    static = _static_error(scope, g, request)
    if static:
        return static
    if request.member_epoch == 0:
        held = None if g.dead else g.topology
        same = held is not None and held.subtopologies == request.topology.subtopologies
        outcome = decide_join(scope.profile, request.topology.epoch, None if held is None else held.epoch, same)
        return outcome.error.code if outcome.kind == REJECT else ""
    if g.dead:
        return "GROUP_ID_NOT_FOUND"
    m = g.member(request.member_id)
    if m is None:
        return "UNKNOWN_MEMBER_ID"
    if request.member_epoch < 0:
        return ""
    try:
        validate_member_epoch(_assignment(m), request.member_epoch, owned_tasks(g, request))
    except Fenced:
        return "FENCED_MEMBER_EPOCH"
    # KIP (Request Validation): "Each element of ActiveTasks, StandbyTasks and WarmupTasks has to
    # be a valid task ID in the topology initialized for the group ID" - checked once the group's
    # topology is configured against the topics (GroupMetadataManager#throwIfRequestContainsInvalidTasks)
    configured = configure(g.topology, dict(prev.topics), scope.profile)
    if configured.ready and validate_tasks(request, configured.number_of_tasks) is not None:
        return "INVALID_REQUEST"
    return ""


def _static_error(scope, g, request) -> str:
    """The static-membership errors (KIP-848's rules; KIP-1071 lists UNRELEASED_INSTANCE_ID):
    a join takes an instance id only from nobody or from a member that left with -2 (or,
    where the profile rejoins in place, from itself); any other heartbeat must come from the
    member holding its instance id."""
    if request.instance_id is None or g.dead:
        return ""
    holder = next((m for m in g.members if m.instance_id == request.instance_id), None)
    if request.member_epoch == 0:
        if holder is None or holder.epoch == LEAVE_STATIC_EPOCH:
            return ""
        in_place = switched(scope.profile, scope.switches).static_rejoin_in_place
        return "" if in_place and holder.member_id == request.member_id else "UNRELEASED_INSTANCE_ID"
    if holder is None:
        return "UNKNOWN_MEMBER_ID"
    return "FENCED_INSTANCE_ID" if holder.member_id != request.member_id else ""


def error_as_profile_prescribes(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Request Validation, Request Handling): each failed check answers with its
    own error - "INVALID_REQUEST is returned should the request not obey the following
    invariants", "If ER<EG, fail with STREAMS_TOPOLOGY_FENCED", "If the member does not
    exist, returns UNKNOWN_MEMBER_ID", "FENCED_MEMBER_EPOCH is returned otherwise", and
    UNRELEASED_INSTANCE_ID / FENCED_INSTANCE_ID for instance ids (``_static_error``). Claim:
    every response carries the error the profile's validation and decision tables prescribe."""
    if action.kind != "handle" or _classic_request(events):
        return None
    request, response = events[0].data.request, events[0].data.response
    want = prescribed_error(scope, prev, request)
    got = ERROR_NAMES[response.error_code] if response.error_code else ""
    if got != want:
        return f"epoch {request.member_epoch} heartbeat answered {got or 'NONE'}, prescribed {want or 'NONE'}"
    return None


# The handler's names for the KIP's reasons (coordinator.remove_member, coordinator_update).
# "validated topology epoch changed" is Kafka's step 3b: allowed only beside one of these.
BUMP_REASONS = frozenset((
    "member joined", "member left",                                     # "joins or leaves"
    "member fenced", "member removed (session timeout)", "member removed (rebalance timeout)",
    "partition metadata changed", "warm-up caught up",
    "member metadata changed", "topology changed",                      # "topology metadata, rack ID, ..."
    "assignment configuration changed"))


def epoch_bumped_for_a_listed_reason(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Rebalance Process): "The group epoch is bumped: When a member joins or leaves
    the group. When a member is fenced or removed from the group by the group coordinator.
    When the partition metadata is updated. When a member with an assigned warm-up task
    reports [...] less than acceptable.recovery.lag. When a member updates its topology
    metadata, rack ID, client tags or process ID. When an assignment configuration for the
    group is updated." Claim: the group epoch of a streams group rises in a step only by one
    and only for reasons on that list, and a step that names a bump raises it (a failover
    reloads the log: no bump, and it may lose an uncommitted one)."""
    g0, g1 = view(scope, prev.group), view(scope, nxt.group)
    if g0.dead or g1.dead or action.kind == "failover":   # a reload, not a bump (may lose an uncommitted one)
        return None
    reasons = [r for e in events if e.data for kind, *rest in e.data.events if kind == "group_epoch_bumped"
               for r in rest[0]]
    rise = g1.group_epoch - g0.group_epoch
    if rise not in (0, 1) or (rise == 1) != bool(reasons):
        return f"group epoch {g0.group_epoch} -> {g1.group_epoch} with reasons {reasons}"
    unlisted = [r for r in reasons if r not in BUMP_REASONS and r != "validated topology epoch changed"]
    if unlisted or reasons == ["validated topology epoch changed"]:
        return f"group epoch bumped for {reasons}, not on the KIP's list"
    return None


def one_creation_in_flight(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (MISSING_INTERNAL_TOPICS): "the group coordinator will attempt to create the
    internal topics by sending a corresponding topic create request [...] There can only be
    one such request in-flight at a time". Claim: no CreateTopics is sent for an internal
    topic whose creation is still in flight."""
    if action.kind != "handle" or len(events[0].data) < 5:
        return None
    again = sorted(set(events[0].data.created) & {name for name, _ in prev.creating})
    return f"CreateTopics sent for {again} while their creation is in flight" if again else None


def warmup_caught_up_resolved(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (Assignment): "Each task assignor must make sure to fulfill the following
    invariants: Each warm-up task that has reached acceptable.recovery.lag must be turned
    into an active task or a standby task, or be unassigned from the member." Claim: a new
    target computed in a heartbeat that reports a warm-up task of the member's target
    within acceptable.recovery.lag no longer has that task as the member's warm-up."""
    if action.kind != "handle" or _classic_request(events) or not any(e[0] == "new_target" for e in events[0].data.events):
        return None
    request, g0, g1 = events[0].data.request, view(scope, prev.group), view(scope, nxt.group)
    if g0.dead or g1.dead:
        return None
    limit = config(scope).assignment.acceptable_recovery_lag
    lags = lag_levels(request.task_offsets, request.task_end_offsets)
    kept = g0.target_of(request.member_id)[WARMUP] & g1.target_of(request.member_id)[WARMUP]
    for i, task in enumerate(g1.task_index):
        if kept >> i & 1 and lags.get(task, limit + 1) <= limit:
            return f"{request.member_id} reported warm-up T{i} caught up, yet the new target keeps it a warm-up"
    return None


def shutdown_reaches_every_member(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (StreamsGroupHeartbeatResponse.Status): "4 - SHUTDOWN_APPLICATION - A client
    requested the shutdown of the whole application." Kafka sends it to every member until
    the group is empty (``GroupMetadataManager#streamsGroupHeartbeat``, the group's
    shutdown requester). Claim: once a member has requested the shutdown, every successful
    response to a member of the group carries SHUTDOWN_APPLICATION."""
    if action.kind != "handle" or _classic_request(events):
        return None
    request, response = events[0].data.request, events[0].data.response
    asked = prev.shutdown is not None or request.shutdown_application
    if not asked or response.error_code or request.member_epoch < 0:
        return None
    if SHUTDOWN_APPLICATION not in [st.status_code for st in response.status or ()]:
        return f"{request.member_id} answered without SHUTDOWN_APPLICATION after a shutdown request"
    return None


def shutdown_request_kept(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (StreamsGroupHeartbeatRequest): "A flag to request shutdown of the whole
    application (only if the member epoch is the group leave epoch)", ShutdownApplication:
    "Whether all Streams clients in the group should shut down"; status 4 SHUTDOWN_APPLICATION:
    "A client requested the shutdown of the whole application." Claim: once the coordinator
    accepts a heartbeat asking for the shutdown (any epoch, a leave too), it keeps a requester,
    and so tells every member, while the group has members."""
    if action.kind != "handle" or _classic_request(events):
        return None
    request, response = events[0].data.request, events[0].data.response
    if not request.shutdown_application or response.error_code or not _members(nxt.group):
        return None
    if nxt.shutdown is None:
        return (f"{request.member_id}'s shutdown request (epoch {request.member_epoch}) was dropped; "
                f"{len(_members(nxt.group))} member(s) go on running")
    return None


def _membership_stable(state: State) -> bool:
    if any(c.status in (DOWN, LEAVING, FAILED) for c in state.clients):
        return False
    if len({c.topology_epoch for c in state.clients}) > 1 or source(0) not in dict(state.topics) or state.creating:
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


def static_member_keeps_assignment(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-1071 (StreamsGroupHeartbeatRequest.MemberEpoch): "-2 to indicate that the static
    member will rejoin"; the group epoch is bumped "When a member joins or leaves the group"
    and, for member metadata, "only ... when a member with static membership rejoins with an
    updated configuration". Claims: (leave) a static member handled at -2 stays in the group
    at epoch -2 with its assigned tasks and target, and the group epoch does not move;
    (rejoin) a member that replaces it holds its target (unless a new target was computed)
    and the group epoch moves only if the member's topology epoch changed."""
    if action.kind != "handle" or _classic_request(events):
        return None
    request, response = events[0].data.request, events[0].data.response
    before, after = view(scope, prev.group), view(scope, nxt.group)
    if response.error_code or request.instance_id is None or after.dead:
        return None
    if request.member_epoch == LEAVE_STATIC_EPOCH:
        old, m = before.member(request.member_id), after.member(request.member_id)
        if m is None or m.epoch != LEAVE_STATIC_EPOCH or m.assigned != old.assigned:
            return f"{request.member_id} left with -2 but is not kept at -2 with its tasks"
        if after.target_of(m.member_id) != before.target_of(m.member_id) or after.group_epoch != before.group_epoch:
            return f"{request.member_id} left with -2 and its target or the group epoch moved"
        return None
    old = None if before.dead else before.static_member(request.instance_id)
    if request.member_epoch != 0 or old is None or old.epoch != LEAVE_STATIC_EPOCH:
        return None
    m = after.member(request.member_id)
    if m is None or after.member(old.member_id) is not None and old.member_id != request.member_id:
        return f"{request.member_id} replaced {old.member_id} but the group holds {[x.member_id for x in after.members]}"
    if after.target_assignment_epoch == before.target_assignment_epoch and \
            after.target_of(m.member_id) != before.target_of(old.member_id):
        return f"{request.member_id} replaced {old.member_id} but did not take its target over"
    if after.group_epoch != before.group_epoch and m.topology_epoch == old.topology_epoch:
        return f"{request.member_id} replaced {old.member_id} and the group epoch moved with no new configuration"
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


def static_rejoin_keeps_tasks(scope: StreamsGroupScope, state: State) -> str | None:
    """Witness: a static member left with -2 and the next incarnation of its client (a new
    member id, the same instance id) got its tasks back with no group-epoch bump (KIP:
    "-2 to indicate that the static member will rejoin")."""
    return "a static member's tasks survived its restart without a bump" if state.marks & STATIC_KEPT else None


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
    Property("static_member_keeps_assignment", "always", static_member_keeps_assignment, on="step"),
    Property("epoch_bumped_for_a_listed_reason", "always", epoch_bumped_for_a_listed_reason, on="step"),
    Property("one_creation_in_flight", "always", one_creation_in_flight, on="step"),
    Property("warmup_caught_up_resolved", "always", warmup_caught_up_resolved, on="step"),
    Property("shutdown_reaches_every_member", "always", shutdown_reaches_every_member, on="step"),
    Property("shutdown_request_kept", "always", shutdown_request_kept, on="step"),
    Property("converges_within_k", "within", converges_within_k),
    Property("topology_update_completes", "sometimes", topology_update_completes),
    Property("warmup_promoted", "sometimes", warmup_promoted),
    Property("not_ready_then_ready", "sometimes", not_ready_then_ready),
    Property("static_rejoin_keeps_tasks", "sometimes", static_rejoin_keeps_tasks),
    Property("migration_completes", "sometimes", migration_completes),
)

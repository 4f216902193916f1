"""Steps 4-9 of the StreamsGroupHeartbeat handler (see ``coordinator``): member metadata,
topology and topic metadata, the group-epoch bump, the target assignment, reconciliation,
the response and the records; and the coordinator profiles.

Source: GroupMetadataManager#streamsGroupHeartbeat (apache/kafka, group-coordinator/src/main/
java/org/apache/kafka/coordinator/group/), its parts 1-5 and the response it builds.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Optional

from ..epochs import STREAMS_4_1, STREAMS_TRUNK, Fenced, Holding, MemberAssignment, reconcile, streams_unreleased
from ..epochs import Profile as EpochProfile
from ..epochs.switches import apply_switches
from .group import ACTIVE, WARMUP, Group, Member, Tasks, mask_of, task_ids_of
from .profiles import KAFKA_4_1, KAFKA_4_5, KIP_1071, UPDATES_NOT_SUPPORTED, Profile, profile as streams_profile
from .records import diff
from .state import (LEAVE_EPOCH, SHUTDOWN_APPLICATION, Status, StreamsGroupHeartbeat, StreamsGroupHeartbeatResponse,
                    Topology)
from .target import AssignmentConfigs, assignment_configs, lag_levels, new_target, partition_metadata
from .topology import configure, stale_status
from .validation import Error, validate_tasks


class CoordinatorProfile(NamedTuple):
    """A streams-group profile and what the coordinator takes with it."""

    streams: Profile
    # The epoch core's profile: the KIP has no revocation epoch and neither has 4.1
    # (streams-4.1); KAFKA-19779 (after 4.1) adds it (streams-trunk).
    epochs: EpochProfile
    # KIP 3.iv: "FENCED_MEMBER_EPOCH is returned otherwise. The member is also removed from
    # the group." Kafka throws FencedMemberEpochException: nothing is written.
    fenced_removes_member: bool
    # Kafka (hasStreamsMemberMetadataChanged): any change of the member's metadata bumps.
    # KIP: only "topology metadata, rack ID, client tags or process ID".
    bump_on_any_member_change: bool
    # Kafka (throwIfStreamsGroupIsFull): a full group refuses every join, a known member too.
    full_rejects_known_member: bool
    # Rules a scope may switch (``SWITCHES``; the defaults are the reference):
    # KAFKA-19233 (fixed 2026-01): an epoch-0 heartbeat from a known member is a rejoin.
    # Before the fix it went through the member-epoch check and, with the member at a
    # higher epoch, was answered FENCED_MEMBER_EPOCH.
    epoch0_rejoin_resets: bool = True
    # Not Kafka: send the task lists also when the tasks the heartbeat reports owned differ
    # from the member's assigned tasks (after a lost response the client reports the old
    # ones). Kafka's streams handler sends them only on epoch 0 or a change
    # (GroupMetadataManager#streamsGroupHeartbeat); KIP-848's consumer handler answers a
    # full request with the full assignment (isFullRequest, KAFKA-16367).
    resend_when_owned_differs: bool = False
    # A static member's epoch-0 heartbeat while it still holds its instance id (a lost join
    # response, a rejoin after FENCED_MEMBER_EPOCH: the client keeps its member id). True: a
    # rejoin like any known member's (the KIP's "0 to join the group"; the fix proposed in
    # apache/kafka#23542). False: UNRELEASED_INSTANCE_ID, as Kafka's getOrMaybeCreate-
    # StaticStreamsGroupMember answers since KAFKA-20169 (#23542 still open).
    static_rejoin_in_place: bool = False
    # Client rules (member.py reads them; a scope switches them like the coordinator's):
    # KAFKA-19335 (apache/kafka PR #19818, merged 2025-05): StreamsMembershipManager#
    # onHeartbeatSuccess ignores a response whose member epoch is negative. Before the fix a
    # member that had rejoined (JOINING, epoch 0) while its leave heartbeat was in flight took
    # the leave response's epoch -1 and sent its join heartbeat with it.
    ignore_negative_epoch_response: bool = True
    # KAFKA-20870 (apache/kafka PR #23002): StreamsGroupHeartbeatRequestManager sends the three
    # owned-task lists together (all of them when any changed since the last heartbeat); the
    # coordinator reads them as a report only when all three are non-null. False: the client
    # sends only the lists that changed, null for the others.
    send_all_task_lists: bool = True
    # KAFKA-20899 (apache/kafka PR #23096): the sticky assignor's standby pass checks every
    # previous standby holder's process for the task. False: the first holder is unchecked.
    standby_first_holder_checked: bool = True
    # KAFKA-19190 (apache/kafka PR #19544, merged 2025-04): a leave heartbeat (epoch -1) with
    # ShutdownApplication records the requester (KIP: "A flag to request shutdown of the whole
    # application (only if the member epoch is the group leave epoch)"). Before the fix the
    # leave path dropped the flag, so the other members never heard of the shutdown.
    leave_records_shutdown: bool = True
    # KAFKA-20254 (4.2.0; fixed in 4.2.1, apache/kafka PR #21641): replaying a streams record
    # for a group id that an earlier offset commit made a simple classic group fails with
    # "Group X is not a streams group." (records.replay's ``kafka_20254``).
    replay_rejects_simple_classic_group: bool = False


COORDINATOR_PROFILES = {
    "kip-1071": CoordinatorProfile(streams=KIP_1071, epochs=STREAMS_4_1, fenced_removes_member=True,
                                   bump_on_any_member_change=False, full_rejects_known_member=False,
                                   static_rejoin_in_place=True),
    "kafka-4.1": CoordinatorProfile(streams=KAFKA_4_1, epochs=STREAMS_4_1, fenced_removes_member=False,
                                    bump_on_any_member_change=True, full_rejects_known_member=True),
    "kafka-4.5": CoordinatorProfile(streams=KAFKA_4_5, epochs=STREAMS_TRUNK, fenced_removes_member=False,
                                    bump_on_any_member_change=True, full_rejects_known_member=True),
}


def coordinator_profile(p) -> CoordinatorProfile:
    if isinstance(p, CoordinatorProfile):
        return p
    return COORDINATOR_PROFILES[streams_profile(p).name]


# One rule of a profile switched, by name (a scope's ``switches``; known-bug variants in
# properties/known_bugs/streams_group.py). Each takes a CoordinatorProfile and returns it
# with that rule changed.
SWITCHES = {
    # KAFKA-19233 unfixed: an epoch-0 rejoin from a known member at a higher epoch is fenced.
    "kafka-19233": lambda cp: cp._replace(epoch0_rejoin_resets=False),
    # KAFKA-21370 unfixed: a same-epoch topology mismatch answers INVALID_REQUEST (42,
    # "Topology updates are not supported yet.") instead of STREAMS_INVALID_TOPOLOGY_EPOCH.
    "kafka-21370": lambda cp: cp._replace(streams=cp.streams._replace(same_epoch_mismatch=UPDATES_NOT_SUPPORTED)),
    # Kafka 4.2+ (apache/kafka PR #20663): the broker skips internal topics whose creation
    # is in flight; 4.1 sends a CreateTopics on every heartbeat (properties/, FINDINGS).
    "one-creation-in-flight": lambda cp: cp._replace(streams=cp.streams._replace(one_creation_in_flight=True)),
    # KAFKA-19335 unfixed: a JOINING client takes the epoch -1 of the response to its earlier
    # leave heartbeat, so its join heartbeat carries -1 (and a topology): INVALID_REQUEST.
    "kafka-19335": lambda cp: cp._replace(ignore_negative_epoch_response=False),
    # KAFKA-20870's hazard: the client sends only the owned-task lists that changed since it
    # last sent them; with one null the coordinator sees no report, so a revocation is never
    # acknowledged.
    "kafka-20870": lambda cp: cp._replace(send_all_task_lists=False),
    # KAFKA-20899 unfixed: a standby may go to the first previous standby holder even though
    # its process now holds the task (as active): two roles of one task on one process.
    "kafka-20899": lambda cp: cp._replace(standby_first_holder_checked=False),
    # KAFKA-19190 unfixed: a leave heartbeat's ShutdownApplication is ignored.
    "kafka-19190": lambda cp: cp._replace(leave_records_shutdown=False),
    # Not Kafka: the candidate fix for the lost-response finding (README, "Findings").
    "resend-when-owned-differs": lambda cp: cp._replace(resend_when_owned_differs=True),
    # KAFKA-20254 unfixed: after an offline migration and compaction, loading the log fails.
    "kafka-20254": lambda cp: cp._replace(replay_rejects_simple_classic_group=True),
}


def switched(profile, switches=()) -> CoordinatorProfile:
    """``profile``'s coordinator rules with each of ``switches`` (names in ``SWITCHES``) applied."""
    return apply_switches(coordinator_profile(profile), switches, SWITCHES, "streams group")


class Config(NamedTuple):
    """Broker-side settings: ``max_size`` (group.streams.max.size, None: unbounded), the
    intervals the response carries, the assignor (None: the KIP's default) and the group's
    assignment configs."""

    max_size: Optional[int] = None
    heartbeat_interval_ms: int = 5000
    task_offset_interval_ms: int = 60000
    assignor: Optional[str] = None
    assignment: AssignmentConfigs = AssignmentConfigs()


class Outcome(NamedTuple):
    """A handler's result: the group after it, the response (None for a timer), the records
    that turn the old group into it, events (``("group_epoch_bumped", reasons)``,
    ``("member_removed", id)``, ``("new_target", epoch)``, ``("internal_topics_to_create",
    names)``) and the soft SHUTDOWN_APPLICATION requester."""

    group: object
    response: Optional[StreamsGroupHeartbeatResponse]
    records: tuple
    events: tuple
    shutdown_member_id: Optional[str] = None


def bumped(reasons) -> tuple:
    return (("group_epoch_bumped", tuple(reasons)),)


def error_outcome(group, error: Error, shutdown: Optional[str]) -> Outcome:
    """An error response; nothing is written (the exception aborts Kafka's handler)."""
    return Outcome(group, StreamsGroupHeartbeatResponse(error_code=error.error_code, error_message=error.message),
                   (), (), shutdown)


def owned_tasks(group: Group, r: StreamsGroupHeartbeat) -> Optional[Tasks]:
    """The reported owned tasks as bitmasks; None when not reported (validation makes the
    three lists all-or-none in shipped profiles; the KIP's: absent counts as unreported)."""
    if r.active_tasks is None or r.standby_tasks is None or r.warmup_tasks is None:
        return None
    return tuple(mask_of(group.task_index, x) for x in (r.active_tasks, r.standby_tasks, r.warmup_tasks))


class Update(NamedTuple):
    original: object           # the group value the handler was given (returned on error)
    group: Group               # the (possibly just created) streams group
    old: Optional[Member]      # the member before this heartbeat (None: new)
    member: Member             # the member to update (a rejoin starts from scratch)
    topology: Topology         # the group's topology after the join decision
    request: StreamsGroupHeartbeat
    topics: tuple
    cp: CoordinatorProfile
    config: Config
    shutdown: Optional[str]


def _with_metadata(m: Member, r: StreamsGroupHeartbeat) -> Member:
    """StreamsGroupMember.Builder.maybeUpdate*: a null field keeps the stored value."""
    return replace(m, instance_id=m.instance_id if r.instance_id is None else r.instance_id,
                   process_id=m.process_id if r.process_id is None else r.process_id,
                   rack_id=m.rack_id if r.rack_id is None else r.rack_id,
                   client_tags=m.client_tags if r.client_tags is None else tuple(sorted(r.client_tags)),
                   topology_epoch=m.topology_epoch if r.topology is None else r.topology.epoch,
                   rebalance_timeout_ms=m.rebalance_timeout_ms if r.rebalance_timeout_ms == -1 else r.rebalance_timeout_ms,
                   user_endpoint=m.user_endpoint if r.user_endpoint is None else r.user_endpoint)


_KIP_FIELDS = ("topology_epoch", "rack_id", "client_tags", "process_id")
_ALL_FIELDS = _KIP_FIELDS + ("rebalance_timeout_ms", "user_endpoint")


def _member_reasons(old: Optional[Member], new: Member, cp: CoordinatorProfile) -> list[str]:
    """KIP: bumped "When a member joins" and "When a member updates its topology metadata,
    rack ID, client tags or process ID". Kafka bumps on any change of a dynamic member's
    metadata; for a static member only on the KIP's fields (KAFKA-20169,
    hasEpochRelevantMemberConfigChanged: "the group epoch is bumped only when at least one of
    topology epoch, rack ID, client tags, or process ID differs")."""
    if old is None:
        return ["member joined"]
    fields = _ALL_FIELDS if cp.bump_on_any_member_change and new.instance_id is None else _KIP_FIELDS
    return ["member metadata changed"] if any(getattr(old, f) != getattr(new, f) for f in fields) else []


def _warmup_reasons(u: Update, lags: dict) -> list[str]:
    """KIP: bumped "When a member with an assigned warm-up task reports a task changelog offset
    and task changelog end offset whose difference is less than acceptable.recovery.lag" - while
    the task is still a warm-up in its target (once the new target resolves it, no more)."""
    g, m = u.group, u.member
    limit = u.config.assignment.acceptable_recovery_lag
    warm = m.assigned[WARMUP] & g.target_of(m.member_id)[WARMUP]
    hit = any(warm >> i & 1 and lags.get(task, limit + 1) <= limit for i, task in enumerate(g.task_index))
    return ["warm-up caught up"] if hit else []


def update(u: Update) -> Outcome:
    """Steps 4-9 (KIP "Request Handling" 4-6; GroupMetadataManager#streamsGroupHeartbeat 1-5)."""
    g, r, cp = u.group, u.request, u.cp
    member = _with_metadata(u.member, r)                                          # step 4
    reasons = _member_reasons(u.old, member, cp)
    if g.topology is not None and u.topology != g.topology:
        reasons.append("topology changed")
    configured = configure(u.topology, dict(u.topics), cp.streams)                # step 5
    if configured.error is not None:
        return error_outcome(u.original, configured.error, u.shutdown)
    if configured.ready:   # GroupMetadataManager#throwIfRequestContainsInvalidTasks
        bad = validate_tasks(r, configured.number_of_tasks)
        if bad is not None:
            return error_outcome(u.original, bad, u.shutdown)
    pm = partition_metadata(u.topology, dict(u.topics))
    if pm != g.partition_metadata:
        reasons.append("partition metadata changed")
    validated = u.topology.epoch if configured.ready else -1
    lags = lag_levels(r.task_offsets, r.task_end_offsets)
    reasons += _warmup_reasons(u, lags)
    configs = assignment_configs(u.config.assignment)
    if configs != g.assignment_configs:
        reasons.append("assignment configuration changed")
    if validated != g.validated_topology_epoch and not reasons:
        # Kafka 3b: a newly validated topology epoch bumps; every way to get there (join,
        # topology, topic metadata) is on the KIP's list already, so this never fires alone.
        reasons.append("validated topology epoch changed")
    after = replace(g, topology=u.topology, partition_metadata=pm).with_member(member)
    if reasons:
        after = replace(after, group_epoch=g.group_epoch + 1, validated_topology_epoch=validated,
                        assignment_configs=configs)
    events = bumped(reasons) if reasons else ()
    if after.group_epoch > after.target_assignment_epoch:                         # step 6
        target = new_target(after, configured, u.config.assignment, u.config.assignor,
                            {member.process_id: lags} if lags else {},
                            first_holder_unchecked=not cp.standby_first_holder_checked)
        after = replace(after, target_assignment=tuple(sorted(target.items())),
                        target_assignment_epoch=after.group_epoch)
        events += (("new_target", after.group_epoch),)
    try:
        member = _reconcile(after, member, owned_tasks(g, r), cp)                 # step 7
    except Fenced as fenced:
        return fence(g, member.member_id, str(fenced), cp, u.shutdown)
    after = after.with_member(member)
    shutdown = member.member_id if r.shutdown_application else u.shutdown
    response = _response(after, u, member, configured, shutdown)                 # step 8
    if configured.internal_topics_to_create:
        events += (("internal_topics_to_create", configured.internal_topics_to_create),)
    return Outcome(after, response, diff(_before(u), after), events, shutdown)   # step 9


def fence(group: Group, member_id: str, message: str, cp, shutdown: Optional[str]) -> Outcome:
    """FENCED_MEMBER_EPOCH; the KIP removes the member (a bump), shipped Kafka writes nothing."""
    err = Error("FENCED_MEMBER_EPOCH", message)
    if not cp.fenced_removes_member:
        return error_outcome(group, err, shutdown)
    removed = remove_member(group, member_id, "member fenced", shutdown)
    resp = StreamsGroupHeartbeatResponse(error_code=err.error_code, error_message=message)
    return removed._replace(response=resp)


def remove_member(group: Group, member_id: str, reason: str, shutdown: Optional[str], *,
                  leave: bool = False) -> Outcome:
    """KIP: "The group epoch is bumped: When a member joins or leaves the group. When a member
    is fenced or removed from the group by the group coordinator." Its current assignment,
    target entry and metadata go (GroupMetadataManager#removeStreamsMember); the next
    heartbeat computes the new target. SHUTDOWN_APPLICATION is forgotten once the group is empty."""
    after = replace(group.without_member(member_id).with_target(member_id, None), group_epoch=group.group_epoch + 1)
    shutdown = shutdown if after.members else None
    resp = StreamsGroupHeartbeatResponse(member_id=member_id, member_epoch=LEAVE_EPOCH) if leave else None
    return Outcome(after, resp, diff(group, after), bumped((reason,)) + (("member_removed", member_id),), shutdown)


def _before(u: Update) -> Group:
    return u.original if isinstance(u.original, Group) else u.group


def _reconcile(g: Group, m: Member, owned: Optional[Tasks], cp: CoordinatorProfile) -> Member:
    """KIP "Reconciliation of the group": the member moves towards its target; a task is
    withheld while another member still holds it (``streams_unreleased`` over every member's
    assigned and pending-revocation tasks)."""
    holdings = tuple(Holding(x.member_id, x.process_id, x.assigned, x.pending_revocation) for x in g.members)
    current = MemberAssignment(state=m.state, epoch=m.epoch, previous_epoch=m.previous_epoch, assigned=m.assigned,
                               pending_revocation=m.pending_revocation, revocation_epoch=m.revocation_epoch)
    moved = reconcile(current, g.target_assignment_epoch, g.target_of(m.member_id), owned,
                      streams_unreleased(holdings, m.process_id), profile=cp.epochs)
    return m.with_assignment(moved)


def _response(g: Group, u: Update, m: Member, configured, shutdown: Optional[str]) -> StreamsGroupHeartbeatResponse:
    """Statuses in Kafka's order (STALE_TOPOLOGY, the configuration's, SHUTDOWN_APPLICATION);
    task lists on join or when the assigned tasks changed ("Null if unchanged since last
    heartbeat"; GroupMetadataManager#hasAssignedTasksChanged).

    Kafka's streamsGroupHeartbeat has only those two cases; consumerGroupHeartbeat also
    answers a full request (isFullRequest, KAFKA-16367). So a lost response that handed on
    a task is never repeated: the client's retry (StreamsGroupHeartbeatRequestManager resets
    its sent fields after a failure and re-sends its owned tasks) is accepted at the same or
    previous epoch and answered with null task lists, which the client takes as no change.
    The model keeps Kafka's rule; ``resend_when_owned_differs`` is its candidate fix
    (properties/known_bugs/streams_group.py, FINDINGS)."""
    statuses = [s for s in (stale_status(m.topology_epoch, g.topology.epoch), configured.status) if s is not None]
    if shutdown is not None:
        statuses.append(Status(SHUTDOWN_APPLICATION, f"Streams group member {shutdown} encountered a fatal error "
                                                     "and requested a shutdown for the entire application."))
    c = u.config
    resp = StreamsGroupHeartbeatResponse(
        member_id=m.member_id, member_epoch=m.epoch, heartbeat_interval_ms=c.heartbeat_interval_ms,
        acceptable_recovery_lag=c.assignment.acceptable_recovery_lag, task_offset_interval_ms=c.task_offset_interval_ms,
        status=tuple(statuses) or None)
    owned = owned_tasks(g, u.request)
    lost_response = u.cp.resend_when_owned_differs and owned is not None and owned != m.assigned
    if u.request.member_epoch == 0 or u.old is None or u.old.assigned != m.assigned or lost_response:
        resp = resp._replace(**{name: task_ids_of(g.task_index, m.assigned[i]) for i, name in
                                enumerate(("active_tasks", "standby_tasks", "warmup_tasks"))})
    return resp


__all__ = ["COORDINATOR_PROFILES", "SWITCHES", "Config", "CoordinatorProfile", "Outcome", "Update", "bumped", "fence",
           "coordinator_profile", "error_outcome", "owned_tasks", "remove_member", "switched", "update", "ACTIVE"]

"""Classic consumers inside a KIP-848 consumer group: their JoinGroup, SyncGroup, Heartbeat and
LeaveGroup translated to the consumer group's rules.

    classic_join(group, JoinGroup, cluster, profile, config, ...) -> ClassicOutcome
    classic_sync(group, SyncGroup)                                -> ClassicOutcome
    classic_heartbeat(group, Heartbeat)                           -> ClassicOutcome
    classic_leave(group, LeaveGroup, config, ...)                 -> ClassicOutcome

Sources (apache/kafka, group-coordinator/.../GroupMetadataManager.java):
classicGroupJoinToConsumerGroup (throwIfConsumerGroupIsFull, throwIfClassicProtocolIsNotSupported,
MEMBER_ID_REQUIRED for a member without id, the member created without an epoch check, its
subscription's topics and owned partitions run through consumerGroupHeartbeat's steps 1-3, the
response's generation = the member epoch, no leader, the member's first protocol),
classicGroupSyncToConsumerGroup (throwIfMemberDoesNotUseClassicProtocol, throwIfGenerationIdUnmatched,
throwIfRebalanceInProgress, the assigned partitions serialized at the metadata's version),
classicGroupHeartbeatToConsumerGroup (REBALANCE_IN_PROGRESS when the member epoch is behind the
group epoch, the member is UNREVOKED_PARTITIONS, or UNRELEASED_PARTITIONS with nothing left
to wait for: ConsumerGroup#waitingOnUnreleasedPartition), classicGroupLeaveToConsumerGroup
(4.0+, KAFKA-18150: any member, through consumerGroupFenceMembers, which may downgrade).

Requests and responses are ``model/consumer/state``'s (JoinGroup's ``subscription`` is the
JoinGroup protocol metadata: ConsumerProtocolSubscription bytes; SyncGroupResponse's
``assignment`` ConsumerProtocolAssignment bytes). Not modelled: static classic members
(JoinGroup carries no instance id here) and with them the static-replacement downgrade
(validateOnlineDowngradeWithReplacedMember); the join and sync timers
(scheduleConsumerGroupJoinTimeoutIfAbsent / SyncTimeout) whose expiry fences the member;
protocol type / name checks of SyncGroup (throwIfClassicProtocolUnmatched).
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Optional

from ..consumer.state import EMPTY as CLASSIC_EMPTY
from ..consumer.state import Group as ClassicState
from ..consumer.state import (ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL, MEMBER_ID_REQUIRED, NO_MEMBER, NONE,
                              REBALANCE_IN_PROGRESS, UNKNOWN_MEMBER_ID, Heartbeat, HeartbeatResponse, JoinGroup,
                              JoinGroupResponse, LeaveGroup, SyncGroup, SyncGroupResponse)
from .coordinator import Cluster, remove_member
from .coordinator_update import Config, Update, switched, update
from .group import UNRELEASED, UNREVOKED, Group, Member, topic_partitions_of
from .migration import (MIGRATION_SWITCHES, ClassicGroup, ClassicMemberMetadata, Malformed, MigratingGroup,
                        classic_records, encoded_assignment, maybe_downgrade, mixed,
                        subscription_of, wire_mask)
from .records import diff
from .state import ERROR_NAMES, ConsumerGroupHeartbeat

DEFAULT_REBALANCE_TIMEOUT_MS = 300000   # the Java consumer's max.poll.interval.ms, sent as JoinGroup's rebalance timeout


class LeaveGroupResponse(NamedTuple):
    """LeaveGroupResponse in ``model/consumer/state``'s style (which has none)."""

    kind: str = "LeaveGroupResponse"
    to: object = NO_MEMBER
    error: str = NONE
    message: str = ""


class ClassicOutcome(NamedTuple):
    """A classic request's result: the group after it (a MigratingGroup, a Group once no classic
    member is left, or a ClassicGroup after a downgrade), the classic response, records, events."""

    group: object
    response: object
    records: tuple = ()
    events: tuple = ()


def _generated_id(g: Group) -> str:
    n = 1
    while g.member(f"classic-{n}") is not None:
        n += 1
    return f"classic-{n}"


def supports_classic_protocols(group: MigratingGroup, protocols: tuple[str, ...]) -> bool:
    """ConsumerGroup#supportsClassicProtocols for protocol type "consumer": an empty group takes
    any non-empty list; otherwise some name every classic member supports (vacuous when there is
    no classic member)."""
    if not group.group.members:
        return bool(protocols)
    return any(all(name in (n for n, _ in md.protocols) for _, md in group.classic) for name in protocols)


def classic_join(group: MigratingGroup, request: JoinGroup, cluster: Cluster = Cluster(), profile="kip-848",
                 config: Config = Config(), session_timeout_ms: int = 45000,
                 rebalance_timeout_ms: int = DEFAULT_REBALANCE_TIMEOUT_MS, switches=()) -> ClassicOutcome:
    """classicGroupJoinToConsumerGroup. The member's epoch is the generation it is answered
    with; "If the members need to revoke a partition, their member epoch stays the same".
    An *empty* consumer group is not joined: maybeDeleteEmptyConsumerGroup deletes it (its
    tombstones) and the classic coordinator takes the JoinGroup into a new classic group: the
    outcome's group is that empty ClassicGroup, its response None, its event
    ``("consumer_group_deleted", id)``: hand the request to ``model/consumer/coordinator``."""
    group = as_migrating(group)
    g = group.group
    mid = request.member_id
    if not g.members:
        empty = ClassicGroup(g.group_id, ClassicState(status=CLASSIC_EMPTY, generation=0, protocol="",
                                                      leader=NO_MEMBER, members=(), pending=(), next_id=1))
        return ClassicOutcome(empty, None, tuple(diff(g, replace(g, dead=True))), (("consumer_group_deleted", g.group_id),))

    def fail(error, message=""):
        return ClassicOutcome(group, JoinGroupResponse(to=mid, error=error), (), (("error", error, message),))

    if config.max_size is not None and len(g.members) >= config.max_size and g.member(mid) is None:
        return fail("GROUP_MAX_SIZE_REACHED", f"The consumer group has reached its maximum capacity of "
                    f"{config.max_size} members.")
    if not supports_classic_protocols(group, request.protocols):
        return fail(INCONSISTENT_GROUP_PROTOCOL, f"Member {mid}'s protocols are not supported.")
    if mid in (NO_MEMBER, ""):       # JoinGroupRequest.requiresKnownMemberId
        return ClassicOutcome(group, JoinGroupResponse(to=mid, error=MEMBER_ID_REQUIRED, member_id=_generated_id(g)))
    try:
        sub = subscription_of(request.subscription)
    except (Malformed, TypeError):
        # deserializeSubscription: IllegalStateException -> UNKNOWN_SERVER_ERROR
        return fail("UNKNOWN_SERVER_ERROR", "Malformed embedded consumer protocol in subscription deserialization.")
    known = g.member(mid)
    hb = ConsumerGroupHeartbeat(
        group_id=g.group_id, member_id=mid, member_epoch=known.epoch if known else 0, rack_id=sub.rack_id,
        rebalance_timeout_ms=rebalance_timeout_ms, subscribed_topic_names=tuple(sub.topics),
        topic_partitions=topic_partitions_of(g.partition_index, wire_mask(g.partition_index, sub.owned_partitions)))
    p = switched(profile, tuple(s for s in switches if s not in MIGRATION_SWITCHES))
    out = update(Update(original=g, group=g, old=known, member=known or Member(
        member_id=mid), request=hb, topics=cluster.topics, profile=p, config=config))
    if out.response.error_code:
        return fail(ERROR_NAMES[out.response.error_code], out.response.error_message or "")
    after = out.group.member(mid)
    md = ClassicMemberMetadata(session_timeout_ms, tuple((name, request.subscription) for name in request.protocols))
    classic = tuple(x for x in group.classic if x[0] != mid) + ((mid, md),)
    response = JoinGroupResponse(to=mid, generation=after.epoch, member_id=mid, leader="",
                                 protocol=request.protocols[0])
    group_after = mixed(out.group, classic)
    return ClassicOutcome(group_after, response, tuple(out.records) + classic_records(g.group_id, group.classic,
                                                                                      group_after.classic), out.events)


def as_migrating(group) -> MigratingGroup:
    """A consumer group as a MigratingGroup (no classic member yet) for the classic handlers."""
    if isinstance(group, MigratingGroup):
        return group
    if isinstance(group, Group) and not group.dead:
        return MigratingGroup(group, ())
    raise TypeError(f"the classic handlers take a live consumer group, not {type(group).__name__}; a classic group "
                    "is model/consumer/coordinator's")


def _member(group: MigratingGroup, member_id) -> tuple[Optional[Member], str]:
    """validateConsumerGroupMember + throwIfMemberDoesNotUseClassicProtocol."""
    m = group.group.member(member_id)
    if m is None:
        return None, f"Member {member_id} is not a member of group {group.group.group_id}."
    if not group.is_classic(member_id):
        return None, f"Member {member_id} does not use the classic protocol."
    return m, ""


def classic_sync(group: MigratingGroup, request: SyncGroup) -> ClassicOutcome:
    """classicGroupSyncToConsumerGroup: the member's assigned partitions; REBALANCE_IN_PROGRESS
    when "the group epoch is greater than the member epoch" unless the member is
    UNREVOKED_PARTITIONS ("it means the member has already rejoined, so it needs to first
    finish revoking the partitions")."""
    group = as_migrating(group)

    def make(error, assignment=b""):
        return SyncGroupResponse(to=request.member_id, error=error, generation=request.generation,
                                 assignment=assignment)
    m, why = _member(group, request.member_id)
    if m is None:
        return ClassicOutcome(group, make(UNKNOWN_MEMBER_ID), (), (("error", UNKNOWN_MEMBER_ID, why),))
    if request.generation != m.epoch:
        return ClassicOutcome(group, make(ILLEGAL_GENERATION))
    g = group.group
    if g.group_epoch > m.epoch and m.state != UNREVOKED:
        return ClassicOutcome(group, make(REBALANCE_IN_PROGRESS))
    metadata = group.metadata(m.member_id).protocols[0][1]
    return ClassicOutcome(group, make(NONE, encoded_assignment(g.partition_index, m.assigned, metadata)))


def waiting_on_unreleased(g: Group, m: Member) -> bool:
    """ConsumerGroup#waitingOnUnreleasedPartition: some target partition the member lacks is
    still held (assigned or pending revocation) by a member."""
    held = 0
    for x in g.members:
        held |= x.assigned | x.pending_revocation
    return m.state == UNRELEASED and bool(g.target_of(m.member_id) & ~m.assigned & held)


def must_rejoin(g: Group, m: Member) -> bool:
    """The classic Heartbeat's REBALANCE_IN_PROGRESS: "1) The group epoch is bumped so the
    member need to rejoin to catch up. 2) The member needs to revoke some partitions and rejoin
    to reconcile with the new epoch. 3) The member's partitions pending assignment are free, so
    it can rejoin to get the complete assignment.\""""
    return (m.epoch < g.group_epoch or m.state == UNREVOKED
            or (m.state == UNRELEASED and not waiting_on_unreleased(g, m)))


def classic_heartbeat(group: MigratingGroup, request: Heartbeat) -> ClassicOutcome:
    """classicGroupHeartbeatToConsumerGroup: the session, and REBALANCE_IN_PROGRESS when ``must_rejoin``."""
    group = as_migrating(group)

    def make(error):
        return HeartbeatResponse(to=request.member_id, error=error)
    m, why = _member(group, request.member_id)
    if m is None:
        return ClassicOutcome(group, make(UNKNOWN_MEMBER_ID), (), (("error", UNKNOWN_MEMBER_ID, why),))
    if request.generation != m.epoch:
        return ClassicOutcome(group, make(ILLEGAL_GENERATION))
    return ClassicOutcome(group, make(REBALANCE_IN_PROGRESS if must_rejoin(group.group, m) else NONE))


def classic_leave(group: MigratingGroup, request: LeaveGroup, config: Config = Config(),
                  classic_max_size: Optional[int] = None, switches=(), profile="kip-848") -> ClassicOutcome:
    """classicGroupLeaveToConsumerGroup -> consumerGroupFenceMembers: the member is removed (a
    bump), or the group downgrades when only classic members are left and the policy allows.
    ``kafka-18150`` (3.8 / 3.9): a consumer-protocol member is refused ("Member X does not use
    the classic protocol.", UNKNOWN_MEMBER_ID) and a classic member's leave never downgrades."""
    group = as_migrating(group)
    mid = request.member_id
    g = group.group
    m = g.member(mid)
    if m is None or ("kafka-18150" in switches and not group.is_classic(mid)):
        why = (f"Member {mid} is not a member of group {g.group_id}." if m is None
               else f"Member {mid} does not use the classic protocol.")
        return ClassicOutcome(group, LeaveGroupResponse(to=mid, error=UNKNOWN_MEMBER_ID, message=why))
    out = remove_member(g, mid, "member left", profile)
    out = maybe_downgrade(group, out, (mid,), config, classic_max_size, switches)
    return ClassicOutcome(out.group, LeaveGroupResponse(to=mid), out.records, out.events)


__all__ = ["ClassicOutcome", "as_migrating", "DEFAULT_REBALANCE_TIMEOUT_MS", "LeaveGroupResponse", "classic_heartbeat", "classic_join",
           "classic_leave", "classic_sync", "must_rejoin", "supports_classic_protocols", "waiting_on_unreleased"]

"""Online migration between a classic Streams group and a streams group (KIP-1071 "Online
Migration from a Classic Consumer Group to a Streams Group"), and what shipped Kafka does
instead, as pure handlers. Handlers decide and return records; ``replay`` applies the
streams records (the classic group's own record is ``ClassicGroupMetadata`` here).

    streams_heartbeat(group, request, cluster, profile, config) -> Outcome
        a StreamsGroupHeartbeat for a group id that may hold a classic group, a streams
        group with classic members (``MigratingGroup``) or a streams group
    convert_to_streams(classic, topology_epoch, task_index) -> Group     (the conversion alone)
    convert_to_classic(group, classic, leaving) -> classic Group           (the conversion back)
    classic_join / classic_sync / classic_heartbeat / classic_leave       (``migration_classic``)

The classic side reuses ``model/consumer/state.py``: the classic ``Group`` / ``GroupMember``
and the JoinGroup / SyncGroup / Heartbeat / LeaveGroup messages and their responses. Kafka
carries the embedded protocol's subscription and assignment as opaque bytes; the consumer
model decodes them to partition bitmasks, this module to ``StreamsSubscription`` and
``StreamsAssignment`` (Streams' SubscriptionInfo / AssignmentInfo reduced to what the
KIP's translation reads). Member ids are names here (the consumer model numbers them).

Profiles: ``kip-1071`` converts online (the KIP's text; Kafka's KIP-848 path for consumer
groups is the model of how: GroupMetadataManager#getOrMaybeCreateConsumerGroup ->
validateOnlineUpgrade -> convertToConsumerGroup / ConsumerGroup.fromClassicGroup, and back
through validateOnlineDowngrade* -> convertToClassicGroup / ClassicGroup.fromConsumerGroup).
``kafka-4.1`` / ``kafka-4.5`` migrate offline only: GroupMetadataManager#getOrCreateStreamsGroup
deletes an *empty* classic group (maybeDeleteEmptyClassicGroup, KAFKA-19570) and starts a new
streams group; a classic group with members fails castToStreamsGroup: GROUP_ID_NOT_FOUND
"Group X is not a streams group.".
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Optional, Union

from ..consumer.state import NO_MEMBER, PREPARING
from ..consumer.state import Group as ClassicGroup
from ..consumer.state import GroupMember
from .coordinator import Cluster, heartbeat, session_timeout
from .coordinator_update import Config, Outcome, coordinator_profile, error_outcome
from .group import ACTIVE, STANDBY, WARMUP, Group, Member, TaskIndex, mask_of, new_group, task_ids_of
from .records import diff
from .state import JOIN_EPOCH, LEAVE_EPOCH, StreamsGroupHeartbeat, StreamsGroupHeartbeatResponse, TaskIds
from .validation import Error, validate

PROTOCOL = "stream"   # the StreamsPartitionAssignor's protocol name in a classic Streams group


class StreamsSubscription(NamedTuple):
    """What a classic Streams member's JoinGroup says (SubscriptionInfo, reduced): "the
    process ID of the Streams client, the owned active and standby tasks"."""

    process_id: str
    owned_active: tuple[TaskIds, ...] = ()
    owned_standby: tuple[TaskIds, ...] = ()


class StreamsAssignment(NamedTuple):
    """What a classic Streams member's SyncGroup response carries (AssignmentInfo, reduced):
    active and standby tasks; the classic protocol has no warm-ups."""

    active: tuple[TaskIds, ...] = ()
    standby: tuple[TaskIds, ...] = ()


class ClassicGroupMetadata(NamedTuple):
    """The classic group's record (GroupCoordinatorRecordHelpers#newGroupMetadataRecord /
    newGroupMetadataTombstoneRecord): the group as ``value``, or None for its tombstone."""

    group_id: str
    value: Optional[ClassicGroup]


class MigratingGroup(NamedTuple):
    """A streams group some of whose members still speak the classic protocol. ``classic``:
    (member id, the subscription of its last JoinGroup), sorted by id; Kafka keeps this as
    the member's ClassicMemberMetadata in its member-metadata record (not in this model's
    record types: a failover rebuilds the streams group, not this marker)."""

    group: Group
    classic: tuple[tuple[str, StreamsSubscription], ...]

    def is_classic(self, member_id: str) -> bool:
        return any(mid == member_id for mid, _ in self.classic)


AnyGroup = Union[Group, MigratingGroup, ClassicGroup]


def mixed(group: Group, classic) -> Union[Group, MigratingGroup]:
    """``group`` with its classic members; a plain ``Group`` once none is left."""
    held = {m.member_id for m in group.members}
    classic = tuple(sorted((mid, s) for mid, s in classic if mid in held))
    return MigratingGroup(group, classic) if classic else group


def streams_of(group: AnyGroup) -> Group:
    return group.group if isinstance(group, MigratingGroup) else group


# ---- classic -> streams ----

def convert_to_streams(classic: ClassicGroup, group_id: str, topology_epoch: int, task_index: TaskIndex) -> Group:
    """KIP: "the classic group in the group coordinator will be transformed to a streams group.
    The generation ID becomes the group epoch." Each classic member stays, STABLE at the
    generation with its assignment as both current and target assignment (Kafka's
    ConsumerGroup.fromClassicGroup does this for consumer groups: member epoch = previous
    epoch = generation, target = the member's assignment). Classic members carry no topology
    epoch; the model gives them the joining member's (they run the same application)."""
    g, members, target = classic.generation, [], {}
    for cm in classic.members:
        sub, a = _subscription(cm), cm.assignment
        assigned = (mask_of(task_index, a.active), mask_of(task_index, a.standby), 0)
        members.append(Member(member_id=cm.member_id, process_id=sub.process_id, topology_epoch=topology_epoch,
                              epoch=g, previous_epoch=g, assigned=assigned))
        target[cm.member_id] = assigned
    return Group(group_id=group_id, task_index=task_index, group_epoch=g, target_assignment_epoch=g,
                 members=tuple(sorted(members, key=lambda m: m.member_id)),
                 target_assignment=tuple(sorted(target.items())))


def _subscription(cm: GroupMember) -> StreamsSubscription:
    if not isinstance(cm.subscription, StreamsSubscription):
        raise TypeError(f"migration: classic member {cm.member_id!r} has subscription "
                        f"{type(cm.subscription).__name__}; a classic Streams member's is a StreamsSubscription")
    return cm.subscription


def _not_streams(group_id: str) -> Error:
    # GroupMetadataManager#castToStreamsGroup
    return Error("GROUP_ID_NOT_FOUND", f"Group {group_id} is not a streams group.")


def _from_classic(classic: ClassicGroup, request: StreamsGroupHeartbeat, cluster, profile, config,
                  task_index: TaskIndex) -> Outcome:
    """A StreamsGroupHeartbeat for a group id holding a classic group."""
    cp = coordinator_profile(profile)
    gid = request.group_id
    error = validate(request, cp.streams)
    if error is not None or request.member_epoch != JOIN_EPOCH:
        return error_outcome(classic, error or _not_streams(gid), None)
    tombstone = (ClassicGroupMetadata(gid, None),)
    dead = replace(new_group(gid, task_index), dead=True)
    if cp.streams.name != "kip-1071":
        if classic.members:   # offline only: a live classic group is not a streams group
            return error_outcome(classic, _not_streams(gid), None)
        # KAFKA-19570, getOrCreateStreamsGroup -> maybeDeleteEmptyClassicGroup: the empty
        # classic group's tombstone, then a new streams group (its generation is forgotten).
        out = heartbeat(dead, request, cluster, cp, config)
        return out._replace(records=tombstone + out.records, events=(("classic_group_deleted", gid),) + out.events)
    converted = convert_to_streams(classic, gid, request.topology.epoch, task_index)
    classic_members = tuple((cm.member_id, _subscription(cm)) for cm in classic.members)
    out = heartbeat(converted, request, cluster, cp, config)
    if out.response.error_code:
        return Outcome(classic, out.response, (), (), None)   # refused: the classic group stays
    return out._replace(group=mixed(out.group, classic_members),
                        records=tombstone + tuple(diff(dead, converted)) + out.records,
                        events=(("converted_to_streams", classic.generation),) + out.events)


# ---- streams -> classic ----

def convert_to_classic(group: Group, classic, leaving: tuple[str, ...]) -> ClassicGroup:
    """KIP: "When the last consumer of an Streams client using the new Streams rebalance
    protocol leaves the group, the group is converted back to a classic group." As Kafka's
    ClassicGroup.fromConsumerGroup: generation = group epoch, each remaining member with
    its last JoinGroup subscription and its current assignment (warm-ups as standbys); then
    convertToClassicGroup prepares a rebalance ("Downgrade group ... for member leaving")."""
    subs = dict(classic)
    members = []
    for slot, m in enumerate(x for x in group.members if x.member_id not in leaving):
        a = StreamsAssignment(task_ids_of(group.task_index, m.assigned[ACTIVE]),
                              task_ids_of(group.task_index, m.assigned[STANDBY] | m.assigned[WARMUP]))
        members.append(GroupMember(member_id=m.member_id, slot=slot, protocols=(PROTOCOL,),
                                   subscription=subs[m.member_id], joined=False, syncing=False, assignment=a))
    leader = members[0].member_id if members else NO_MEMBER
    return ClassicGroup(status=PREPARING, generation=group.group_epoch, protocol=PROTOCOL, leader=leader,
                        members=tuple(members), pending=(), next_id=1)


def maybe_convert_back(before: MigratingGroup, out: Outcome, leaving: tuple[str, ...]) -> Outcome:
    """After ``leaving`` left ``before``: if members remain and all speak the classic
    protocol, the group becomes classic (Kafka: validateOnlineDowngradeWithFencedMembers, then
    convertToClassicGroup). KIP: "The records of the Streams protocol are deleted": the streams
    group's tombstones (createGroupTombstoneRecords), then the classic group's record."""
    g = before.group
    rest = [m.member_id for m in g.members if m.member_id not in leaving]
    if not rest or not all(before.is_classic(mid) for mid in rest):
        return out._replace(group=mixed(out.group, before.classic))
    classic = convert_to_classic(g, before.classic, leaving)
    records = tuple(diff(g, replace(g, dead=True))) + (ClassicGroupMetadata(g.group_id, classic),)
    response = out.response
    if response is not None and response.error_code == 0:
        response = StreamsGroupHeartbeatResponse(member_id=response.member_id, member_epoch=LEAVE_EPOCH)
    return Outcome(classic, response, records, (("converted_to_classic", classic.generation),), None)


# ---- the StreamsGroupHeartbeat entry point ----

def streams_heartbeat(group: AnyGroup, request: StreamsGroupHeartbeat, cluster: Cluster = Cluster(),
                      profile="kip-1071", config: Config = Config(),
                      task_index: TaskIndex = ()) -> Outcome:
    """``coordinator.heartbeat`` for a group id that may hold a classic group (then
    ``task_index`` is the scope's) or a streams group with classic members."""
    if isinstance(group, ClassicGroup):
        return _from_classic(group, request, cluster, profile, config, task_index)
    if not isinstance(group, MigratingGroup):
        return heartbeat(group, request, cluster, profile, config)
    if group.is_classic(request.member_id):
        return error_outcome(group, Error("UNKNOWN_MEMBER_ID", f"Member {request.member_id} uses the classic "
                                          "protocol."), None)
    out = heartbeat(group.group, request, cluster, profile, config)
    if out.response.error_code == 0 and request.member_epoch == LEAVE_EPOCH:
        return maybe_convert_back(group, out, (request.member_id,))
    if isinstance(out.group, Group) and out.group.member(request.member_id) is None and \
            group.group.member(request.member_id) is not None:   # fenced and removed (kip-1071)
        return maybe_convert_back(group, out, (request.member_id,))
    return out._replace(group=mixed(out.group, group.classic))


def streams_session_timeout(group: AnyGroup, member_id: str) -> Outcome:
    """A member's session expired; in a mixed group the last streams member's expiry
    converts the group back, as its leave does."""
    if not isinstance(group, MigratingGroup):
        return session_timeout(group, member_id)
    out = session_timeout(group.group, member_id)
    if group.group.member(member_id) is None:
        return out._replace(group=group)
    return maybe_convert_back(group, out, (member_id,))


__all__ = ["ClassicGroupMetadata", "MigratingGroup", "PROTOCOL", "StreamsAssignment", "StreamsSubscription",
           "convert_to_classic", "convert_to_streams", "maybe_convert_back", "mixed", "streams_heartbeat",
           "streams_of", "streams_session_timeout"]

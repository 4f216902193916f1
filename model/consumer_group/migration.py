"""Online migration between a classic consumer group and a KIP-848 consumer group, as pure
handlers (``group.consumer.migration.policy``: disabled / upgrade / downgrade / bidirectional).

    consumer_heartbeat(group, request, cluster, profile, config, switches, classic_max_size) -> Outcome
        ``coordinator.heartbeat`` for a group id that may hold a classic group (``ClassicGroup``),
        a consumer group with classic members (``MigratingGroup``) or a consumer group
    consumer_session_timeout(group, member_id, ...) -> Outcome
    convert_to_consumer(classic, partition_index) -> (Group, classic members)   (the upgrade alone)
    convert_to_classic(group, leaving) -> ClassicGroup                          (the downgrade alone)
    classic_join / classic_sync / classic_heartbeat / classic_leave             (``migration_classic``)

Sources (apache/kafka, group-coordinator/src/main/java/org/apache/kafka/coordinator/group/):
GroupMetadataManager#getOrMaybeCreateConsumerGroup (an empty classic group is deleted:
maybeDeleteEmptyClassicGroup; a live one is converted if validateOnlineUpgrade allows),
#validateOnlineUpgrade, #convertToConsumerGroup, ConsumerGroup#fromClassicGroup,
#consumerGroupFenceMember(s), #validateOnlineDowngradeWithFencedMember(s), #convertToClassicGroup,
classic/ClassicGroup#fromConsumerGroup, GroupCoordinatorConfig (the policy). Kafka 3.7 has no
migration ("Group X is not a consumer group." for any classic group). Read in the 2024-10
snapshot (4.0 development) and a 2026 trunk copy; the two differ only in messages, noted.

The classic group is ``model/consumer/state.Group`` (status, generation, protocol name, leader,
members), its members' subscription and assignment the consumer protocol's bytes
(``model/wire/consumer_protocol``), member ids strings. ``ClassicGroup`` adds the group id and
the protocol type Kafka keeps beside it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..consumer.selection import select_protocol
from ..consumer.state import NO_MEMBER, PREPARING
from ..consumer.state import Group as ClassicState
from ..consumer.state import GroupMember
from .coordinator import Cluster, heartbeat, session_timeout
from .coordinator_update import Config, Outcome, assignors_of, error_outcome, switched
from .group import Group, Member, new_group
from . import migration_state as _state
from .migration_state import *  # noqa: F401,F403  (the migration's values are part of this API)
from .migration_state import (CONSUMER_PROTOCOL_TYPE, MIGRATION_SWITCHES, AnyGroup, ClassicGroup, ClassicGroupMetadata,
                              ClassicMemberMetadata, Malformed, MigratingGroup, assignment_of, classic_records,
                              consumer_of, downgrade_enabled, encoded_assignment, mixed, subscription_of,
                              upgrade_enabled, wire_mask)
from .records import diff
from .state import JOIN_EPOCH, ConsumerGroupHeartbeat
from .validation import Error, validate

# ---- classic -> consumer ----

def validate_online_upgrade(classic: ClassicGroup, config: Config) -> Optional[Error]:
    """GroupMetadataManager#validateOnlineUpgrade (trunk's messages; 3.8-4.0 answered every
    refusal "Group X is not a consumer group")."""
    gid = classic.group_id
    if not upgrade_enabled(config.migration_policy):
        why = "online upgrade is disabled"
    elif classic.protocol_type != CONSUMER_PROTOCOL_TYPE:
        why = "the group does not use the consumer embedded protocol"
    elif config.max_size is not None and len(classic.state.members) > config.max_size:
        why = "the group size exceeds the consumer group maximum size"
    else:
        return None
    return Error("GROUP_ID_NOT_FOUND", f"Cannot upgrade classic group {gid} to consumer group because {why}.")


def convert_to_consumer(classic: ClassicGroup, index, keep_owned: bool = False) -> tuple[Group, tuple]:
    """ConsumerGroup#fromClassicGroup: group epoch = assignment epoch = the generation; each
    member STABLE at the generation (previous epoch too), subscribed to its subscription's
    topics, its last assignment both current and target ("The target assignment and the
    assigned partitions of each member are set based on the last assignment of the classic
    group"). Raises Malformed for bad bytes, ValueError when an assignment carries userData
    ("userData from a custom assignor would be lost", a trunk check). ``keep_owned`` (switch
    ``upgrade-keeps-owned``, not Kafka): partitions the member's last JoinGroup reported as owned
    beyond its assignment stay pending revocation (UNREVOKED) until it reports them gone."""
    g = classic.state.generation
    members, target, meta = [], {}, []
    for cm in classic.state.members:
        sub = subscription_of(cm.subscription)
        a = assignment_of(cm.assignment)
        if a.user_data:
            raise ValueError("userData from a custom assignor would be lost")
        assigned = wire_mask(index, a.assigned_partitions)
        pending = wire_mask(index, sub.owned_partitions) & ~assigned if keep_owned else 0
        members.append(Member(member_id=cm.member_id, rack_id=sub.rack_id,
                              subscribed_topic_names=tuple(sorted(set(sub.topics))),
                              state="UNREVOKED" if pending else "STABLE", epoch=g, previous_epoch=g, assigned=assigned,
                              pending_revocation=pending))
        target[cm.member_id] = assigned
        meta.append((cm.member_id, ClassicMemberMetadata(_session_of(cm), tuple((p, cm.subscription) for p in cm.protocols))))
    group = Group(group_id=classic.group_id, partition_index=tuple(index), group_epoch=g, target_assignment_epoch=g,
                  members=tuple(sorted(members, key=lambda m: m.member_id)),
                  target_assignment=tuple(sorted(target.items())))
    return group, tuple(sorted(meta))


DEFAULT_SESSION_TIMEOUT_MS = 45000   # the Java consumer's session.timeout.ms default


def _session_of(cm: GroupMember) -> int:
    return DEFAULT_SESSION_TIMEOUT_MS   # model/consumer's GroupMember keeps no session timeout


def _upgrade(classic: ClassicGroup, request, cluster, profile, config, switches, index, keep_owned=False) -> Outcome:
    """A ConsumerGroupHeartbeat for a group id holding a classic group."""
    gid = classic.group_id
    p = switched(profile, switches)
    error = validate(request, p, assignors_of(p, config))
    if error is not None:
        return error_outcome(classic, error)
    if request.member_epoch != JOIN_EPOCH or p.name == "kafka-3.7":
        # consumerGroup(groupId) / 3.7's getOrMaybeCreateConsumerGroup: no migration
        return error_outcome(classic, Error("GROUP_ID_NOT_FOUND", f"Group {gid} is not a consumer group."))
    tombstone = (ClassicGroupMetadata(gid, None),)
    dead = replace(new_group(gid, index), dead=True)
    if not classic.state.members:
        # maybeDeleteEmptyClassicGroup: the empty classic group's tombstones, a new consumer group
        out = heartbeat(dead, request, cluster, p, config)
        if out.response.error_code:
            return out._replace(group=classic)
        return out._replace(records=tombstone + out.records, events=(("classic_group_deleted", gid),) + out.events)
    error = validate_online_upgrade(classic, config)
    if error is not None:
        return error_outcome(classic, error)
    try:
        converted, meta = convert_to_consumer(classic, index, keep_owned)
    except Malformed:
        return error_outcome(classic, Error("GROUP_ID_NOT_FOUND", f"Cannot upgrade classic group {gid} to consumer "
                                            "group because the embedded consumer protocol is malformed."))
    except ValueError:
        return error_outcome(classic, Error("GROUP_ID_NOT_FOUND", f"Cannot upgrade classic group {gid} to consumer "
                                            "group because an unsupported custom assignor is in use. Please refer to "
                                            "the documentation or switch to a default assignor before re-attempting "
                                            "the upgrade."))
    out = heartbeat(converted, request, cluster, p, config)
    if out.response.error_code:
        return out._replace(group=classic, records=())       # refused: the classic group stays
    # convertToConsumerGroup: "completeAllJoinFutures / completeAllSyncFutures(REBALANCE_IN_PROGRESS)"
    waiting = tuple(("classic_rebalance_in_progress", m.member_id) for m in classic.state.members if m.joined or m.syncing)
    return out._replace(group=mixed(out.group, meta),
                        records=tombstone + tuple(diff(dead, converted)) + classic_records(gid, (), meta) + out.records,
                        events=(("converted_to_consumer", classic.state.generation),) + waiting + out.events)


# ---- consumer -> classic ----

def downgrades(before: MigratingGroup, leaving: tuple[str, ...], config: Config,
               classic_max_size: Optional[int] = None, switches=()) -> bool:
    """GroupMetadataManager#validateOnlineDowngradeWithFencedMembers: every member left is a
    classic one, at least one is left, the policy allows a downgrade, and they fit in a classic
    group (group.classic.max.size). ``kafka-16861``: the size is not checked; ``kafka-18150``:
    a leaving classic member never downgrades (3.8's check took one consumer-protocol member)."""
    rest = [m.member_id for m in before.group.members if m.member_id not in leaving]
    if "kafka-18150" in switches and any(before.is_classic(mid) for mid in leaving):
        return False
    if not rest or not all(before.is_classic(mid) for mid in rest):
        return False
    if not downgrade_enabled(config.migration_policy):
        return False
    return "kafka-16861" in switches or classic_max_size is None or len(rest) <= classic_max_size


def convert_to_classic(before: MigratingGroup, leaving: tuple[str, ...]) -> ClassicGroup:
    """ClassicGroup#fromConsumerGroup then convertToClassicGroup: generation = the group epoch;
    each remaining member with its JoinGroup protocols and, as its assignment, its *target*
    assignment serialized at its metadata's version; the protocol selected as a classic group
    does; then prepareRebalance ("Downgrade group X from consumer to classic for member
    leaving."): PreparingRebalance. Kafka's leader is the first member added (map order); the
    model takes the lowest id."""
    g = before.group
    members = []
    for slot, m in enumerate(x for x in g.members if x.member_id not in leaving):
        md = before.metadata(m.member_id)
        metadata = md.protocols[0][1]
        assignment = encoded_assignment(g.partition_index, g.target_of(m.member_id), metadata)
        members.append(GroupMember(member_id=m.member_id, slot=slot, protocols=tuple(n for n, _ in md.protocols),
                                   subscription=metadata, joined=False, syncing=False, assignment=assignment))
    protocol = select_protocol([m.protocols for m in members]) or ""
    leader = members[0].member_id if members else NO_MEMBER
    return ClassicGroup(g.group_id, ClassicState(status=PREPARING, generation=g.group_epoch, protocol=protocol,
                                                 leader=leader, members=tuple(members), pending=(), next_id=1))


def maybe_downgrade(before: MigratingGroup, out: Outcome, leaving: tuple[str, ...], config: Config,
                    classic_max_size=None, switches=()) -> Outcome:
    """After ``leaving`` were fenced from ``before`` (``out``: the plain removal): the
    downgrade instead, if allowed: the consumer group's tombstones (createGroupTombstoneRecords),
    then the classic group's record; the leave's response stays as it was."""
    if not downgrades(before, leaving, config, classic_max_size, switches):
        return with_classic_records(before, out._replace(group=mixed(consumer_of(out.group), before.classic)))
    classic = convert_to_classic(before, leaving)
    g = before.group
    records = tuple(diff(g, replace(g, dead=True))) + (ClassicGroupMetadata(g.group_id, classic),)
    return Outcome(classic, out.response, records, (("converted_to_classic", classic.state.generation),))


def with_classic_records(before, out):
    """``out`` with the classic-member-metadata records its change of classic members writes."""
    old = before.classic if isinstance(before, MigratingGroup) else ()
    if isinstance(out.group, ClassicGroup):
        return out
    new = out.group.classic if isinstance(out.group, MigratingGroup) else ()
    return out._replace(records=tuple(out.records) + classic_records(consumer_of(out.group).group_id, old, new))


# ---- entry points ----

def consumer_heartbeat(group: AnyGroup, request: ConsumerGroupHeartbeat, cluster: Cluster = Cluster(),
                       profile="kip-848", config: Config = Config(), switches: tuple[str, ...] = (),
                       classic_max_size: Optional[int] = None, partition_index=()) -> Outcome:
    """``coordinator.heartbeat`` where the group id may hold a classic group (``partition_index``:
    the scope's, for the converted group) or a consumer group with classic members."""
    coordinator_switches = tuple(s for s in switches if s not in MIGRATION_SWITCHES)
    if isinstance(group, ClassicGroup):
        return _upgrade(group, request, cluster, profile, config, coordinator_switches, partition_index,
                        "upgrade-keeps-owned" in switches)
    if not isinstance(group, MigratingGroup):
        return heartbeat(group, request, cluster, profile, config, coordinator_switches)
    out = heartbeat(group.group, request, cluster, profile, config, coordinator_switches)
    if out.response.error_code:
        return out._replace(group=group)
    mid = request.member_id
    if group.group.member(mid) is not None and consumer_of(out.group).member(mid) is None:
        # consumerGroupLeave -> consumerGroupFenceMember: maybe a downgrade instead
        return maybe_downgrade(group, out, (mid,), config, classic_max_size, switches)
    # consumerGroupHeartbeat sets ClassicMemberMetadata to null: the member now speaks KIP-848
    return with_classic_records(group, out._replace(group=mixed(out.group, tuple(x for x in group.classic if x[0] != mid))))


def consumer_session_timeout(group: AnyGroup, member_id: str, profile="kip-848", config: Config = Config(),
                             classic_max_size: Optional[int] = None, switches=()) -> Outcome:
    """consumerGroupSessionTimeoutExpired -> consumerGroupFenceMember: a member whose session
    expired is removed, or the group downgrades if it was the last consumer-protocol member."""
    if not isinstance(group, MigratingGroup):
        return session_timeout(group, member_id, profile, config)
    out = session_timeout(group.group, member_id, profile, config)
    if group.group.member(member_id) is None:
        return out._replace(group=group)
    return maybe_downgrade(group, out, (member_id,), config, classic_max_size, switches)


__all__ = _state.__all__ + ["consumer_heartbeat", "consumer_session_timeout", "convert_to_classic", "convert_to_consumer",
                            "downgrades", "maybe_downgrade", "validate_online_upgrade", "with_classic_records"]

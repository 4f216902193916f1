"""The values of an online migration between a classic consumer group and a KIP-848 consumer
group (``migration.py`` has the handlers): the classic group as the coordinator holds it, a
consumer group with classic members, the consumer protocol's bytes, the two records a
migration adds to the consumer group's, and ``replay`` for whatever the group id holds.

Sources (apache/kafka): ``ConsumerProtocol`` (serialize / deserialize of the embedded
protocol), group-coordinator ``ConsumerGroupMember#classicMemberMetadata`` and
``resources/common/message/ConsumerGroupMemberMetadataValue.json`` (ClassicMemberMetadata:
SessionTimeoutMs, SupportedProtocols), ``GroupCoordinatorRecordHelpers#newGroupMetadataRecord``
(a classic group's record), ``GroupCoordinatorConfig`` (ConsumerGroupMigrationPolicy).
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Optional, Union

from ..consumer.state import Group as ClassicState
from ..wire.consumer_protocol import Assignment, decode_assignment, decode_subscription, encode_assignment
from .coordinator import OtherGroup
from .group import Group, mask_of, topic_partitions_of
from .records import replay as replay_consumer
from .state import TopicPartitions

CONSUMER_PROTOCOL_TYPE = "consumer"      # ConsumerProtocol.PROTOCOL_TYPE
POLICIES = ("disabled", "upgrade", "downgrade", "bidirectional")   # ConsumerGroupMigrationPolicy

# Known-bug rules of the migration, by name (a scope's ``switches``, beside coordinator_update.SWITCHES).
MIGRATION_SWITCHES = {
    # KAFKA-16861 unfixed (apache/kafka #16163, fixed before 3.8.0 shipped): the downgrade
    # check logged "its group size is greater than classic group max size" and went on.
    "kafka-16861": "downgrade ignores group.classic.max.size",
    # Before KAFKA-18150 (apache/kafka #18224, 4.0): classicGroupLeaveToConsumerGroup answered
    # a consumer-protocol member UNKNOWN_MEMBER_ID ("does not use the classic protocol") and
    # only a consumer-protocol member's removal could downgrade (allMembersUseClassicProtocolExcept(memberId)).
    "kafka-18150": "only a consumer-protocol member's removal downgrades; LeaveGroup refuses them",
    # Not Kafka (a fix proposal for the finding in README): at the online upgrade, what a member's
    # last JoinGroup reported as owned beyond its assignment stays pending revocation.
    "upgrade-keeps-owned": "the upgrade keeps a cooperative member's unrevoked partitions pending revocation",
}


class ClassicGroup(NamedTuple):
    """A classic group as the coordinator holds it: its id, state, and protocol type
    (ClassicGroup#protocolType; "consumer" for consumers, "connect" etc. otherwise)."""

    group_id: str
    state: ClassicState
    protocol_type: Optional[str] = CONSUMER_PROTOCOL_TYPE


class ClassicMemberMetadata(NamedTuple):
    """ConsumerGroupMemberMetadataValue.ClassicMemberMetadata: the session timeout and the
    JoinGroup protocols (name, metadata bytes), in the member's order of preference."""

    session_timeout_ms: int
    protocols: tuple[tuple[str, bytes], ...]


class ClassicGroupMetadata(NamedTuple):
    """The classic group's record (GroupMetadata key/value): the group, or None for its tombstone."""

    group_id: str
    value: Optional[ClassicGroup]


class MigratingGroup(NamedTuple):
    """A consumer group some of whose members use the classic protocol (Kafka: members with
    ClassicMemberMetadata). ``classic``: (member id, metadata), sorted by id."""

    group: Group
    classic: tuple[tuple[str, ClassicMemberMetadata], ...]

    def is_classic(self, member_id: str) -> bool:
        return any(mid == member_id for mid, _ in self.classic)

    def metadata(self, member_id: str) -> Optional[ClassicMemberMetadata]:
        return next((md for mid, md in self.classic if mid == member_id), None)


AnyGroup = Union[Group, MigratingGroup, ClassicGroup, OtherGroup]


class Malformed(ValueError):
    """The embedded consumer protocol bytes do not parse (Kafka's SchemaException)."""


@lru_cache(maxsize=1 << 12)
def subscription_of(metadata: bytes):
    """The ConsumerProtocolSubscription in JoinGroup metadata bytes."""
    try:
        return decode_subscription(metadata, strict=False)[1]
    except Exception as e:   # the codec's own error: a malformed message
        raise Malformed(f"malformed ConsumerProtocolSubscription: {e}") from None


@lru_cache(maxsize=1 << 12)
def version_of(metadata: bytes) -> int:
    """ConsumerProtocol.deserializeVersion of the member's metadata (the assignment's version)."""
    try:
        return decode_subscription(metadata, strict=False)[0]
    except Exception as e:
        raise Malformed(f"malformed ConsumerProtocolSubscription: {e}") from None


@lru_cache(maxsize=1 << 12)
def assignment_of(data) -> Assignment:
    """The ConsumerProtocolAssignment in SyncGroup bytes; 0 / b"" / None: none yet (EMPTY_ASSIGNMENT)."""
    if not data:
        return Assignment((), None)
    try:
        return decode_assignment(data, strict=False)[1]
    except Exception as e:
        raise Malformed(f"malformed ConsumerProtocolAssignment: {e}") from None


def wire_mask(index, tps) -> int:
    """A consumer-protocol (topic, partitions) list as a bitmask over the group's index."""
    return mask_of(index, tuple(TopicPartitions(t, tuple(ps)) for t, ps in tps))


def encoded_assignment(index, mask: int, metadata: bytes) -> bytes:
    """ConsumerProtocol.serializeAssignment at the version of the member's metadata."""
    tps = tuple((t.topic_id, t.partitions) for t in topic_partitions_of(index, mask))
    return encode_assignment(Assignment(tps, None), min(version_of(metadata), 3))


def upgrade_enabled(policy: str) -> bool:
    return _policy(policy) in ("upgrade", "bidirectional")


def downgrade_enabled(policy: str) -> bool:
    return _policy(policy) in ("downgrade", "bidirectional")


def _policy(policy: str) -> str:
    if policy not in POLICIES:
        raise ValueError(f"group.consumer.migration.policy {policy!r} is not one of {', '.join(POLICIES)}")
    return policy



def mixed(group: Group, classic) -> Union[Group, MigratingGroup]:
    """``group`` with its classic members; a plain Group once none is left."""
    held = {m.member_id for m in group.members} if not group.dead else set()
    classic = tuple(sorted((mid, md) for mid, md in classic if mid in held))
    return MigratingGroup(group, classic) if classic else group


def consumer_of(group: AnyGroup) -> Group:
    return group.group if isinstance(group, MigratingGroup) else group


class ConsumerGroupClassicMemberMetadata(NamedTuple):
    """The ClassicMemberMetadata field of a member's ConsumerGroupMemberMetadata record, kept as
    a record of its own here (record_types.py leaves it out): written when a classic member
    joins or changes its protocols, None when the member speaks KIP-848 again."""

    group_id: str
    member_id: str
    value: Optional[ClassicMemberMetadata]


def classic_records(gid: str, before: tuple, after: tuple) -> tuple:
    """The classic-member-metadata records that turn ``before`` into ``after`` ((id, metadata) pairs)."""
    old, new = dict(before), dict(after)
    out = [ConsumerGroupClassicMemberMetadata(gid, mid, md) for mid, md in sorted(new.items()) if old.get(mid) != md]
    out += [ConsumerGroupClassicMemberMetadata(gid, mid, None) for mid in sorted(old) if mid not in new]
    return tuple(out)


def replay(records, group=None, *, partition_index=()):
    """What a coordinator loading ``records`` holds for the group id: a ClassicGroup (its last
    GroupMetadata record), a MigratingGroup, a Group (``records.replay`` for the consumer
    group's own records), or None when nothing was ever written. A classic group's tombstone
    makes way for the consumer group that follows; a consumer group's deletion for the classic
    group record that follows it."""
    current, classic = group, {}
    if isinstance(group, MigratingGroup):
        current, classic = group.group, dict(group.classic)
    for r in records:
        if isinstance(r, ClassicGroupMetadata):
            current = r.value
            classic = {}
        elif isinstance(r, ConsumerGroupClassicMemberMetadata):
            if r.value is None:
                classic.pop(r.member_id, None)
            else:
                classic[r.member_id] = r.value
        else:
            base = current if isinstance(current, Group) else None
            current = replay_consumer((r,), base, partition_index=partition_index)
    if isinstance(current, Group):
        return mixed(current, tuple(classic.items()))
    return current


__all__ = ["AnyGroup", "CONSUMER_PROTOCOL_TYPE", "ClassicGroup", "ClassicGroupMetadata", "ClassicMemberMetadata",
           "ConsumerGroupClassicMemberMetadata", "MIGRATION_SWITCHES", "Malformed", "MigratingGroup", "POLICIES",
           "assignment_of", "classic_records", "consumer_of", "downgrade_enabled", "encoded_assignment", "mixed",
           "replay", "subscription_of", "upgrade_enabled", "version_of", "wire_mask"]

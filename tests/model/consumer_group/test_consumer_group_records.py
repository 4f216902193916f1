"""The consumer group's __consumer_offsets records: diff writes only what changed, replay
rebuilds the group with Kafka's tolerances and rejections (GroupMetadataManager's replay methods)."""
from dataclasses import replace

import pytest

from groupcheck.model.consumer_group.coordinator import failover
from groupcheck.model.consumer_group.records import (ConsumerGroupCurrentMemberAssignment, ConsumerGroupMemberMetadata,
                                          ConsumerGroupMetadata, ConsumerGroupTargetAssignmentMember,
                                          ConsumerGroupTargetAssignmentMetadata, ReplayError, diff, replay)
from tests.helpers.consumer_group_driver import INDEX, Client, World, fresh


def grown():
    w = World()
    a, b = Client("A", instance_id="i1"), Client("B", regex="a|b")
    w.join(a)
    w.join(b)
    w.converge([a, b])
    return w


def test_failover_rebuilds_the_group_from_the_log_and_from_a_compacted_one():
    w = grown()
    assert failover(w.log, INDEX) == w.group
    assert failover(diff(fresh(), w.group), INDEX) == w.group      # one record per key


def test_deleting_the_group_writes_tombstones_that_replay_to_dead():
    w = grown()
    for m in w.group.members:                                      # empty it first
        w.apply(__import__("groupcheck.model.consumer_group.coordinator", fromlist=["x"]).session_timeout(w.group, m.member_id))
    dead = replace(w.group, dead=True)
    records = diff(w.group, dead)
    assert records[-1] == ConsumerGroupMetadata("g", None)
    assert replay(records, w.group).dead


def test_member_tombstone_needs_the_assignment_tombstones_first():
    w = grown()
    with pytest.raises(ReplayError, match="ConsumerGroupCurrentMemberAssignmentValue tombstone"):
        replay([ConsumerGroupMemberMetadata("g", "A", None)], w.group)
    with pytest.raises(ReplayError, match="TargetAssignmentMetadataValue tombstone"):
        replay([ConsumerGroupCurrentMemberAssignment("g", "A", None), ConsumerGroupMemberMetadata("g", "A", None)],
               w.group)
    out = replay([ConsumerGroupCurrentMemberAssignment("g", "A", None), ConsumerGroupTargetAssignmentMember("g", "A", None),
                  ConsumerGroupMemberMetadata("g", "A", None)], w.group)
    assert out.member("A") is None


def test_group_tombstone_rejected_while_members_remain_and_tombstones_for_nothing_ignored():
    w = grown()
    with pytest.raises(ReplayError, match="still has 2 members"):
        replay([ConsumerGroupMetadata("g", None)], w.group)
    with pytest.raises(ReplayError, match="still has"):
        replay([ConsumerGroupTargetAssignmentMetadata("g", None)], w.group)
    assert replay([ConsumerGroupMemberMetadata("g", "Z", None)], w.group) == w.group
    assert replay([ConsumerGroupMetadata("g", None)], fresh()).dead


def test_unknown_member_state_byte_reads_as_unknown():
    w = grown()
    v = diff(fresh(), w.group)
    cur = next(r for r in v if isinstance(r, ConsumerGroupCurrentMemberAssignment))
    odd = cur._replace(value=cur.value._replace(state=42))
    assert replay(v + (odd,), None, partition_index=INDEX).member(cur.member_id).state == "UNKNOWN"


def test_diff_writes_nothing_for_no_change_and_rejects_two_groups():
    w = grown()
    assert diff(w.group, w.group) == ()
    with pytest.raises(ValueError, match="same group"):
        diff(w.group, replace(w.group, group_id="h"))

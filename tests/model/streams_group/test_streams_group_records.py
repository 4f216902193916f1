"""Streams group records (KIP-1071 "Records"): diff writes only what changed, replay
rebuilds the group as GroupMetadataManager's replay does, and the group state derives
as StreamsGroup.maybeUpdateGroupState does."""
from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from groupcheck.model.streams_group.group import (MEMBER_STABLE, NO_TASKS, UNRELEASED, UNREVOKED, Group,
                                       Member, group_state, new_group, task_index)
from groupcheck.model.streams_group.records import (CurrentMemberAssignmentValue, OffsetCommit, ReplayError,
                                         StreamsGroupCurrentMemberAssignment, StreamsGroupMemberMetadata,
                                         StreamsGroupMetadata, StreamsGroupTargetAssignmentMember,
                                         StreamsGroupTargetAssignmentMetadata, StreamsGroupTopology,
                                         diff, member_metadata_value, replay, target_value)
from groupcheck.model.streams_group.state import (ASSIGNING, DEAD, EMPTY, NOT_READY, RECONCILING, STABLE, Endpoint,
                                       Subtopology, Topology)

INDEX = task_index({"0": 2, "1": 1})        # ("0",0) ("0",1) ("1",0): bits 0, 1, 2
TOPO = Topology(1, (Subtopology(subtopology_id="0", source_topics=("in",)), Subtopology(
    subtopology_id="1", source_topics=("rep",))))


def member(mid, epoch=1, assigned=NO_TASKS, **kw):
    return Member(member_id=mid, process_id="p-" + mid, epoch=epoch, previous_epoch=epoch - 1, assigned=assigned,
                  topology_epoch=1, rebalance_timeout_ms=100, **kw)


def stable_group():
    g = Group(group_id="app", task_index=INDEX, group_epoch=2, target_assignment_epoch=2, topology=TOPO,
              validated_topology_epoch=1, partition_metadata=(("in", 2), ("rep", 1)),
              assignment_configs=(("num.standby.replicas", "0"),))
    for m in (member("a", 2, (0b011, 0, 0)), member("b", 2, (0b100, 0, 0))):
        g = g.with_member(m).with_target(m.member_id, m.assigned)
    return g


def kinds(records):
    return [type(r).__name__ + ("-" if r.value is None else "") for r in records]


# ---- round trips ----

def test_full_history_from_nothing_replays_to_the_live_group():
    live = stable_group()
    assert replay(diff(new_group("app", INDEX), live), task_index=INDEX) == live


def test_each_step_of_a_history_round_trips():
    history = [new_group("app", INDEX), stable_group()]
    g = history[-1]
    history.append(replace(g.with_member(member("c", 0)), group_epoch=3))                 # c joins
    history.append(replace(history[-1].with_target("a", (0b001, 0, 0)).with_target("c", (0b010, 0, 0)),
                           target_assignment_epoch=3))                                   # new target
    a = history[-1].member("a")
    history.append(history[-1].with_member(replace(a, state=UNREVOKED, pending_revocation=(0b010, 0, 0),
                                                   assigned=(0b001, 0, 0))))             # a revokes
    history.append(replace(history[-1].without_member("b").with_target("b", None), group_epoch=4))  # b leaves
    log = []
    for before, after in zip(history, history[1:]):
        step = diff(before, after)
        assert replay(step, before) == after
        log += step
    assert replay(log, task_index=INDEX) == history[-1]


members_st = st.builds(
    Member, member_id=st.sampled_from(["a", "b", "c"]), process_id=st.sampled_from(["p", "q"]),
    instance_id=st.none() | st.just("i"), rack_id=st.none() | st.just("r"),
    client_tags=st.sampled_from([(), (("zone", "x"),)]), topology_epoch=st.integers(-1, 2),
    rebalance_timeout_ms=st.sampled_from([-1, 100]), user_endpoint=st.none() | st.just(Endpoint("h", 1)),
    state=st.sampled_from([MEMBER_STABLE, UNREVOKED, UNRELEASED]), epoch=st.integers(0, 3),
    previous_epoch=st.integers(-1, 3), assigned=st.tuples(*[st.integers(0, 7)] * 3),
    pending_revocation=st.tuples(*[st.integers(0, 7)] * 3))


@st.composite
def groups(draw):
    ms = {m.member_id: m for m in draw(st.lists(members_st, max_size=3))}
    target = draw(st.dictionaries(st.sampled_from(sorted(ms) or ["a"]), st.tuples(*[st.integers(0, 7)] * 3),
                                  max_size=3)) if ms else {}
    return Group(group_id="app", task_index=INDEX, group_epoch=draw(st.integers(0, 3)),
                 target_assignment_epoch=draw(st.integers(0, 3)),
                 topology=draw(st.sampled_from([None, TOPO, TOPO._replace(epoch=2)])),
                 validated_topology_epoch=draw(st.integers(-1, 2)),
                 partition_metadata=draw(st.sampled_from([(), (("in", 2),), (("in", 2), ("rep", 1))])),
                 members=tuple(ms[k] for k in sorted(ms)), target_assignment=tuple(sorted(target.items())),
                 assignment_configs=draw(st.sampled_from([(), (("k", "v"),)])))


@settings(max_examples=300, deadline=None)
@given(groups(), groups())
def test_replaying_the_diff_gives_the_after_group(a, b):
    assert replay(diff(a, b), a) == b
    log = diff(new_group("app", INDEX), b)
    if log:   # a group no record was ever written for is one Kafka does not hold
        assert replay(log, task_index=INDEX) == b


# ---- the KIP's statements ----

def test_a_leaving_member_leaves_three_tombstones_in_the_order_replay_needs():
    g = stable_group()
    after = replace(g.without_member("b").with_target("b", None), group_epoch=3)
    assert kinds(diff(g, after)) == ["StreamsGroupCurrentMemberAssignment-", "StreamsGroupTargetAssignmentMember-",
                                     "StreamsGroupMemberMetadata-", "StreamsGroupMetadata"]


def test_only_the_changed_member_record_is_written():
    g = stable_group()
    after = g.with_member(replace(g.member("a"), rack_id="r1"))
    assert diff(g, after) == (StreamsGroupMemberMetadata("app", "a", member_metadata_value(after.member("a"))),)
    assert diff(g, g) == ()


def test_the_target_assignment_is_one_batch_ending_with_its_epoch():
    g = stable_group()
    after = replace(g.with_target("a", (0b001, 0, 0)).with_target("b", (0b110, 0, 0)), target_assignment_epoch=3,
                    group_epoch=3)
    records = diff(g, after)
    assert kinds(records) == ["StreamsGroupMetadata", "StreamsGroupTargetAssignmentMember",
                              "StreamsGroupTargetAssignmentMember", "StreamsGroupTargetAssignmentMetadata"]
    assert records[-1] == StreamsGroupTargetAssignmentMetadata("app", 3)


def test_an_unchanged_target_entry_is_not_rewritten():
    g = stable_group()
    after = replace(g.with_target("b", (0b110, 0, 0)), target_assignment_epoch=3, group_epoch=3)
    assert [r.member_id for r in diff(g, after) if isinstance(r, StreamsGroupTargetAssignmentMember)] == ["b"]


def test_deleting_the_group_writes_kafkas_tombstones_and_replays_to_dead():
    g = stable_group()
    records = diff(g, replace(new_group("app", INDEX), dead=True))
    assert all(r.value is None for r in records)
    dead = replay(records, g)
    assert dead.dead and group_state(dead) == DEAD


# ---- replay's tolerances and rejections ----

def test_a_member_record_for_an_unknown_group_creates_it():
    g = replay([StreamsGroupCurrentMemberAssignment("app", "a", CurrentMemberAssignmentValue(3, 2, 1))],
               task_index=INDEX)
    assert not g.dead and g.member("a") == Member(member_id="a", epoch=3, previous_epoch=2)


def test_tombstones_for_an_unknown_group_or_member_are_ignored():
    for r in [StreamsGroupMetadata("app", None), StreamsGroupMemberMetadata("app", "x", None),
              StreamsGroupTopology("app", None), StreamsGroupTargetAssignmentMetadata("app", None)]:
        assert replay([r], task_index=INDEX).dead
    g = stable_group()
    assert replay([StreamsGroupMemberMetadata("app", "x", None)], g) == g


def test_a_member_tombstone_before_its_assignment_tombstones_is_rejected():
    g = stable_group()
    with pytest.raises(ReplayError, match="CurrentMemberAssignmentValue tombstone"):
        replay([StreamsGroupMemberMetadata("app", "b", None)], g)
    with pytest.raises(ReplayError, match="TargetAssignmentMetadataValue tombstone"):
        replay([StreamsGroupCurrentMemberAssignment("app", "b", None), StreamsGroupMemberMetadata("app", "b", None)], g)


def test_a_current_assignment_tombstone_keeps_the_member_at_epoch_minus_one():
    g = stable_group()
    b = replay([StreamsGroupCurrentMemberAssignment("app", "b", None)], g).member("b")
    assert (b.epoch, b.previous_epoch, b.assigned, b.state) == (-1, -1, NO_TASKS, MEMBER_STABLE)


def test_group_tombstone_rejected_with_members_or_without_the_target_epoch_tombstone():
    with pytest.raises(ReplayError, match="still has 2 members"):
        replay([StreamsGroupMetadata("app", None)], stable_group())
    empty = replace(new_group("app", INDEX), group_epoch=3, target_assignment_epoch=3)
    with pytest.raises(ReplayError, match="did not receive StreamsGroupTargetAssignmentMetadataValue"):
        replay([StreamsGroupMetadata("app", None)], empty)
    with pytest.raises(ReplayError, match="assignment still has 1 members"):
        replay([StreamsGroupTargetAssignmentMetadata("app", None)], empty.with_target("a", NO_TASKS))
    # Streams' group tombstone does not look at target entries (the consumer group's does)
    assert replay([StreamsGroupMetadata("app", None)],
                  replace(empty, target_assignment_epoch=-1).with_target("a", NO_TASKS)).dead


def test_a_record_after_deletion_creates_a_fresh_group():
    dead = replay(diff(stable_group(), replace(new_group("app", INDEX), dead=True)), stable_group())
    g = replay([StreamsGroupTopology("app", TOPO)], dead)
    assert g == replace(new_group("app", INDEX), topology=TOPO)


# ---- KAFKA-20254: offset commits before the streams group's records ----

COMPACTED_MIGRATION = [OffsetCommit("app", "in", 0, 42)] + list(diff(new_group("app", INDEX), stable_group()))


def test_kafka_20254_fixed_replay_replaces_the_simple_classic_group():
    """After compaction drops the classic group's tombstone, its offset commits precede
    the streams records; replaying the commit creates a simple classic group."""
    assert replay(COMPACTED_MIGRATION, task_index=INDEX) == stable_group()


def test_kafka_20254_buggy_replay_rejects_the_streams_records():
    with pytest.raises(ReplayError, match="Group app is not a streams group."):
        replay(COMPACTED_MIGRATION, task_index=INDEX, kafka_20254=True)
    # the other order (streams records, then commits) loads under either behaviour
    later = list(diff(new_group("app", INDEX), stable_group())) + [OffsetCommit("app", "in", 0, 42)]
    assert replay(later, task_index=INDEX, kafka_20254=True) == stable_group()


def test_offset_commits_alone_hold_no_streams_group():
    assert group_state(replay([OffsetCommit("app", "in", 0, 1)], task_index=INDEX)) == DEAD


# ---- group state: one test per state, in maybeUpdateGroupState's order ----

def test_state_empty_wins_over_everything():
    assert group_state(replace(new_group("app", INDEX), group_epoch=5)) == EMPTY


def test_state_not_ready_without_topology_or_unvalidated_epoch():
    g = stable_group()
    assert group_state(replace(g, topology=None)) == NOT_READY
    assert group_state(replace(g, validated_topology_epoch=0, group_epoch=9)) == NOT_READY


def test_state_assigning_when_group_epoch_ahead():
    assert group_state(replace(stable_group(), group_epoch=3)) == ASSIGNING


def test_state_reconciling_when_a_member_is_not_at_target():
    g = stable_group()
    assert group_state(g.with_member(replace(g.member("a"), epoch=1))) == RECONCILING
    assert group_state(g.with_member(replace(g.member("a"), state=UNRELEASED))) == RECONCILING


def test_state_stable():
    assert group_state(stable_group()) == STABLE


def test_state_dead():
    assert group_state(replace(new_group("app", INDEX), dead=True)) == DEAD


def test_misuse_names_the_fix():
    with pytest.raises(ValueError, match="sorted"):
        Group(group_id="app", members=(Member(member_id="b"), Member(member_id="a")))
    with pytest.raises(ValueError, match="task_index"):
        replay([StreamsGroupTargetAssignmentMember("app", "a", target_value(stable_group(), (1, 0, 0)))],
               task_index=())


def test_a_target_batch_always_ends_with_its_epoch_record_even_at_the_same_epoch():
    g = stable_group()
    records = diff(g, g.with_target("b", (0b110, 0, 0)))
    assert records[-1] == StreamsGroupTargetAssignmentMetadata("app", 2)

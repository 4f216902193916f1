"""KIP-1071 "Online Migration from a Classic Consumer Group to a Streams Group": the KIP's
worked example (classic generation 23 -> group epoch 24 -> 25) through the handlers, the
conversion back when the last streams member leaves, and the shipped profiles' offline-only
answers (KAFKA-19570). With this model's assignor the task names differ from the KIP's; the
KIP's rules are asserted. After every step the streams records replay to the live group."""
from dataclasses import replace

import pytest

from groupcheck.model.consumer.state import (ILLEGAL_GENERATION, NONE, PREPARING, REBALANCE_IN_PROGRESS, STABLE,
                                  UNKNOWN_MEMBER_ID)
from groupcheck.model.consumer.state import Group as ClassicGroup
from groupcheck.model.consumer.state import GroupMember, Heartbeat, JoinGroup, SyncGroup
from groupcheck.model.streams_group.coordinator import Cluster, Config
from groupcheck.model.streams_group.group import Group, mask_of, new_group, task_ids_of, task_index
from groupcheck.model.streams_group.migration import (ClassicGroupMetadata, MigratingGroup, StreamsAssignment,
                                           StreamsSubscription, streams_heartbeat, streams_of)
from groupcheck.model.streams_group.migration_classic import (classic_heartbeat, classic_join, classic_leave,
                                                   classic_sync)
from groupcheck.model.consumer.state import LeaveGroup
from groupcheck.model.streams_group.records import StreamsGroupMetadata, replay
from groupcheck.model.streams_group.state import (ERRORS, StreamsGroupHeartbeat, Subtopology, TaskIds, TaskOffset,
                                       TopicInfo, Topology)
from groupcheck.model.streams_group.target import AssignmentConfigs

IDX = task_index({"0": 6})
TOPOLOGY = Topology(0, (Subtopology(subtopology_id="0", source_topics=("in",),
                                    state_changelog_topics=(TopicInfo("app-store-changelog"),)),))
CLUSTER = Cluster((("app-store-changelog", 6), ("in", 6)))
CONFIG = Config(assignment=AssignmentConfigs(num_standby_replicas=1, num_warmup_replicas=2,
                                             acceptable_recovery_lag=0))


def T(*partitions):
    return (TaskIds("0", tuple(sorted(partitions))),) if partitions else ()


def M(*partitions):
    return mask_of(IDX, T(*partitions))


def classic_member(mid, active, standby):
    sub = StreamsSubscription("p" + mid, T(*active), T(*standby))
    return GroupMember(member_id=mid, slot=0, protocols=("stream",), subscription=sub, joined=False, syncing=False,
                       assignment=StreamsAssignment(T(*active), T(*standby)))


def kip_classic_group():
    """"classic group (generation=23)": A active=[0_0, 0_2, 0_4], standby=[0_1, 0_3, 0_5];
    B active=[0_1, 0_3, 0_5], standby=[0_0, 0_2, 0_4]."""
    return ClassicGroup(status=STABLE, generation=23, protocol="stream", leader="A",
                        members=(classic_member("A", (0, 2, 4), (1, 3, 5)), classic_member("B", (1, 3, 5), (0, 2, 4))),
                        pending=(), next_id=1)


def c_join(member_id="C"):
    return StreamsGroupHeartbeat(group_id="app", member_id=member_id, member_epoch=0, process_id="p" + member_id,
                                 rebalance_timeout_ms=1000, topology=TOPOLOGY, active_tasks=(), standby_tasks=(),
                                 warmup_tasks=())


class Run:
    """The coordinator's group for "app", the log of streams records, classic clients' owned tasks."""

    def __init__(self, group, profile="kip-1071"):
        self.group, self.profile, self.log = group, profile, []
        self.owned = {}   # classic member -> StreamsAssignment it holds

    def keep(self, out):
        self.group = out.group
        self.log += [r for r in out.records if not isinstance(r, ClassicGroupMetadata)]
        if isinstance(self.group, (Group, MigratingGroup)):
            start = replace(new_group("app", IDX), dead=True)
            assert replay(self.log, start) == streams_of(self.group), "replay(log) != live group"
        return out

    def streams(self, request):
        return self.keep(streams_heartbeat(self.group, request, CLUSTER, self.profile, CONFIG, IDX))

    def epoch(self, mid):
        return streams_of(self.group).member(mid).epoch

    def heartbeat(self, mid):
        return classic_heartbeat(self.group, Heartbeat(member_id=mid, generation=self.epoch(mid))).response.error

    def rebalance(self, mid):
        """A classic Streams client's rebalance: JoinGroup with what it owns, SyncGroup, then
        (cooperative) it drops what the assignment no longer has. Returns both responses."""
        owned = self.owned.get(mid) or dict(self.group.classic).get(mid)
        if owned is None:
            sub = StreamsSubscription("p" + mid)
        elif isinstance(owned, StreamsAssignment):
            sub = StreamsSubscription("p" + mid, owned.active, owned.standby)
        else:
            sub = owned
        join = self.keep(classic_join(self.group, JoinGroup(member_id=mid, protocols=("stream",), subscription=sub),
                                      CLUSTER, self.profile, CONFIG)).response
        sync = classic_sync(self.group, SyncGroup(member_id=mid, generation=join.generation)).response
        assert sync.error == NONE
        self.owned[mid] = sync.assignment
        return join, sync

    def converge_classic(self, mid):
        """Rebalance while the heartbeat says REBALANCE_IN_PROGRESS; the generations seen."""
        seen = []
        while self.heartbeat(mid) == REBALANCE_IN_PROGRESS:
            seen.append(self.rebalance(mid)[0].generation)
            assert len(seen) < 5
        return seen


def c_beat(run, member_id="C", **kw):
    m = streams_of(run.group).member(member_id)
    req = StreamsGroupHeartbeat(group_id="app", member_id=member_id, member_epoch=m.epoch, process_id="p" + member_id,
                                active_tasks=task_ids_of(IDX, m.assigned[0]),
                                standby_tasks=task_ids_of(IDX, m.assigned[1]),
                                warmup_tasks=task_ids_of(IDX, m.assigned[2]), **kw)
    return run.streams(req)


def no_double_active(group):
    seen = 0
    for m in streams_of(group).members:
        held = m.assigned[0] | m.pending_revocation[0]
        assert not held & seen, "an active task is held by two members"
        seen |= held


def test_kip_example_step_by_step():
    run = Run(kip_classic_group())
    # C joins using the Streams protocol: "The classic group is transformed to a streams group."
    out = run.streams(c_join())
    g = run.group
    assert isinstance(g, MigratingGroup) and [mid for mid, _ in g.classic] == ["A", "B"]
    assert out.records[0] == ClassicGroupMetadata("app", None)
    # "Note that the group epoch starts at the current group generation": 23, then C's join bumps it.
    assert out.events[0] == ("converted_to_streams", 23)
    assert [r.value.epoch for r in out.records if isinstance(r, StreamsGroupMetadata)] == [23, 24]
    assert g.group.group_epoch == g.group.target_assignment_epoch == 24
    assert (run.epoch("A"), run.epoch("B"), run.epoch("C")) == (23, 23, 24)
    # The KIP's shape: C gets no active task, standbys and warm-ups; A and B keep their actives.
    c_target = g.group.target_of("C")
    assert c_target[0] == 0 and c_target[1] and c_target[2]
    assert out.response.member_epoch == 24 and out.response.warmup_tasks
    assert g.group.target_of("A")[0] == M(0, 2, 4) and g.group.target_of("B")[0] == M(1, 3, 5)
    # "A rebalance is triggered ... for all consumers still on the classic protocol by sending
    # the REBALANCE_IN_PROGRESS error in the heartbeat."
    assert run.heartbeat("A") == run.heartbeat("B") == REBALANCE_IN_PROGRESS
    # A and B rejoin with their owned tasks; each must give up a standby to C, so "their member
    # epoch stays the same" (23) until they report it revoked, then the JoinGroup carries 24.
    # (The KIP's example shows 24 at once though its own target makes A revoke 0_4.)
    assert run.converge_classic("A") == [23, 24]
    assert run.converge_classic("B") == [23, 24]
    assert (run.epoch("A"), run.epoch("B")) == (24, 24)
    sync_a = classic_sync(run.group, SyncGroup(member_id="A", generation=24)).response
    assert mask_of(IDX, sync_a.assignment.active) == M(0, 2, 4)
    no_double_active(run.group)
    # "C's warm-up task ... is caught up": the group epoch is bumped, a new target (25).
    warm = streams_of(run.group).member("C").assigned[2]
    task = next(i for i in range(6) if warm >> i & 1)
    out = c_beat(run, task_offsets=(TaskOffset("0", task, 100),), task_end_offsets=(TaskOffset("0", task, 100),))
    g = run.group.group
    assert out.events[0] == ("group_epoch_bumped", ("warm-up caught up",)) and g.group_epoch == 25
    assert g.target_of("C")[0] == M(task)
    owner = next(mid for mid in "AB" if g.member(mid).assigned[0] & M(task))
    # "A is requested to revoke active task 0_2, thus A does not increase its generation ID."
    assert run.heartbeat(owner) == REBALANCE_IN_PROGRESS
    join, sync = run.rebalance(owner)
    assert join.generation == 24 and not mask_of(IDX, sync.assignment.active) & M(task)
    # "A follow-up rebalance is triggered so that A can report the revoked active task ...
    # Since A does not need to revoke tasks anymore the generation ID is increased."
    # (A second rejoin may follow at 25: UNRELEASED, it fetches the standby its own revoked
    # active task blocked, Kafka's "partitions pending assignment are free" trigger.)
    assert set(run.converge_classic(owner)) == {25}
    other = "B" if owner == "A" else "A"
    run.converge_classic(other)
    for _ in range(3):
        c_beat(run)
    g = run.group.group
    assert all(m.is_reconciled_to(25) for m in g.members) and g.member("C").assigned[0] == M(task)
    assert all(m.assigned == g.target_of(m.member_id) for m in g.members)
    no_double_active(run.group)
    # C leaves: "the group is converted back to a classic group".
    before = run.group.group
    out = run.streams(c_join()._replace(member_epoch=-1, topology=None, rebalance_timeout_ms=-1,
                              active_tasks=None, standby_tasks=None, warmup_tasks=None))
    classic = run.group
    assert isinstance(classic, ClassicGroup) and out.response.member_epoch == -1
    assert classic.generation == before.group_epoch == 25 and classic.status == PREPARING
    assert [m.member_id for m in classic.members] == ["A", "B"]
    for m in classic.members:
        current = before.member(m.member_id).assigned
        assert m.assignment == StreamsAssignment(task_ids_of(IDX, current[0]), task_ids_of(IDX, current[1] | current[2]))
    # "The records of the Streams protocol are deleted": the log replays to no streams group.
    assert out.records[-1] == ClassicGroupMetadata("app", classic)
    assert replay(run.log, replace(new_group("app", IDX), dead=True)).dead


def test_warmups_reach_classic_members_as_standbys():
    """KIP: "If the group coordinator assigns a warm-up task to a Streams client on the classic
    protocol, that warm-up task is translated to a standby task"."""
    run = Run(kip_classic_group())
    run.streams(c_join())
    run.converge_classic("A"), run.converge_classic("B")
    join, sync = run.rebalance("D")                              # a new classic client, no state
    d = run.group.group.member("D")
    assert d.assigned[2], "the assignor gives the new client warm-ups"
    assert mask_of(IDX, sync.assignment.standby) == d.assigned[1] | d.assigned[2]
    assert mask_of(IDX, sync.assignment.active) == d.assigned[0]
    # D reports its warm-ups back as standbys; they are owned as warm-ups, nothing to revoke
    run.converge_classic("D")
    assert run.group.group.member("D").assigned[2] == d.assigned[2] and run.epoch("D") == run.group.group.group_epoch


def test_a_reported_standby_held_as_warmup_is_owned_as_warmup():
    """The JoinGroup's standbys, read back: "warm-ups are standby tasks in the classic protocol"."""
    from groupcheck.model.streams_group.group import Member
    from groupcheck.model.streams_group.migration_classic import _owned
    d = Member(member_id="D", assigned=(0, M(1), M(4)), pending_revocation=(0, 0, M(2)))
    sub = StreamsSubscription("pD", (), T(1, 2, 4))
    assert _owned(streams_of(Run(kip_classic_group()).streams(c_join()).group), d, sub) == (0, M(1), M(2, 4))


def test_classic_requests_are_checked():
    run = Run(kip_classic_group())
    run.streams(c_join())
    g = run.group
    assert classic_heartbeat(g, Heartbeat(member_id="A", generation=22)).response.error == ILLEGAL_GENERATION
    assert classic_heartbeat(g, Heartbeat(member_id="C", generation=24)).response.error == UNKNOWN_MEMBER_ID
    assert classic_sync(g, SyncGroup(member_id="X", generation=23)).response.error == UNKNOWN_MEMBER_ID
    # the group epoch moved on and A is not UNREVOKED: its SyncGroup must wait for a rejoin
    assert classic_sync(g, SyncGroup(member_id="A", generation=23)).response.error == REBALANCE_IN_PROGRESS
    out = streams_heartbeat(g, StreamsGroupHeartbeat(group_id="app", member_id="A", member_epoch=23, active_tasks=(),
                                                     standby_tasks=(), warmup_tasks=()), CLUSTER, "kip-1071", CONFIG)
    assert out.response.error_code == ERRORS["UNKNOWN_MEMBER_ID"] and out.group is g


def test_classic_leaves_until_a_plain_streams_group():
    run = Run(kip_classic_group())
    run.streams(c_join())
    run.keep(classic_leave(run.group, LeaveGroup(member_id="A")))
    assert isinstance(run.group, MigratingGroup) and run.group.group.group_epoch == 25
    run.keep(classic_leave(run.group, LeaveGroup(member_id="B")))
    assert isinstance(run.group, Group) and [m.member_id for m in run.group.members] == ["C"]


def test_non_join_heartbeat_to_a_classic_group_is_not_found():
    g = kip_classic_group()
    req = c_join()._replace(member_epoch=5, topology=None, rebalance_timeout_ms=-1)
    out = streams_heartbeat(g, req, CLUSTER, "kip-1071", CONFIG, IDX)
    assert out.response.error_code == ERRORS["GROUP_ID_NOT_FOUND"] and out.group is g and out.records == ()
    assert out.response.error_message == "Group app is not a streams group."


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.5"])
def test_shipped_kafka_refuses_a_live_classic_group(profile):
    """kafka-behavior.md A4: "Migration: offline only ... non-empty -> 69"."""
    g = kip_classic_group()
    out = streams_heartbeat(g, c_join()._replace(rack_id="r"), CLUSTER, profile, CONFIG, IDX)
    assert out.response.error_code == ERRORS["GROUP_ID_NOT_FOUND"] == 69
    assert out.response.error_message == "Group app is not a streams group."
    assert out.group is g and out.records == ()


@pytest.mark.parametrize("profile", ["kafka-4.1", "kafka-4.5", "kip-1071"])
def test_empty_classic_group(profile):
    """KAFKA-19570 (shipped): an empty classic group is deleted and a new streams group starts
    at epoch 1. kip-1071: converted, the group epoch starts at the generation."""
    empty = ClassicGroup(status="Empty", generation=7, protocol="", leader="", members=(), pending=(), next_id=1)
    run = Run(empty, profile)
    out = run.streams(c_join()._replace(rack_id="r"))
    assert out.response.error_code == 0 and out.records[0] == ClassicGroupMetadata("app", None)
    assert isinstance(run.group, Group)
    assert run.group.group_epoch == (8 if profile == "kip-1071" else 1)

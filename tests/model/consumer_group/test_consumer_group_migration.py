"""Online migration between a classic consumer group and a KIP-848 consumer group through the
handlers (model/consumer_group/migration.py, migration_classic.py): a two-member classic group
upgraded one member at a time and downgraded back, the policy and size refusals, a classic member
answered REBALANCE_IN_PROGRESS while it must revoke, and no partition owned twice across classic
and consumer clients. After every step the consumer group's records replay to the live group."""
from dataclasses import replace

import pytest

from groupcheck.model.consumer import coordinator as classic_coordinator
from groupcheck.model.consumer.state import (COMPLETING, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL,
                                             MEMBER_ID_REQUIRED,
                                  NONE, PREPARING, REBALANCE_IN_PROGRESS, STABLE, UNKNOWN_MEMBER_ID, GroupMember,
                                  Heartbeat, JoinGroup, LeaveGroup, SyncGroup)
from groupcheck.model.consumer.state import Group as ClassicState
from groupcheck.model.consumer_group.coordinator import Cluster, Config
from groupcheck.model.consumer_group.group import Group, mask_of, partition_index
from groupcheck.model.consumer_group.migration import (ClassicGroup, ClassicGroupMetadata, MigratingGroup,
                                                       assignment_of,
                                            consumer_heartbeat, consumer_of, consumer_session_timeout,
                                            convert_to_consumer, downgrades, subscription_of, wire_mask)
from groupcheck.model.consumer_group.migration_classic import (classic_heartbeat, classic_join, classic_leave,
                                                               classic_sync,
                                                    must_rejoin)
from groupcheck.model.consumer_group.migration_state import ConsumerGroupClassicMemberMetadata
from groupcheck.model.consumer_group.migration_state import replay as replay_any
from groupcheck.model.consumer_group.state import ERRORS, ConsumerGroupHeartbeat, TopicPartitions
from groupcheck.model.wire.consumer_protocol import Assignment, Subscription, encode_assignment, encode_subscription

TOPICS = (("t", 4),)
IDX = partition_index(TOPICS)
CLUSTER = Cluster(TOPICS)
BI = Config(migration_policy="bidirectional")


def meta(owned=(), topics=("t",), version=3):
    return encode_subscription(Subscription(topics, None, (("t", tuple(owned)),) if owned else (), -1, None), version)


def assignment(*ps):
    return encode_assignment(Assignment((("t", tuple(ps)),) if ps else (), None), 3)


def parts(data) -> set[int]:
    return {p for t, ps in assignment_of(data).assigned_partitions for p in ps}


def classic_group(generation=5, members=(("A", (0, 1)), ("B", (2, 3))), status=STABLE, protocol_type="consumer"):
    ms = tuple(GroupMember(member_id=mid, slot=i, protocols=("cooperative-sticky",), subscription=meta(ps),
                           joined=False, syncing=False, assignment=assignment(*ps))
               for i, (mid, ps) in enumerate(members))
    return ClassicGroup("g", ClassicState(status=status, generation=generation, protocol="cooperative-sticky",
                                          leader=ms[0].member_id if ms else 0, members=ms, pending=(), next_id=1),
                        protocol_type)


def join(mid, epoch=0, owned=None):
    owned = () if owned is None and epoch == 0 else owned
    tps = None if owned is None else ((TopicPartitions("t", tuple(sorted(owned))),) if owned else ())
    return ConsumerGroupHeartbeat(group_id="g", member_id=mid, member_epoch=epoch,
                                  rebalance_timeout_ms=1000 if epoch == 0 else -1,
                                  subscribed_topic_names=("t",) if epoch == 0 else None, topic_partitions=tps)


def assigned(resp) -> set[int]:
    return {p for t in resp.assignment for p in t.partitions}


class Run:
    """The coordinator's group, its log of consumer-group records, and what each client owns."""

    def __init__(self, group, **kw):
        self.group, self.kw, self.log, self.owned = group, kw, [], {}

    def _records(self, records):
        """The log replays to the live group (a classic group once its record was written)."""
        self.log.extend(records)
        if self.log and (isinstance(self.group, (Group, MigratingGroup)) or any(
                isinstance(r, ClassicGroupMetadata) and r.value is not None for r in self.log)):
            assert replay_any(self.log, partition_index=IDX) == self.group
        self.check_owned()

    def check_owned(self):
        seen = {}
        for client, ps in self.owned.items():
            for p in ps:
                assert p not in seen, f"partition {p} owned by {seen[p]} and {client}"
                seen[p] = client

    def hb(self, request, **kw):
        out = consumer_heartbeat(self.group, request, CLUSTER, partition_index=IDX, **{**self.kw, **kw})
        self.group = out.group
        if out.response.error_code == 0 and out.response.assignment is not None:
            self.owned[request.member_id] = assigned(out.response)
        self._records(out.records)
        return out

    def classic(self, handler, request, **kw):
        out = handler(self.group, request, **kw)
        self.group = out.group
        self._records(out.records)
        return out


def test_conversion_keeps_generation_members_and_assignments():
    """ConsumerGroup#fromClassicGroup: "The target assignment and the assigned partitions of each
    member are set based on the last assignment of the classic group. All the members are put in
    the Stable state"; the generation becomes the group epoch and the assignment epoch."""
    g, meta_ = convert_to_consumer(classic_group(), IDX)
    assert (g.group_epoch, g.target_assignment_epoch) == (5, 5)
    a, b = g.member("A"), g.member("B")
    assert (a.state, a.epoch, a.previous_epoch, a.subscribed_topic_names) == ("STABLE", 5, 5, ("t",))
    assert a.assigned == g.target_of("A") == mask_of(IDX, (TopicPartitions("t", (0, 1)),))
    assert b.assigned == mask_of(IDX, (TopicPartitions("t", (2, 3)),))
    assert [mid for mid, _ in meta_] == ["A", "B"] and meta_[0][1].protocols[0][0] == "cooperative-sticky"


def test_upgrade_one_member_at_a_time_then_downgrade_back():
    """A two-member classic group: A restarts on the consumer protocol (its classic self left
    with LeaveGroup, as the Java consumer does on close), the classic group rebalances to B
    alone; A's ConsumerGroupHeartbeat converts the group (generation -> group epoch, then the
    join bumps it); B is told REBALANCE_IN_PROGRESS, rejoins, revokes, rejoins; then B upgrades
    too. Finally a classic member joins and the last consumer member leaves: the group is
    classic again. No partition is owned by two clients at any step."""
    run = Run(classic_group(), config=BI)
    run.owned = {"A": {0, 1}, "B": {2, 3}}
    # A closes: LeaveGroup to the classic coordinator; B rejoins and takes everything (generation 6)
    cg = run.group
    out = classic_coordinator.leave_group(cg.state, "A")
    run.owned.pop("A")
    st = out.group
    st = classic_coordinator.join_group(st, 1, JoinGroup(member_id="B", protocols=("cooperative-sticky",),
                                                         subscription=meta((2, 3)))).group
    assert st.status == COMPLETING and st.generation == 6
    st = classic_coordinator.sync_group(st, 1, "B", 6, (("B", assignment(0, 1, 2, 3)),)).group
    run.group = cg._replace(state=st)
    run.owned["B"] = {0, 1, 2, 3}
    # A' joins with the consumer protocol: converted at epoch 6, bumped to 7 by the join
    out = run.hb(join("A2"))
    assert out.response.error_code == 0 and out.events[0] == ("converted_to_consumer", 6)
    assert isinstance(out.records[0], ClassicGroupMetadata) and out.records[0].value is None
    g = run.group
    assert isinstance(g, MigratingGroup) and g.is_classic("B") and not g.is_classic("A2")
    assert g.group.group_epoch == 7 and out.response.member_epoch == 7
    assert assigned(out.response) == set()                 # B still holds A2's share
    # B's classic heartbeat: REBALANCE_IN_PROGRESS (its epoch 6 < group epoch 7)
    assert run.classic(classic_heartbeat,
                       Heartbeat(member_id="B", generation=6)).response.error == REBALANCE_IN_PROGRESS
    # B rejoins reporting all four owned: it must revoke, its epoch (the generation) stays 6
    r = run.classic(classic_join, JoinGroup(member_id="B", protocols=("cooperative-sticky",),
                                            subscription=meta((0, 1, 2, 3))), cluster=CLUSTER, config=BI)
    assert r.response.error == NONE and r.response.generation == 6 and r.response.leader == ""
    assert run.group.group.member("B").state == "UNREVOKED"
    # SyncGroup is allowed while UNREVOKED and hands B what it keeps
    s = run.classic(classic_sync, SyncGroup(member_id="B", generation=6))
    assert s.response.error == NONE
    kept = parts(s.response.assignment)
    assert len(kept) == 2 and kept < {0, 1, 2, 3}
    run.owned["B"] = kept                                   # cooperative: revoke, then rejoin
    assert run.classic(classic_heartbeat,
                       Heartbeat(member_id="B", generation=6)).response.error == REBALANCE_IN_PROGRESS
    r = run.classic(classic_join, JoinGroup(member_id="B", protocols=("cooperative-sticky",),
                                            subscription=meta(sorted(kept))), cluster=CLUSTER, config=BI)
    assert r.response.generation == 7
    assert run.classic(classic_sync, SyncGroup(member_id="B", generation=7)).response.error == NONE
    assert run.classic(classic_heartbeat, Heartbeat(member_id="B", generation=7)).response.error == NONE
    # A2 now gets the released partitions
    out = run.hb(join("A2", 7, owned=()))
    assert assigned(out.response) == {0, 1, 2, 3} - kept
    # B upgrades: LeaveGroup (classic) removes it; no classic member is left: a plain consumer group
    r = run.classic(classic_leave, LeaveGroup(member_id="B"), config=BI)
    run.owned.pop("B")
    assert isinstance(run.group, Group) and run.group.member("B") is None
    out = run.hb(join("B2"))
    assert out.response.error_code == 0 and not isinstance(run.group, MigratingGroup)
    # downgrade back: a classic consumer C joins the consumer group, then the consumer members leave
    r = run.classic(classic_join, JoinGroup(member_id="C", protocols=("range", "cooperative-sticky"),
                                            subscription=meta(())), cluster=CLUSTER, config=BI)
    assert r.response.error == NONE and run.group.is_classic("C")
    epoch = run.group.group.member("A2").epoch
    run.hb(ConsumerGroupHeartbeat(group_id="g", member_id="A2", member_epoch=-1))
    run.owned.pop("A2")
    assert isinstance(run.group, MigratingGroup)
    out = run.hb(ConsumerGroupHeartbeat(group_id="g", member_id="B2", member_epoch=-1))
    run.owned.pop("B2", None)
    assert out.response.member_epoch == -1 and out.events[0][0] == "converted_to_classic"
    cg = run.group
    assert isinstance(cg, ClassicGroup) and cg.state.status == PREPARING
    assert [m.member_id for m in cg.state.members] == ["C"] and cg.state.protocol == "range"
    assert isinstance(out.records[-1], ClassicGroupMetadata) and out.records[-1].value == cg
    assert epoch > 0


@pytest.mark.parametrize("policy,upgrades", [("disabled", False), ("downgrade", False), ("upgrade", True),
                                             ("bidirectional", True)])
def test_upgrade_follows_the_policy(policy, upgrades):
    """validateOnlineUpgrade: "the online upgrade is disabled" unless the policy is upgrade or
    bidirectional (ConsumerGroupMigrationPolicy#isUpgradeEnabled)."""
    cg = classic_group()
    out = consumer_heartbeat(cg, join("C"), CLUSTER, config=Config(migration_policy=policy), partition_index=IDX)
    if upgrades:
        assert out.response.error_code == 0 and isinstance(out.group, MigratingGroup)
    else:
        assert out.response.error_code == ERRORS["GROUP_ID_NOT_FOUND"] and out.group == cg and out.records == ()
        assert "online upgrade is disabled" in out.response.error_message


def test_upgrade_refusals_other_protocol_size_malformed_and_3_7():
    """A group not using the consumer embedded protocol, one larger than group.consumer.max.size,
    malformed member metadata, 3.7 (no migration at all) and a non-join epoch: GROUP_ID_NOT_FOUND,
    the classic group untouched."""
    cases = [
        (classic_group(protocol_type="connect"), join("C"), {}, "does not use the consumer embedded protocol"),
        (classic_group(), join("C"), {"config": Config(max_size=1)}, "exceeds the consumer group maximum size"),
        (classic_group(), join("C"), {"profile": "kafka-3.7"}, "is not a consumer group"),
        (classic_group(), join("C", 3, owned=()), {}, "is not a consumer group"),
    ]
    bad = classic_group()
    bad = bad._replace(state=bad.state._replace(members=(bad.state.members[0]._replace(subscription=b"\x00"),)))
    cases.append((bad, join("C"), {}, "embedded consumer protocol is malformed"))
    for cg, request, kw, text in cases:
        out = consumer_heartbeat(cg, request, CLUSTER, partition_index=IDX, **kw)
        assert out.response.error_code == ERRORS["GROUP_ID_NOT_FOUND"], text
        assert text in out.response.error_message and out.group == cg and out.records == ()


def test_empty_classic_group_is_replaced_whatever_the_policy():
    """getOrMaybeCreateConsumerGroup -> maybeDeleteEmptyClassicGroup: an empty classic group is
    deleted (its tombstone first) and a new consumer group created; no policy check."""
    cg = classic_group(members=())
    out = consumer_heartbeat(cg, join("C"), CLUSTER, config=Config(migration_policy="disabled"), partition_index=IDX)
    assert out.response.error_code == 0 and out.records[0] == ClassicGroupMetadata("g", None)
    assert isinstance(out.group, Group) and out.group.group_epoch == 1


def test_converting_a_rebalancing_group_answers_waiting_members():
    """convertToConsumerGroup: "If the ClassicGroup is rebalancing, inform the awaiting consumers
    of another ongoing rebalance so that they will rejoin" (REBALANCE_IN_PROGRESS)."""
    cg = classic_group(status=COMPLETING, members=(("A", (0,)), ("B", (1,)), ("D", (2,))))
    a, b, d = cg.state.members
    cg = cg._replace(state=cg.state._replace(members=(a._replace(joined=True), b._replace(syncing=True), d)))
    out = consumer_heartbeat(cg, join("C"), CLUSTER, partition_index=IDX)
    assert ("classic_rebalance_in_progress", "A") in out.events     # its JoinGroup waited
    assert ("classic_rebalance_in_progress", "B") in out.events     # its SyncGroup waited
    assert ("classic_rebalance_in_progress", "D") not in out.events


def _mixed_with_one_consumer_member(**kw):
    run = Run(classic_group(), **kw)
    run.hb(join("C"))
    return run


@pytest.mark.parametrize("policy,back", [("bidirectional", True), ("downgrade", True), ("upgrade", False),
                                         ("disabled", False)])
def test_downgrade_follows_the_policy(policy, back):
    """validateOnlineDowngradeWithFencedMembers: "the online downgrade is disabled" unless the
    policy is downgrade or bidirectional; refused, the group stays a consumer group holding only
    classic members, which keep working."""
    cfg = Config(migration_policy="bidirectional")
    run = _mixed_with_one_consumer_member(config=cfg)
    run.kw["config"] = Config(migration_policy=policy)
    out = run.hb(ConsumerGroupHeartbeat(group_id="g", member_id="C", member_epoch=-1))
    assert out.response.member_epoch == -1
    assert isinstance(run.group, ClassicGroup) == back
    if not back:
        g = run.group
        assert isinstance(g, MigratingGroup) and all(g.is_classic(m.member_id) for m in g.group.members)
        assert classic_heartbeat(g, Heartbeat(member_id="A", generation=g.group.member("A").epoch)).response.error \
            == REBALANCE_IN_PROGRESS


def test_downgrade_respects_classic_max_size_unless_kafka_16861():
    """"Cannot downgrade consumer group X to classic group because its group size is greater than
    classic group max size." (validateOnlineDowngrade); KAFKA-16861 unfixed: downgraded anyway."""
    run = _mixed_with_one_consumer_member(config=BI)
    before = run.group
    assert not downgrades(before, ("C",), BI, classic_max_size=1)
    assert downgrades(before, ("C",), BI, classic_max_size=2)
    assert downgrades(before, ("C",), BI, classic_max_size=1, switches=("kafka-16861",))
    out = consumer_heartbeat(before, ConsumerGroupHeartbeat(group_id="g", member_id="C", member_epoch=-1), CLUSTER,
                             config=BI, classic_max_size=1)
    assert isinstance(out.group, MigratingGroup) and out.group.group.member("C") is None
    out = consumer_heartbeat(before, ConsumerGroupHeartbeat(group_id="g", member_id="C", member_epoch=-1), CLUSTER,
                             config=BI, classic_max_size=1,
                             switches=("kafka-16861",))
    assert isinstance(out.group, ClassicGroup) and len(out.group.state.members) == 2


def test_downgrade_keeps_generation_and_target_assignment():
    """ClassicGroup#fromConsumerGroup: generation = the group epoch; each member's assignment is
    its target assignment serialized with ConsumerProtocol; then PreparingRebalance."""
    run = _mixed_with_one_consumer_member(config=BI)
    g = run.group.group
    out = run.hb(ConsumerGroupHeartbeat(group_id="g", member_id="C", member_epoch=-1))
    cg = out.group
    assert cg.state.generation == g.group_epoch and cg.state.status == PREPARING
    for m in cg.state.members:
        assert wire_mask(IDX, assignment_of(m.assignment).assigned_partitions) == g.target_of(m.member_id)
        assert subscription_of(m.subscription).topics == ("t",)


def test_session_timeout_of_last_consumer_member_downgrades():
    """consumerGroupSessionTimeoutExpired fences through consumerGroupFenceMember, which downgrades."""
    run = _mixed_with_one_consumer_member(config=BI)
    out = consumer_session_timeout(run.group, "C", config=BI)
    assert isinstance(out.group, ClassicGroup) and out.events[0][0] == "converted_to_classic"
    out = consumer_session_timeout(run.group, "A", config=BI)     # a classic member expiring: removed
    assert isinstance(out.group, MigratingGroup) and out.group.group.member("A") is None


def test_leave_group_of_a_consumer_member_kafka_18150():
    """4.0+ (KAFKA-18150): a LeaveGroup naming the last consumer-protocol member fences it and
    downgrades; before (3.8 / 3.9): UNKNOWN_MEMBER_ID "Member C does not use the classic protocol."."""
    run = _mixed_with_one_consumer_member(config=BI)
    out = classic_leave(run.group, LeaveGroup(member_id="C"), BI)
    assert out.response.error == NONE and isinstance(out.group, ClassicGroup)
    out = classic_leave(run.group, LeaveGroup(member_id="C"), BI, switches=("kafka-18150",))
    assert out.response.error == UNKNOWN_MEMBER_ID and "does not use the classic protocol" in out.response.message
    assert out.group == run.group
    out = classic_leave(run.group, LeaveGroup(member_id="nobody"), BI)
    assert out.response.error == UNKNOWN_MEMBER_ID


def test_classic_join_errors():
    """MEMBER_ID_REQUIRED for a member without id; INCONSISTENT_GROUP_PROTOCOL when no protocol
    is shared with the classic members ("Member X's protocols are not supported.");
    GROUP_MAX_SIZE_REACHED; a malformed subscription: UNKNOWN_SERVER_ERROR."""
    run = _mixed_with_one_consumer_member(config=BI)
    g = run.group
    r = classic_join(g, JoinGroup(member_id="", protocols=("range",), subscription=meta()), CLUSTER)
    assert r.response.error == INCONSISTENT_GROUP_PROTOCOL
    r = classic_join(g, JoinGroup(member_id="", protocols=("cooperative-sticky",), subscription=meta()), CLUSTER)
    assert r.response.error == MEMBER_ID_REQUIRED and r.response.member_id and r.group == g
    r = classic_join(g, JoinGroup(member_id="D", protocols=("cooperative-sticky",), subscription=meta()), CLUSTER,
                     config=Config(max_size=3))
    assert r.response.error == "GROUP_MAX_SIZE_REACHED"
    r = classic_join(g, JoinGroup(member_id="D", protocols=("cooperative-sticky",), subscription=b"\xff"), CLUSTER)
    assert r.response.error == "UNKNOWN_SERVER_ERROR" and r.group == g


def test_classic_sync_and_heartbeat_errors():
    """Unknown member / a consumer-protocol member: UNKNOWN_MEMBER_ID; another generation:
    ILLEGAL_GENERATION (throwIfGenerationIdUnmatched); a newer group epoch: REBALANCE_IN_PROGRESS."""
    run = _mixed_with_one_consumer_member(config=BI)
    g = run.group
    epoch = g.group.member("A").epoch
    assert classic_sync(g, SyncGroup(member_id="C", generation=1)).response.error == UNKNOWN_MEMBER_ID
    assert classic_heartbeat(g, Heartbeat(member_id="zz", generation=1)).response.error == UNKNOWN_MEMBER_ID
    assert classic_sync(g, SyncGroup(member_id="A", generation=epoch + 1)).response.error == ILLEGAL_GENERATION
    assert classic_heartbeat(g, Heartbeat(member_id="A", generation=epoch + 1)).response.error == ILLEGAL_GENERATION
    assert classic_sync(g, SyncGroup(member_id="A", generation=epoch)).response.error == REBALANCE_IN_PROGRESS


def test_must_rejoin_rules():
    """REBALANCE_IN_PROGRESS: behind the group epoch; UNREVOKED; UNRELEASED with nothing held."""
    g, _ = convert_to_consumer(classic_group(), IDX)
    a = g.member("A")
    assert not must_rejoin(g, a)
    assert must_rejoin(replace(g, group_epoch=6), a)
    assert must_rejoin(g, replace(a, state="UNREVOKED"))
    # UNRELEASED waiting for partition 2, which B still holds: no; once B lets go: yes
    g2 = g.with_target("A", a.assigned | mask_of(IDX, (TopicPartitions("t", (2,)),)))
    assert not must_rejoin(g2, replace(a, state="UNRELEASED"))
    g3 = g2.with_member(replace(g2.member("B"), assigned=mask_of(IDX, (TopicPartitions("t", (3,)),))))
    assert must_rejoin(g3, replace(a, state="UNRELEASED"))


def test_bad_policy_name_is_a_clear_error():
    with pytest.raises(ValueError, match="migration.policy 'sideways'"):
        consumer_heartbeat(classic_group(), join("C"), CLUSTER, config=Config(migration_policy="sideways"),
                           partition_index=IDX)


def test_replay_of_a_migration_log():
    """migration_state.replay: the classic members' metadata records mark members classic; a
    classic group's record replaces whatever was held (and forgets those marks); its tombstone
    makes way for the consumer group written after it."""
    run = _mixed_with_one_consumer_member(config=BI)
    log = list(run.log)
    assert any(isinstance(r, ConsumerGroupClassicMemberMetadata) and r.member_id == "A" for r in log)
    assert replay_any(log, partition_index=IDX) == run.group
    out = run.hb(ConsumerGroupHeartbeat(group_id="g", member_id="C",
                                        member_epoch=-1))           # downgraded: the classic group's record last
    cg = out.group
    assert replay_any(run.log, partition_index=IDX) == cg
    # a consumer group created later under the same id, with a member called A: not classic
    g, _ = convert_to_consumer(cg._replace(state=cg.state._replace(members=cg.state.members[:1])), IDX)
    from groupcheck.model.consumer_group.records import diff
    again = replay_any(run.log + [ClassicGroupMetadata("g", None)] + list(diff(replace(g, dead=True), g)),
                       partition_index=IDX)
    assert isinstance(again, Group) and again.member("A") is not None


def _upgrade_during_unread_revocation(switches=()):
    """A alone in a classic group consumes t-0..2; B (classic) joins; in generation 2 the
    cooperative leader gives A {0, 1} (A must give up 2) and withholds 2 from B. A has not read
    its SyncGroup response yet: it still consumes 2. C joins with the consumer protocol."""
    from groupcheck.model.consumer_group import classic_clients as cc
    topics = (("t", 3),)
    idx = partition_index(topics)
    cluster = Cluster(topics)
    g, (a,) = cc.init("g", 1, idx, topics)
    g = cc.handle(g, 1, JoinGroup(member_id="m1.0", protocols=("cooperative-sticky",),
                                  subscription=cc.metadata(idx, ("t",), 0, -1)), cluster, idx)[0]
    g = cc.handle(g, 0, JoinGroup(member_id="m0.0", protocols=("cooperative-sticky",),
                                  subscription=cc.metadata(idx, ("t",), a.owned, 1)), cluster, idx)[0]
    g = cc.handle(g, 1, SyncGroup(member_id="m1.0", generation=2), cluster, idx)[0]
    g, responses, _, _ = cc.handle(g, 0, SyncGroup(member_id="m0.0", generation=2), cluster, idx)
    given = {mid: wire_mask(idx, assignment_of(r.assignment).assigned_partitions) for mid, r in responses}
    assert given == {"m0.0": 0b011, "m1.0": 0} and a.owned == 0b111
    out = consumer_heartbeat(g, ConsumerGroupHeartbeat(group_id="g", member_id="C", member_epoch=0,
                                                       rebalance_timeout_ms=1000, subscribed_topic_names=("t",),
                                                       topic_partitions=()),
                             cluster, partition_index=idx, switches=switches)
    return {p for t in out.response.assignment for p in t.partitions}, consumer_of(out.group)


def test_finding_upgrade_hands_over_a_partition_a_classic_member_has_not_revoked():
    """Kafka's behaviour, a finding: ConsumerGroup#fromClassicGroup sets each member's current
    assignment from "the last assignment of the classic group" (its SyncGroup result), though a
    cooperative member may not have read that response and revoked yet; the partition it still
    consumes looks free (no member holds it) and the joining consumer-protocol member gets it in
    its first response: consumed twice until A reads its response. The classic protocol alone
    is safe: the partition moves only in a later generation, which waits for A's JoinGroup,
    sent after it revoked. Switch ``upgrade-keeps-owned`` (not Kafka): A's reported ownership
    (its JoinGroup's OwnedPartitions) beyond its assignment stays pending revocation."""
    got, g = _upgrade_during_unread_revocation()
    assert 2 in got and g.member("m0.0").state == "STABLE"
    got, g = _upgrade_during_unread_revocation(("upgrade-keeps-owned",))
    assert 2 not in got
    a = g.member("m0.0")
    assert a.state == "UNREVOKED" and a.pending_revocation == 0b100

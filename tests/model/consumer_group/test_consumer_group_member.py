"""The Java consumer's KIP-848 member (model/consumer_group/member.py): what each heartbeat
carries, what each response does, reconciliation's order, fences, fatal errors and leaving."""
from __future__ import annotations

import pytest

from groupcheck.model.consumer_group import member as m
from groupcheck.model.consumer_group.state import TopicPartitions
from groupcheck.model.consumer_group.world import (ACKNOWLEDGING, DOWN, FATAL, JOINING, LEAVING, RECONCILING, STABLE,
                                        UNSUBSCRIBED, Reply, SentFields)

SUB = m.Subscription(("t0",), None, "uniform", None)
STATIC = SUB._replace(instance_id="i0")


def tps(mask):
    return tuple(TopicPartitions("t0", tuple(i for i in range(4) if mask >> i & 1))) if mask else ()


def req(c, sub=SUB, rules=m.ClientRules()):
    return m.request(c, "m0.0", "g", sub, tps, rules)


def test_a_join_sends_every_field_with_epoch_0_and_no_partitions():
    r = req(m.new_client(0))
    assert r.member_epoch == 0 and r.member_id == "m0.0"
    assert r.subscribed_topic_names == ("t0",) and r.server_assignor == "uniform"
    assert r.rebalance_timeout_ms == m.REBALANCE_TIMEOUT_MS and r.topic_partitions == ()


def test_a_stable_member_sends_only_what_changed():
    c = m.new_client(0)._replace(status=STABLE, epoch=3, owned=0b1, target=0b1, sent=SentFields(owned=0b1, sub=0))
    r = req(c)
    assert r.member_epoch == 3
    assert r.subscribed_topic_names is None and r.topic_partitions is None and r.rebalance_timeout_ms == -1


def test_after_an_error_the_next_heartbeat_sends_every_field():
    c = m.new_client(0)._replace(status=STABLE, epoch=3, owned=0b1, target=0b1, sent=None)
    r = req(c)
    assert r.member_epoch == 3 and r.topic_partitions == tps(0b1) and r.subscribed_topic_names == ("t0",)
    assert r.rebalance_timeout_ms == m.REBALANCE_TIMEOUT_MS


def test_leaving_sends_minus_one_and_a_static_member_minus_two():
    c = m.new_client(0)._replace(status=LEAVING)
    assert req(c).member_epoch == -1
    assert req(c, STATIC).member_epoch == -2 and req(c, STATIC).instance_id == "i0"


def test_a_new_assignment_starts_reconciling_and_reconcile_commits_revokes_assigns_in_order():
    c = m.new_client(0)._replace(status=STABLE, epoch=1, owned=0b011, target=0b011, sent=SentFields(owned=0b011, sub=0))
    c, calls = m.on_response(c, Reply("", 2, 0b110))
    assert c.status == RECONCILING and c.epoch == 2 and c.owned == 0b011 and calls == ()
    c, calls = m.reconcile(c, "")
    assert [k for k, *_ in calls] == ["commit", "revoked", "assigned"]
    assert calls[0] == ("commit", 0b011, 2, "") and calls[1] == ("revoked", 0b001) and calls[2] == ("assigned", 0b100)
    assert c.status == ACKNOWLEDGING and c.owned == 0b110
    # the acknowledgement: the next heartbeat reports the new owned partitions, then STABLE
    r = req(c)
    assert r.topic_partitions == tps(0b110)
    assert m.after_send(c, r, 0b110).status == STABLE


def test_a_failed_commit_does_not_stop_the_reconciliation():
    c = m.new_client(0)._replace(status=RECONCILING, epoch=2, owned=0b1, target=0b10, sent=SentFields(owned=0b1, sub=0))
    c, calls = m.reconcile(c, "STALE_MEMBER_EPOCH")
    assert calls[0][3] == "STALE_MEMBER_EPOCH" and c.owned == 0b10


def test_the_same_target_again_changes_nothing_but_a_new_equal_one_is_acknowledged():
    c = m.new_client(0)._replace(status=STABLE, epoch=2, owned=0b1, target=0b1, sent=SentFields(owned=0b1, sub=0))
    assert m.on_response(c, Reply("", 2, 0b1))[0] == c
    joined = m.new_client(0)._replace(epoch=0)
    assert m.on_response(joined, Reply("", 1, 0))[0].status == STABLE


@pytest.mark.parametrize("error", ["FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID"])
def test_fenced_loses_everything_and_rejoins_with_the_same_id(error):
    c = m.new_client(0)._replace(status=STABLE, epoch=4, owned=0b11, target=0b11, sent=SentFields(owned=0b11, sub=0))
    c2, calls = m.on_response(c, Reply(error, 0, None))
    assert c2.status == JOINING and c2.epoch == 0 and c2.owned == 0 and c2.incarnation == 0 and c2.sent is None
    assert calls == (("lost", 0b11),)


@pytest.mark.parametrize("error", ["UNRELEASED_INSTANCE_ID", "FENCED_INSTANCE_ID", "INVALID_REQUEST",
                                   "UNSUPPORTED_ASSIGNOR", "GROUP_MAX_SIZE_REACHED"])
def test_other_errors_are_fatal_with_on_partitions_lost(error):
    c = m.new_client(0)._replace(status=STABLE, epoch=4, owned=0b1, target=0b1)
    c2, calls = m.on_response(c, Reply(error, 0, None))
    assert c2.status == FATAL and c2.owned == 0 and calls == (("lost", 0b1),)


def test_a_response_to_a_non_member_is_ignored():
    c = m.new_client(0)._replace(status=LEAVING, epoch=0)
    assert m.on_response(c, Reply("", 5, 0b1))[0] == c


def test_close_commits_then_revokes_and_the_sent_leave_ends_the_membership():
    c = m.new_client(0)._replace(status=STABLE, epoch=3, owned=0b1, target=0b1)
    out, calls = m.close(c, "", for_good=False)
    assert [k for k, *_ in calls] == ["commit", "revoked"] and out.status == LEAVING and out.owned == 0
    assert m.after_send(out, req(out), None).status == DOWN
    gone, _ = m.close(c, "", for_good=True)
    assert m.after_send(gone, req(gone), None).status == UNSUBSCRIBED


def test_close_at_epoch_0_loses_instead_of_revoking():
    c = m.new_client(0)._replace(status=JOINING, epoch=0, owned=0b1)
    assert m.close(c, "", for_good=True)[1][-1] == ("lost", 0b1)


def test_client_switches():
    assert m.client_rules(("kafka-16375",)).abort_reconciliation_on_fence is False
    assert m.client_rules(("kafka-16251", "kafka-19233")).lost_before_rejoin is False   # coordinator names ignored
    c = m.new_client(0)._replace(status=RECONCILING, epoch=4, owned=0b1, target=0b11)
    kept, _ = m.fenced(c, m.client_rules(("kafka-16375",)))
    assert kept.target == 0b11 and m.can_reconcile(kept, m.client_rules(("kafka-16375",)))
    assert not m.can_reconcile(m.fenced(c)[0])
    late, calls = m.fenced(c, m.client_rules(("kafka-16251",)))
    assert late.status == JOINING and late.owned == 0b1 and calls == ()


def test_the_candidate_fix_reports_the_partitions_being_assigned():
    rules = m.client_rules(("report-target-while-reconciling",))
    c = m.new_client(0)._replace(status=RECONCILING, epoch=2, owned=0b1, target=0b11, sent=SentFields(owned=0b1, sub=0))
    assert req(c, rules=rules).topic_partitions == tps(0b11)
    assert req(c).topic_partitions is None

"""Coordinator failover of a KIP-848 consumer group: the new coordinator holds replay of the
compacted log; a lost uncommitted write is gone; onLoaded's timers."""
from groupcheck.model.consumer_group.failover import compacted_log, failover, timers_after_load
from groupcheck.model.consumer_group.records import ConsumerGroupMemberMetadata
from tests.helpers.consumer_group_driver import Client, World


def test_failover_keeps_every_record_backed_field():
    w = World(profile="kafka-4.0")
    a, b = Client("A", instance_id="i"), Client("B")
    w.join(a)
    w.join(b)
    w.beat(a)
    loaded, error = failover(w.group)
    assert error is None and loaded == w.group
    assert len(compacted_log(w.group)) <= len(w.log)


def test_a_lost_write_is_gone():
    w = World()
    a = Client("A")
    w.join(a)
    before = w.group
    w.join(Client("B"))
    loaded, error = failover(w.group, lost_write=before)
    assert error is None and loaded == before and loaded.member("B") is None


def test_a_tombstone_for_nothing_is_ignored_and_a_rejected_log_fails_the_load():
    w = World()
    w.join(Client("A"))
    loaded, error = failover(w.group, log_prefix=(ConsumerGroupMemberMetadata("g", "A", None),))
    assert error is None and loaded == w.group
    value = next(r for r in compacted_log(w.group) if isinstance(r, ConsumerGroupMemberMetadata)).value
    bad = (ConsumerGroupMemberMetadata("g", "Z", value), ConsumerGroupMemberMetadata("g", "Z", None))
    loaded, error = failover(w.group, log_prefix=bad)
    assert loaded.dead and "ConsumerGroupCurrentMemberAssignmentValue tombstone" in error


def test_timers_restart_on_load():
    w = World()
    a, b = Client("A"), Client("B")
    w.join(a)
    w.join(b)
    w.beat(a)        # A now UNREVOKED at epoch 1
    assert timers_after_load(w.group) == (("session_timer", "A"), ("rebalance_timer", "A", 1), ("session_timer", "B"))

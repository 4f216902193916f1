"""Random sequences of ConsumerGroupHeartbeats, leaves, static leaves, timers and regex
resolutions against the coordinator alone, under every profile (Hypothesis). After every step:
replay(log) == group (the driver), no partition is held (assigned or pending revocation) by two
members (except under kafka-3.7, whose KAFKA-16147 breaks it), epochs are ordered (member <= assignment <= group, none decreasing), and an accepted
response's epoch and assignment are the member's."""
from hypothesis import HealthCheck, given, settings, strategies as st

from groupcheck.model.consumer_group.coordinator import rebalance_timeout, resolve_regexes, session_timeout
from groupcheck.model.consumer_group.group import mask_of
from groupcheck.model.consumer_group.profiles import PROFILES
from tests.helpers.consumer_group_driver import INDEX, Client, World

NAMES = ("A", "B", "C")
ACTIONS = st.lists(st.tuples(st.sampled_from(("join", "beat", "beat", "beat", "full", "leave", "static_leave",
                                              "session", "rebalance", "resolve", "resubscribe")),
                             st.sampled_from(NAMES)), max_size=25)


def clients():
    return {"A": Client("A", topics=("a",)), "B": Client("B", topics=("a", "b"), instance_id="iB"),
            "C": Client("C", regex="a|b")}


def check(w: World, before, exclusive: bool):
    g = w.group
    held = [m.assigned | m.pending_revocation for m in g.members]
    for i in range(len(held)):
        for j in range(i + 1, len(held)):
            assert held[i] & held[j] == 0 or not exclusive, "a partition held by two members"
    assert g.target_assignment_epoch <= g.group_epoch
    for m in g.members:
        assert m.epoch <= g.target_assignment_epoch
    if before is not None and not g.dead:
        assert g.group_epoch >= before.group_epoch and g.target_assignment_epoch >= before.target_assignment_epoch


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(PROFILES)), ACTIONS)
def test_random_coordinator_walks_keep_the_invariants(profile, actions):
    w = World(profile=profile)
    cs = clients()
    if profile == "kafka-3.7":
        cs["C"] = Client("C", topics=("b",))
    for kind, name in actions:
        c = cs[name]
        before = w.group
        m = None if w.group.dead else w.group.member(c.member_id)
        if kind == "join":
            out = w.join(c)
        elif kind in ("beat", "full"):
            if m is None:
                continue
            out = w.beat(c, full=kind == "full")
        elif kind == "leave" or kind == "static_leave":
            if m is None:
                continue
            epoch = -2 if kind == "static_leave" and c.instance_id else -1
            out = w.beat(c, member_epoch=epoch, topic_partitions=None)
            if out.response.error_code == 0:
                c.epoch, c.owned = 0, 0
        elif kind == "session":
            if m is None:
                continue
            w.apply(session_timeout(w.group, c.member_id))
            out = None
        elif kind == "rebalance":
            if m is None:
                continue
            w.apply(rebalance_timeout(w.group, c.member_id, m.epoch))
            out = None
        elif kind == "resolve":
            if w.group.dead:
                continue
            w.apply(resolve_regexes(w.group, w.cluster))
            out = None
        else:
            if m is None or c.regex:
                continue
            c.topics = ("b",) if c.topics != ("b",) else ("a",)
            out = w.beat(c, subscribed_topic_names=c.topics)
        if out is not None and out.response.error_code == 0 and out.response.member_epoch >= 0:
            mm = w.group.member(out.response.member_id)
            assert mm is not None and out.response.member_epoch == mm.epoch
            if out.response.assignment is not None:
                assert mask_of(INDEX, out.response.assignment) == mm.assigned
        # kafka-3.7 carries KAFKA-16147 (test_consumer_group_coordinator: two owners, by design)
        check(w, before, not PROFILES[profile].partition_epoch_map_bug)

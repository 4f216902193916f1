"""The model's assignor registry and the leader's run_assignor (model/assignors, model/consumer/leader.py)."""
from __future__ import annotations

import pytest

from groupcheck.model import assignors
from groupcheck.model.assignors import (ASSIGNORS, COOPERATIVE, EAGER, Assignor, AssignorConfigError, Member, lookup,
                             rebalance_protocol, register)
from groupcheck.model.consumer.leader import run_assignor
from groupcheck.model.consumer.scope import Behaviour
from groupcheck.model.consumer.state import Subscription


@pytest.fixture
def registry(monkeypatch):
    """ASSIGNORS as it was after the test; rebalance_protocol forgets the test's assignors."""
    monkeypatch.setattr(assignors, "ASSIGNORS", dict(ASSIGNORS))
    yield assignors.ASSIGNORS
    rebalance_protocol.cache_clear()


def recording(seen: list) -> Assignor:
    def plan(members, stride):
        seen.append(members)
        return {m.member_id: 0 for m in members}
    return Assignor(name="mine", supported_protocols=(COOPERATIVE,), builtin=False, claims_from="owned",
                    withholds=False, plan=plan)


def test_lookup_names_the_known_assignors_when_one_is_unknown():
    assert lookup("range").name == "range"
    with pytest.raises(AssignorConfigError, match="unknown assignor 'nope'; known: range, roundrobin"):
        lookup("nope")


def test_register_adds_an_assignor_that_protocol_selection_sees(registry):
    with pytest.raises(AssignorConfigError):
        rebalance_protocol(("mine",))
    register(recording([]))
    assert rebalance_protocol(("mine",)) == COOPERATIVE
    register(Assignor(name="mine", supported_protocols=(EAGER,), builtin=False, claims_from=None, withholds=False,
                      plan=lambda m, s: {}))     # replaced: cache cleared
    assert rebalance_protocol(("mine",)) == EAGER


@pytest.mark.parametrize("assignor, message", [
    (Assignor(name="range", supported_protocols=(EAGER,), builtin=False, claims_from=None, withholds=False, plan=None),
     "packaged"),
    (Assignor(name="x", supported_protocols=(EAGER,), builtin=True, claims_from=None, withholds=False, plan=None),
     "not built-in"),
    (Assignor(name="x", supported_protocols=(), builtin=False, claims_from=None, withholds=False, plan=None),
     "supported_protocols"),
    (Assignor(name="x", supported_protocols=("LAZY",), builtin=False, claims_from=None, withholds=False, plan=None),
     "supported_protocols"),
])
def test_register_refuses_what_would_change_the_packaged_rules(registry, assignor, message):
    with pytest.raises(AssignorConfigError, match=message):
        register(assignor)


def test_a_non_built_in_assignor_sees_the_raw_claims_unresolved():
    """Two members claim partition 0 at the same generation: the resolved claims keep it
    for nobody, but the plan also gets each member's raw ownedPartitions and generation,
    and the whole subscription, as Kafka hands them to a non-built-in assignor."""
    seen: list = []
    sub = Subscription(version=3, topics=0b1, owned=0b01, generation=2, user_data=0, user_generation=-1)
    subs = ((1, sub), (2, sub))
    run_assignor(recording(seen), Behaviour(), subs, (2,), 2)
    assert seen == [(Member(member_id=1, eligible=0b11, claims=0, topics=0b1, owned=0b01, generation=2,
                            subscription=sub), Member(
        member_id=2, eligible=0b11, claims=0, topics=0b1, owned=0b01, generation=2, subscription=sub))]


def test_a_pre_kip_429_leader_hands_no_claims_even_to_an_assignor_that_reads_them():
    seen: list = []
    subs = ((1, Subscription(version=3, topics=0b1, owned=0b01, generation=2, user_data=0, user_generation=-1)),)
    run_assignor(recording(seen), Behaviour(leader_cooperative_aware=False), subs, (2,), 2)
    # it decodes the subscription as v0: no ownedPartitions, no generation
    assert seen == [(Member(member_id=1, eligible=0b11, claims=0, topics=0b1, owned=0, generation=-1,
                            subscription=Subscription(
        version=3, topics=0b1, owned=0, generation=-1, user_data=0, user_generation=-1)),)]


def test_a_consumer_writes_its_previous_assignment_as_user_data_for_any_assignor_that_reads_it(registry):
    """KIP-54's StickyAssignor keeps its previous assignment in the subscription's userData;
    a registered assignor reading claims from userData gets it written the same way (not
    only the packaged "sticky"), one reading ownedPartitions does not."""
    from groupcheck.model.consumer.client import subscription
    from groupcheck.model.consumer.scope import Config, ConsumerScope
    from groupcheck.model.consumer.step import fresh_consumer

    register(Assignor(name="my-sticky", supported_protocols=(EAGER,), builtin=False, claims_from="user_data",
                      withholds=False, plan=lambda m, s: {}))
    register(recording([]))
    for name, expect in (("my-sticky", 0b11), ("mine", 0)):
        scope = ConsumerScope(plan=(Config((name,)),))
        c = fresh_consumer(scope, 0, 0)._replace(user_data=0b11, owned=0b11, generation=1)
        assert subscription(scope, c).user_data == expect, name

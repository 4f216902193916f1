"""The KIP-848 consumer-group z3 query (j): reconciling one member at a time with the consumer
blocking rule (model.epochs.consumer_unreleased) never lets two members hold one partition,
with and without KAFKA-19449's relaxation. Each weakening gives SAT; its counterexample is
replayed on the model's real ``reconcile`` in plain Python, which keeps exclusivity there."""
from __future__ import annotations

import pytest

from groupcheck.model.epochs import Holding, MemberAssignment, consumer_unreleased, reconcile
from groupcheck.model.epochs import CONSUMER_TRUNK
from groupcheck.properties.smt import COUNTEREXAMPLE, PROVED, all_queries
from groupcheck.properties.smt import consumer_group_reconcile_exclusive as qj


def test_registered():
    assert qj.NAME in [n for n, _ in all_queries()]


@pytest.mark.parametrize("own_pending_blocks", [True, False])
def test_proved_for_both_blocking_rules(own_pending_blocks):
    result = qj.prove(own_pending_blocks=own_pending_blocks)
    assert result.status == PROVED and result.weakened is None, str(result)


def _replay(cex) -> list[int]:
    """The counterexample's step with the model's own reconcile: the member's next assigned set."""
    k, a, p = cex["member"], cex["assigned"], cex["pending"]
    holdings = tuple(Holding(str(m), "", (a[m],), (p[m],)) for m in range(len(a)))
    state = "UNREVOKED" if p[k] else "STABLE"
    member = MemberAssignment(state=state, epoch=1, previous_epoch=0, assigned=(a[k],), pending_revocation=(p[k],))
    owned = None if cex["owned"] is None else (cex["owned"],)
    moved = reconcile(member, 2, (cex["target"],), owned,
                      consumer_unreleased(holdings, str(k), own_pending_blocks=cex["own_pending_blocks"]),
                      profile=CONSUMER_TRUNK)
    return [moved.assigned[0] | moved.pending_revocation[0] if m == k else a[m] | p[m] for m in range(len(a))]


@pytest.mark.parametrize("weakening", qj.WEAKENINGS)
def test_weakened_gives_a_counterexample_the_real_rule_blocks(weakening):
    result = qj.prove(weakened=weakening)
    assert result.status == COUNTEREXAMPLE and result.weakened == weakening, str(result)
    cex = result.counterexample
    nxt = cex["assigned_next"]
    held = [nxt[m] | cex["pending_next"][m] for m in range(len(nxt))]
    assert any(held[i] & held[j] for i in range(len(held)) for j in range(i + 1, len(held)))
    real = _replay(cex)
    assert not any(real[i] & real[j] for i in range(len(real)) for j in range(i + 1, len(real)))


# ---- (k) validation: each release differs from kip-848 exactly as documented ----

from groupcheck.model.consumer_group.validation import PY as VPY, rules as vrules, validate, view as vview  # noqa: E402
from groupcheck.model.consumer_group.state import ConsumerGroupHeartbeat  # noqa: E402
from groupcheck.properties.smt import consumer_group_request_validation as qk  # noqa: E402


def test_validation_differences_registered_and_proved():
    assert qk.NAME in [n for n, _ in all_queries()]
    result = qk.prove()
    assert result.status == PROVED, str(result)


@pytest.mark.parametrize("weakening", qk.WEAKENINGS)
def test_forgetting_a_documented_difference_gives_a_request_judged_otherwise(weakening):
    result = qk.prove(weakened=weakening)
    assert result.status == COUNTEREXAMPLE and result.weakened == weakening, str(result)
    cex = result.counterexample
    v = qk.view_from(cex)
    assert qk.accepts(v, VPY, cex["profile"]) != qk.documented(v, VPY, cex["profile"], weakening[len("forget:"):])


def test_the_encoding_agrees_with_validate_on_concrete_requests():
    """The View the query reasons over is the one ``validate`` reads: on concrete requests, no rule
    firing (the query's ``accepts``) is exactly ``validate(...) is None``."""
    reqs = [ConsumerGroupHeartbeat(group_id="g", member_id=m, member_epoch=e, instance_id=i, rebalance_timeout_ms=t,
                                   subscribed_topic_names=n, subscribed_topic_regex=rx, server_assignor=a,
                                   topic_partitions=tp)
            for m in ("", "m") for e in (-3, -2, -1, 0, 2) for i in (None, "i") for t in (-1, 5)
            for n in (None, (), ("a",)) for rx in (None, "(", "a.*") for a in (None, "nope") for tp in (None, ())]
    for profile in ("kip-848", "kafka-3.7", "kafka-4.0"):
        for r in reqs:
            v = vview(r, ("uniform", "range"))
            assert qk.accepts(v, VPY, profile) == (validate(r, profile) is None)
            assert [x.name for x in vrules(profile)]

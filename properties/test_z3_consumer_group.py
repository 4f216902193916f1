"""The KIP-848 consumer-group z3 query (j): reconciling one member at a time with the consumer
blocking rule (model.epochs.consumer_unreleased) never lets two members hold one partition,
with and without KAFKA-19449's relaxation. Each weakening gives SAT; its counterexample is
replayed on the model's real ``reconcile`` in plain Python, which keeps exclusivity there."""
from __future__ import annotations

import pytest

from model.epochs import Holding, MemberAssignment, consumer_unreleased, reconcile
from model.epochs import CONSUMER_TRUNK
from properties.smt import COUNTEREXAMPLE, PROVED, all_queries
from properties.smt import consumer_group_reconcile_exclusive as qj


def test_registered():
    assert qj.NAME in [n for n, _ in all_queries()]


@pytest.mark.parametrize("own_pending_blocks", [True, False])
def test_proved_for_both_blocking_rules(own_pending_blocks):
    result = qj.prove(own_pending_blocks=own_pending_blocks)
    assert result.status == PROVED and result.weakened is None, str(result)
    assert 0 <= result.seconds < 20


def _replay(cex) -> list[int]:
    """The counterexample's step with the model's own reconcile: the member's next assigned set."""
    k, a, p = cex["member"], cex["assigned"], cex["pending"]
    holdings = tuple(Holding(str(m), "", (a[m],), (p[m],)) for m in range(len(a)))
    state = "UNREVOKED" if p[k] else "STABLE"
    member = MemberAssignment(state, 1, 0, (a[k],), (p[k],))
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

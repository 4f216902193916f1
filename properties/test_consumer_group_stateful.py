"""KIP-848 consumer groups under Hypothesis: every property after every step.

The generic machine (``properties/stateful.py``) over ``model.consumer_group.MODEL`` and each
reference scope (``groupcheck.protocols.consumer_group.reference_scopes``): each case draws the
interleaving of heartbeats, handling, deliveries and reconciliations, which kinds of fault or
operation the case may use (swarm testing) and when the first may strike. Examples per scope
are capped (``EXAMPLES``) so the file stays well under a minute.

Rules broken for a test's duration must be found, named by the property that catches them: a
coordinator that ignores the blocking rule (a partition handed on while its previous owner
still holds it), a fenced client that keeps its partitions, and (by BFS) a client that keeps
the partitions it should revoke. The known-bug variants are hunted in
``test_consumer_group_known_bugs.py``; here the reference must survive a hunt in each
variant's scope.
"""
from __future__ import annotations

import sys

import pytest

from groupcheck.protocols.consumer_group import reference_scopes
from groupcheck.model.consumer_group import MODEL, member
from groupcheck.model.consumer_group.scope import ConsumerGroupScope as S
from groupcheck.model.core import first_violation, replay
from groupcheck.properties.known_bugs.consumer_group import VARIANTS
from groupcheck.properties.stateful import capped, hunt, hunt_until_found

SCOPES = reference_scopes()
EXAMPLES, STEPS = 30, 60


def _capped(scope) -> type:
    return capped(MODEL, scope, EXAMPLES, STEPS)


def test_every_reference_scope_has_a_machine():
    assert set(SCOPES) == {"join-leave", "lost-response", "timeouts", "stall", "static-roll", "range-subscription",
                           "regex-failover", "online-upgrade", "online-downgrade", "records-auto", "records-sync"}


TestJoinLeave = _capped(SCOPES["join-leave"])
TestLostResponse = _capped(SCOPES["lost-response"])
TestTimeouts = _capped(SCOPES["timeouts"])
TestStall = _capped(SCOPES["stall"])
TestStaticRoll = _capped(SCOPES["static-roll"])
TestRangeSubscription = _capped(SCOPES["range-subscription"])
TestRegexFailover = _capped(SCOPES["regex-failover"])
TestOnlineUpgrade = _capped(SCOPES["online-upgrade"])
TestOnlineDowngrade = _capped(SCOPES["online-downgrade"])
TestRecordsAuto = _capped(SCOPES["records-auto"])
TestRecordsSync = _capped(SCOPES["records-sync"])


def _hunt(scope, expected: set[str], *, steps: int, shrink: bool):
    return hunt_until_found(MODEL, scope, expected, steps=steps, shrink=shrink)


def _replay(scope, path):
    found = first_violation(MODEL, scope, *replay(MODEL, scope, path))
    return found and found[0]


@pytest.mark.slow
def test_a_coordinator_ignoring_the_blocking_rule_is_found(monkeypatch):
    """KIP-848: a partition is assigned to a new owner only once its previous owner revoked
    it. A coordinator whose ``consumer_unreleased`` never blocks hands a partition to a joining
    member while the first member still holds it."""
    import groupcheck.model.consumer_group.coordinator_update as cu
    monkeypatch.setattr(cu, "consumer_unreleased", lambda holdings, member_id, **kw: (lambda role, i: False))
    scope = S()
    found = _hunt(scope, {"revoke_before_reassign", "no_double_ownership", "callbacks_in_order",
                          "commits_only_by_owner"}, steps=40, shrink=True)
    assert _replay(scope, found.path) == found.property


def test_a_fenced_member_keeping_its_partitions_is_found(monkeypatch):
    """A client that rejoins after FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID without releasing
    its partitions (no onPartitionsLost) runs them while the coordinator hands them on."""
    def fenced_keeping(c, rules=member.ClientRules()):
        return c._replace(status=member.JOINING, epoch=0, target=0, sent=None), ()
    monkeypatch.setattr(member, "fenced", fenced_keeping)
    scope = S(faults=("session_timeout",), budget=1)
    found = _hunt(scope, {"join_epoch_is_rejoin", "no_double_ownership", "callbacks_in_order"}, steps=40,
                  shrink=False)   # detection only: shrinking takes a minute
    assert _replay(scope, found.path) == found.property


def test_a_member_keeping_revoked_partitions_is_found_by_bfs(monkeypatch):
    """A client that keeps its revoked partitions after reconciling reports them owned, so the
    coordinator never completes the revocation: the group cannot settle (the checker's
    can_settle; converges_within_k never counts a round while the client keeps reconciling)."""
    from groupcheck.checker import bfs
    real = member.reconcile

    def keeps(c, commit_error):
        out, calls = real(c, commit_error)
        return out._replace(owned=out.owned | c.owned), calls
    monkeypatch.setattr(sys.modules["groupcheck.model.consumer_group.step"], "reconcile", keeps)
    report = bfs(MODEL, S())
    assert report.violation is not None and report.violation.property == "can_settle"


@pytest.mark.slow
@pytest.mark.parametrize("v", VARIANTS, ids=[v.key for v in VARIANTS])
def test_the_reference_survives_a_hunt_in_each_variant_scope(v):
    found = hunt(MODEL, v.reference_scope(), seed=0, max_examples=25, steps=60, shrink=False)
    assert found.property is None, found

"""Rolling upgrades and downgrades, and validateCooperativeAssignment at work."""
from __future__ import annotations

from groupcheck.checker import bfs
from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import Config, ConsumerScope
from groupcheck.model.core import replay

EAGER_RANGE = Config(("range",), 1)
BOTH = Config(("cooperative-sticky", "range"))
COOP = Config(("cooperative-sticky",))


def test_two_rolling_bounce_upgrade_is_safe_from_a_running_group():
    """KIP-429: "The first rolling bounce ... This rolling bounce is safe" and the second
    lets bounced members run COOPERATIVE beside EAGER ones."""
    report = bfs(MODEL, ConsumerScope(plan=(EAGER_RANGE, BOTH, COOP), budget=0, max_generation=6,
                                      start="stable"))
    assert report.violation is None and report.complete
    assert report.states > 1000


def test_downgrade_back_to_eager_is_safe():
    """KIP-429: "If a consumer is downgraded ... it is treated as first leaving the group,
    and then rejoining the group as an new member"."""
    report = bfs(MODEL, ConsumerScope(plan=(COOP, BOTH, Config(("range",))), budget=0, max_generation=5,
                                      start="stable"))
    assert report.violation is None and report.complete


def test_custom_cooperative_assignor_that_does_not_withhold_is_stopped_by_validation():
    """ConsumerCoordinator#validateCooperativeAssignment: a non-built-in COOPERATIVE assignor
    that moves a partition in one round fails the rebalance ("Assignor supporting the
    COOPERATIVE protocol violates its requirements") - so no partition gets two owners,
    but the group cannot settle: the violation is liveness, never safety."""
    scope = ConsumerScope(plan=(Config(("custom-cooperative",)),), budget=0, max_generation=4)
    report = bfs(MODEL, scope)
    assert report.violation is not None
    assert report.violation.property == "converges_within_k"
    _, steps = replay(MODEL, scope, report.violation.path)
    failures = [e for s in steps for e in s.events if e.kind == "assignment_failed"]
    assert failures and "violates its requirements" in failures[0].note


def test_the_same_assignor_under_an_eager_config_is_not_validated():
    """Validation runs only for COOPERATIVE leaders; listed with range, custom-cooperative runs EAGER."""
    scope = ConsumerScope(plan=(Config(("custom-cooperative", "range")),), budget=0, max_generation=4)
    report = bfs(MODEL, scope)
    assert report.violation is None

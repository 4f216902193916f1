"""The reference consumer group model under Hypothesis: every property after every step."""
from __future__ import annotations


from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import Config, ConsumerScope
from groupcheck.properties.stateful import machine

SCOPES = {
    "cooperative-faults": ConsumerScope(members=3, budget=2, max_generation=6,
                                        faults=("crash", "pause", "lose_response", "timeout")),
    "eager-range-ops": ConsumerScope(plan=(Config(("range",)),), partitions=(2, 1), budget=2, max_generation=6,
                                     operations=("add_partition", "delete_topic", "subscription_change")),
    "upgrade-two-bounces": ConsumerScope(plan=(Config(("range",), 1), Config(("cooperative-sticky", "range")),
                                               Config(("cooperative-sticky",))),
                                         budget=1, max_generation=8),
    "downgrade-running-group": ConsumerScope(plan=(Config(("cooperative-sticky",)),
                                                   Config(("cooperative-sticky", "range")), Config(("range",))),
                                             start="stable", budget=1, max_generation=8),
    "sticky-zombies": ConsumerScope(plan=(Config(("sticky",)),), members=3, budget=2, max_generation=6,
                                    faults=("pause", "crash")),
}

TestCooperativeFaults = machine(MODEL, SCOPES["cooperative-faults"]).TestCase
TestEagerRangeOps = machine(MODEL, SCOPES["eager-range-ops"]).TestCase
TestUpgradeTwoBounces = machine(MODEL, SCOPES["upgrade-two-bounces"]).TestCase
TestStickyZombies = machine(MODEL, SCOPES["sticky-zombies"]).TestCase
TestDowngradeRunningGroup = machine(MODEL, SCOPES["downgrade-running-group"]).TestCase

"""Kafka Streams on the classic protocol under Hypothesis: every property after every step.

Each case draws a bounce order, which member leads a round whose leader has left, the
interleaving of joins and assignment processing, and (with a crash budget) an instance
failing mid-upgrade; swarm testing leaves some action kinds out per case.
"""
from __future__ import annotations

from groupcheck.model.streams_classic import MODEL
from groupcheck.model.streams_classic.plans import upgrade_scope
from groupcheck.model.streams_classic.scope import Config, StreamsScope
from groupcheck.properties.stateful import machine

SCOPES = {
    "bounce-2.4-3.9-crash": upgrade_scope("2.4", "3.9", 1, instances=3, tasks=3, crash=True),
    "two-bounces-0.10.2-3.9-crash": upgrade_scope("0.10.2", "3.9", 2, instances=3, tasks=3, crash=True),
    "two-bounces-2.3-3.9-crash": upgrade_scope("2.3", "3.9", 2, instances=3, tasks=4, crash=True),
    "kip-268-2.0-next-crash": upgrade_scope("2.0", "next", 1, instances=3, tasks=3, crash=True,
                                            profile="kip-268"),
    "warm-ups": StreamsScope(instances=4, initial=2, tasks=4, standbys=1, plan=(Config("3.9"),),
                             task_assignor="learner", operations=("scale_up", "scale_down"),
                             faults=("crash",), budget=3),
}

TestBounce24To39 = machine(MODEL, SCOPES["bounce-2.4-3.9-crash"]).TestCase
TestTwoBounces0102To39 = machine(MODEL, SCOPES["two-bounces-0.10.2-3.9-crash"]).TestCase
TestTwoBounces23To39 = machine(MODEL, SCOPES["two-bounces-2.3-3.9-crash"]).TestCase
TestKip268ToNext = machine(MODEL, SCOPES["kip-268-2.0-next-crash"]).TestCase
TestWarmUps = machine(MODEL, SCOPES["warm-ups"]).TestCase

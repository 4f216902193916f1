"""The scenarios the streams-assignor role is driven through: named Streams scopes whose
leader runs the target's placement, each reaching what a task assignor must handle.

Every configuration is Kafka Streams 3.9 (KIP-924's TaskAssignor exists from 3.8): the
placement is the target's, version negotiation Kafka's. Like the reference scopes
(``groupcheck/protocols/streams_classic.py``), each scope's comment says what it is there for.
"""
from __future__ import annotations

from groupcheck.model.streams_classic import Config, StreamsScope

from .recorder import task_assignor_name

V39 = Config("3.9")


def scopes(target) -> dict[str, StreamsScope]:
    def s(**kw) -> StreamsScope:
        return StreamsScope(task_assignor=task_assignor_name(target), **kw)

    return {
        # a rolling bounce of a running group: each instance leaves and rejoins; previous
        # active tasks and ownedPartitions (COOPERATIVE) decide stickiness
        "rolling-bounce": s(instances=3, tasks=3, plan=(V39, V39)),
        # standby replicas (the last task is stateless: no standby for it) and a crash:
        # an instance may die while a round is under way
        "standbys-crash": s(instances=3, tasks=3, standbys=1, plan=(V39,), operations=(), faults=("crash",),
                            budget=1),
        # two stream threads per instance: the target places on clients, Kafka spreads over threads
        "threads": s(instances=2, threads=2, tasks=3, plan=(V39, V39)),
        # scale up (a new client with no previous tasks) and scale down (KIP-429's leaving client)
        "scale-up-down": s(instances=3, initial=2, tasks=3, plan=(V39,), operations=("scale_up", "scale_down"),
                           budget=2),
        # KIP-429's second bounce, EAGER (upgrade.from=2.3) -> COOPERATIVE, of a running group:
        # tasks still owned by another client are withheld by Kafka, the target's rounds
        # are asked under both protocols
        "eager-to-cooperative": s(instances=2, tasks=3, plan=(Config("3.9", "2.3"), V39), faults=("crash",),
                                  budget=1),
        # a group forming from nothing, two standbys' worth of instances, instances crashing
        # mid-rebalance (twice)
        "forming-crashes": s(instances=2, tasks=2, standbys=1, plan=(V39,), start="empty", operations=(),
                             faults=("crash",), budget=2),
    }


# what judges a choice, not a rule: left out for targets that do not state it
CHOICES = {
    # StickyTaskAssignor's balance: a custom assignor may place as it likes (judged per
    # invocation by balanced_active_tasks when the target states "balanced")
    "settled_balanced": "balanced",
    # KIP-429's scale-down: a leaving client is given nothing, so it can shut down; Kafka's
    # TaskAssignor has no leaving flag
    "scale_down_completes": "leaving",
}
# the learner (warm-up) design's own claim: a registered task assignor places no learners
NOT_APPLICABLE = ("warmup_active_only_when_caught_up",)


def excluded(name: str, target) -> frozenset[str]:
    """The model properties not judged for ``target`` in scope ``name``."""
    return frozenset([p for p, contract in CHOICES.items() if contract not in target.contracts]
                     + list(NOT_APPLICABLE))


def configurable(scope: StreamsScope) -> str | None:
    from groupcheck.model.scopes import ScopeError
    from groupcheck.model.streams_classic import validate
    try:
        validate(scope)
    except ScopeError as e:
        return str(e)
    return None

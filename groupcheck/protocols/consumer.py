"""The consumer's room: the classic consumer group protocol (KIP-429's cooperative
rebalancing over JoinGroup / SyncGroup, ``model/consumer``) as every tool sees it.

Its reference scopes reach every rule family the model has (each scope's comment names
the ones it is there for): every fault, every operation, rolling upgrades and downgrades,
every assignor, and every profile that ships no known bug (the known bugs' own scopes run
as expected violations, ``protocols.expected_jobs``). The main job must stay within about
a minute; ``benchmarks/bench.py`` and docs/results/benchmarks.md give the time.
"""
from __future__ import annotations

from dataclasses import replace

from groupcheck.model import partitions as bits
from groupcheck.model.consumer import MODEL, PROFILES, Config, ConsumerScope, from_dict, to_dict, with_profile
from groupcheck.properties.known_bugs import consumer as known_bugs

from ..api.custom import register_plan_assignors
from ..tracecheck.observe import client
from .base import Fleet, Protocol


def reference_scopes() -> dict[str, object]:
    """The scopes the main job explores (``groupcheck check``)."""
    coop, rng = Config(("cooperative-sticky",)), Config(("range",))
    return {
        # every fault: crash, a zombie (pause), a lost response, a SyncGroup timeout
        "cooperative": ConsumerScope(budget=1, faults=("crash", "pause", "lose_response", "timeout")),
        # EAGER: revoke everything before each JoinGroup
        "eager": ConsumerScope(plan=(rng,), budget=1),
        # every operation: partitions added, a topic deleted, a subscription changed, the group deleted
        "metadata": ConsumerScope(partitions=(1, 1), budget=1, faults=(),
                                  operations=("add_partition", "delete_topic", "subscription_change",
                                              "delete_group")),
        # subscription v0 carries no ownedPartitions or generation: a leader rejoining with the
        # same metadata is the only way new partitions reach the group ("force a rebalance if
        # the leader sends JoinGroup")
        "eager-v0-metadata": ConsumerScope(plan=(Config(("range",), 0),), partitions=(1, 1), faults=(),
                                           operations=("add_partition", "subscription_change"), budget=1),
        # KIP-429's two rolling bounces, eager range -> cooperative-sticky, of a running group
        "upgrade": ConsumerScope(plan=(Config(("range",), 1), Config(("cooperative-sticky", "range")), coop),
                                 budget=0, max_generation=8, start="stable"),
        # the downgrade back to eager, onto roundrobin
        "downgrade": ConsumerScope(plan=(coop, Config(("cooperative-sticky", "roundrobin")),
                                         Config(("roundrobin",))), start="stable", budget=0, max_generation=8),
        # a rolling restart of a running group while faults strike: closing a fenced member,
        # a member mid-rebalance, a member with only a rejoin requested
        "rolling-restart": ConsumerScope(plan=(coop, coop), start="stable", faults=("pause", "lose_response", "timeout"),
                                         budget=1),
        # KIP-54's sticky assignor: claims from userData, zombies and crashes, and a subscription
        # change over two topics (a claim on a topic no longer subscribed is dropped)
        "sticky-zombies": ConsumerScope(plan=(Config(("sticky",)),), partitions=(1, 1), faults=("pause", "crash"),
                                        operations=("subscription_change",), budget=1),
        # three members, one lost response: where KAFKA-14639 and KAFKA-13406 live
        "three-members": ConsumerScope(members=3, partitions=(1,), faults=("lose_response",), budget=1),
        # KIP-429's own text: a deleted topic's partitions are lost
        "kip-429-text": replace(ConsumerScope(partitions=(1, 1), budget=1, faults=(),
                                              operations=("delete_topic", "subscription_change")),
                                profile="kip-429", behaviour=PROFILES["kip-429"]),
        # the record layer (issue 30): a cooperative group committing in onPartitionsRevoked, and
        # an eager one auto-committing (onJoinPrepare's commit and its pending-revocation pause),
        # each with a crash between processing and committing
        "records-coop": ConsumerScope(partitions=(1,), faults=("crash",), budget=1, max_generation=3, records=True,
                                      max_records=1, commit_policy="sync-on-revoke"),
        "records-eager-auto": ConsumerScope(plan=(rng,), partitions=(1,), faults=("crash",), budget=1,
                                            max_generation=3, records=True, max_records=1, commit_policy="auto"),
    }


def scope_text(scope) -> str:
    d = to_dict(scope)
    plan = " > ".join("+".join(stage["assignors"]) for stage in d["plan"])
    start = ", from a stable group" if d["start"] == "stable" else ""
    records = f", records ({d['commit_policy']}, {d['max_records']} per partition)" if d.get("records") else ""
    return (f"{d['members']} members, partitions {d['partitions']}, gen<={d['max_generation']}, "
            f"budget {d['budget']}, {plan}{start}{records}")


def plan_stage(text: str) -> dict:
    return {"assignors": [x.strip() for x in text.split(",") if x.strip()]}


def out_of_reach(scope) -> dict[str, str]:
    out = {}
    if "pause" not in scope.faults or scope.budget == 0:
        out["sometimes_zombie"] = "no pause fault in the scope"
    if not scope.records:
        out["sometimes_killed_before_commit"] = "records off"
    elif scope.budget == 0 or not scope.faults:
        out["sometimes_killed_before_commit"] = "no fault in the scope"
    return out


def observer(model, scope):
    """The listener callbacks: ``{"kind": "assigned" | "revoked" | "lost", "client", "partitions"}``."""
    def observe(prev, action, nxt, events) -> list[dict]:
        return [{"kind": e.kind, "client": client(e.slot), "partitions": bits.names(e.partitions, scope.stride)}
                for e in events if e.kind in ("assigned", "revoked", "lost")]
    return observe


PROTOCOL = Protocol(
    name="consumer",
    package="consumer",
    # a scope may name a user's own assignor (import path or entry point): groupcheck
    # registers it with the model's registry before the model reads the scope
    model=replace(MODEL, view=replace(MODEL.view, scope_from_dict=lambda d: from_dict(register_plan_assignors(d)))),
    default_scopes=reference_scopes,
    profiles=tuple(PROFILES),
    with_profile=with_profile,
    scope_text=scope_text,
    flags=("members", "partitions", "max_generation", "budget", "faults", "operations", "plan"),
    plan_stage=plan_stage,
    reference=None,
    # the behaviour-switched bugs, then the findings (Kafka's own rules the properties reject)
    variants=known_bugs.VARIANTS + known_bugs.FINDINGS,
    out_of_reach=out_of_reach,
    observer=observer,
    observed={k: ("client", "partitions") for k in ("assigned", "revoked", "lost")},
    fleet=Fleet(scope="cooperative", bugs=("KAFKA-7026", "KAFKA-13419", "KIP-429-old-leader")),
    spec_mapping="groupcheck.spec.mapping.consumer",
)

"""The consumer-group room: KIP-848's consumer groups (the consumer rebalance protocol over
ConsumerGroupHeartbeat, ``model/consumer_group``) as every tool sees it.

Its reference scopes reach joins and leaves, lost responses, session and rebalance
timeouts, static members, the range assignor, regex subscriptions with a coordinator
failover, and the online upgrade and downgrade between classic and consumer groups (each
scope's comment says which).
"""
from __future__ import annotations

from groupcheck.model.consumer_group import MODEL, PROFILES, Handled, with_profile
from groupcheck.model.consumer_group import ConsumerGroupScope as S
from groupcheck.model.consumer_group import partition_names as _parts
from groupcheck.properties.known_bugs import consumer_group as known_bugs

from ..tracecheck.observe import client, to_json
from .base import Fleet, Protocol

CALLBACKS = ("revoked", "assigned", "lost", "commit")
_CALLBACK = ("client", "partitions", "epoch")


def reference_scopes() -> dict[str, object]:
    """The scopes the main job explores (``groupcheck check``)."""
    return {
        # a member joins a one-member group and one leaves: revocation, acknowledgement, the leave bump
        "join-leave": S(joiners=1, operations=("join", "leave"), budget=2),
        # two lost heartbeat responses while the member's subscription grows: the full request
        # and the previous-epoch rule recover (one member: with two, a lost response while
        # reconciling shows the finding unreconciled-assignment-released)
        "lost-response": S(members=1, partitions=(1, 1), operations=("subscription_change",),
                           faults=("lose_response",), budget=2),
        # a live member's session expires: fenced (onPartitionsLost), it rejoins with epoch 0 and
        # the same member id
        "timeouts": S(faults=("session_timeout",), budget=1),
        # the application stops polling while it must revoke: the rebalance timeout removes it
        "stall": S(faults=("stall",), budget=1),
        # static members: a rolling bounce leaves with -2 and the next incarnation takes the
        # partitions over without a bump; a crash restarts into UNRELEASED_INSTANCE_ID (fatal)
        "static-roll": S(static=True, operations=("roll",), faults=("crash",), budget=1),
        # the range assignor, a member subscribing to a second topic
        "range-subscription": S(assignor="range", partitions=(2, 1), operations=("subscription_change",), budget=1),
        # Kafka 4.1: a regex subscription resolved asynchronously, and a coordinator failover
        "regex-failover": S(regex=True, profile="kafka-4.1", operations=("failover",), budget=1),
        # online migration (group.consumer.migration.policy=bidirectional): two cooperative classic
        # consumers of a STABLE classic group upgrade one by one (LeaveGroup, restart with
        # group.protocol=consumer); the first heartbeat converts the group, the classic member is
        # driven by REBALANCE_IN_PROGRESS, the last one's leave leaves a plain consumer group
        "online-upgrade": S(classic=2, partitions=(1,)),
        # both directions: a classic consumer and a consumer-protocol one; the latter may close and
        # restart classic (a rolling downgrade): its leave converts the group back to a classic group
        "online-downgrade": S(classic=1, partitions=(1,), operations=("downgrade",), budget=1),
        # the record layer (issue 30), auto-commit (Kafka's default): a member joins (a handover with
        # the commit before revocation, two phases), or a crash: no record lost, none twice without a fault
        "records-auto": S(partitions=(1,), records=True, max_records=1, joiners=1, operations=("join",),
                          faults=("crash",), budget=1),
        # the record layer, commitSync in onPartitionsRevoked: two members start together, the
        # uniform assignor's tie-break moves the partition from the first one handled
        "records-sync": S(partitions=(1,), records=True, max_records=1, commit_policy="sync-on-revoke"),
    }


def scope_text(scope) -> str:
    subs = "regex" if scope.regex else "names"
    extra = (", static" if scope.static else "") + (f", {scope.joiners} joining" if scope.joiners else "")
    if scope.classic:
        extra += f", {scope.classic} classic (policy {scope.migration_policy})"
    changes = ",".join(scope.faults + scope.operations) or "none"
    switched = f", switches {','.join(scope.switches)}" if scope.switches else ""
    if scope.records:
        extra += f", records (max {scope.max_records}, commit {scope.commit_policy}, reset {scope.offset_reset})"
    return (f"{scope.members} members, partitions {list(scope.partitions)}, {scope.assignor}, {subs}{extra}, "
            f"faults/operations {changes}, budget {scope.budget}, epoch<{scope.max_epoch}, {scope.profile}{switched}")


def out_of_reach(scope) -> dict[str, str]:
    far = {}
    if "lose_response" not in scope.faults or scope.budget == 0:
        far["lost_response_recovered"] = "no lose_response fault in the scope"
    if not scope.static or "roll" not in scope.operations or scope.budget == 0:
        far["static_rejoin_keeps_assignment"] = "no static members closing to restart (static and roll)"
    if not (scope.classic or {"roll", "crash", "downgrade"} & set(scope.faults + scope.operations)
            and scope.budget):
        far["rolling_bounce_completes"] = "no client restarts (roll, crash, downgrade, or a classic one upgrading)"
    if not scope.classic:
        far["migration_completes"] = "no classic consumers to upgrade (classic: 0)"
    if "downgrade" not in scope.operations or scope.budget == 0:
        far["downgrade_completes"] = "no downgrade operation in the scope"
    if sum(scope.partitions) < 2 or scope.members - scope.joiners < 1 or scope.members < 2:
        far["revocation_completes"] = "one partition or one member: nothing moves between members"
    far.update(_records_out_of_reach(scope))
    return far


def _records_out_of_reach(scope) -> dict[str, str]:
    """The record layer's witnesses a scope cannot reach."""
    if not scope.records:
        return {w: "records off" for w in ("sometimes_redelivered_after_crash", "sometimes_killed_before_commit",
                                           "sometimes_handover_clean")}
    far = {}
    if "crash" not in scope.faults or scope.budget == 0:
        far["sometimes_redelivered_after_crash"] = "no crash fault in the scope"
        far["sometimes_killed_before_commit"] = "no crash fault in the scope"
    if scope.members < 2 or scope.commit_policy == "none":
        far["sometimes_handover_clean"] = "one member, or commit policy none: no handover starts at a commit"
    return far


def observer(model, scope):
    """The client's rebalance callbacks and offset commits, and the coordinator's
    ``__consumer_offsets`` records."""
    def is_callbacks(data) -> bool:
        return bool(data) and all(isinstance(c, tuple) and c and c[0] in CALLBACKS for c in data)

    def observe(prev, action, nxt, events) -> list[dict]:
        out = []
        for e in events:
            data = e.data
            if is_callbacks(data):
                member = nxt.clients[e.slot] if 0 <= e.slot < len(nxt.clients) else None
                for c in data:
                    o = {"kind": c.kind, "client": client(e.slot), "partitions": _parts(scope, c.partitions)}
                    if c.kind == "commit":
                        o["epoch"], o["error"] = c.epoch, c.error
                    elif getattr(member, "epoch", None) is not None:
                        o["epoch"] = member.epoch
                    out.append(o)
            elif isinstance(data, Handled):
                for r in data.records:
                    out.append({"kind": "record", "type": type(r).__name__, "record": to_json(r)})
        return out
    return observe


PROTOCOL = Protocol(
    name="consumer-group",
    package="consumer_group",
    model=MODEL,
    default_scopes=reference_scopes,
    profiles=tuple(PROFILES),
    with_profile=with_profile,
    scope_text=scope_text,
    flags=("budget", "faults", "operations"),
    plan_stage=None,            # no --plan: a client's configuration is its scope's (classic or not)
    reference=None,
    # the switched-rule bugs, then the findings (Kafka's own rules the properties reject)
    variants=known_bugs.VARIANTS + known_bugs.FINDINGS,
    out_of_reach=out_of_reach,
    observer=observer,
    observed={"assigned": _CALLBACK, "revoked": _CALLBACK, "lost": _CALLBACK,
              "commit": _CALLBACK + ("error",), "record": ("type", "record")},
    fleet=Fleet(scope="join-leave", bugs=("KAFKA-16147", "KAFKA-20442", "unreconciled-assignment-released")),
    spec_mapping="groupcheck.spec.mapping.consumer_group",
)

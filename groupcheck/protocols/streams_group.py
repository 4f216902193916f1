"""The streams-group room: KIP-1071's streams groups (the streams rebalance protocol
over StreamsGroupHeartbeat, ``model/streams_group``) as every tool sees it.

Its reference scopes reach a process's members sharing its tasks, session timeouts,
topology updates, stateful tasks with standbys and warm-ups, shutdown requests, static
members, online migration and coordinator failover (each scope's comment says which).
"""
from __future__ import annotations

from groupcheck.model.streams_group import MODEL, PROFILES, with_profile
from groupcheck.model.streams_group import StreamsGroupScope as S
from groupcheck.properties.known_bugs import streams_group as known_bugs

from ..tracecheck.observe import described
from .base import Fleet, Protocol


def reference_scopes() -> dict[str, object]:
    """The scopes the main job explores (``groupcheck check``)."""
    return {
        # two members of one process share its tasks (KIP-1071's process id)
        "one-process": S(processes=1, members_per_process=2),
        # a live member's session times out: it is fenced, drops its tasks and rejoins
        "session-timeout": S(processes=2, faults=("session_timeout",), budget=1),
        # the KIP's rolling topology update (topology epoch + 1): stale members get no new tasks
        "topology-update": S(processes=2, operations=("topology_update",), budget=1),
        # kafka-4.1 refuses the update ("Topology updates are not supported yet.")
        "kafka-4.1-topology-update": S(processes=2, operations=("topology_update",), budget=1,
                                       profile="kafka-4.1"),
        # stateful: changelog topics created while NOT_READY, a standby, task offsets
        "stateful-standbys": S(processes=2, stateful=True, standbys=1, warmups=1),
        # SHUTDOWN_APPLICATION reaches every member
        "shutdown": S(processes=2, operations=("shutdown_request",), budget=1),
        # static members (instance ids): a rolling bounce leaves with -2 and the next
        # incarnation takes the tasks over without a bump; a crash restarts into
        # UNRELEASED_INSTANCE_ID until the session times out (kafka-4.1 refuses instance ids)
        "static-membership": S(processes=2, static=True, operations=("roll",), faults=("crash",), budget=1),
        # KIP-1071's online migration: P1 starts as a classic Streams member, P2 joins on the
        # streams protocol (the group converts, generation -> group epoch), P1 rebalances
        # through the translated JoinGroup / SyncGroup / Heartbeat, then upgrades
        "online-migration": S(processes=2, classic=1),
        # coordinator failover: a new coordinator replays the compacted log (the
        # SHUTDOWN_APPLICATION requester, not persisted, is lost)
        "failover": S(processes=2, operations=("failover", "shutdown_request"), budget=2),
    }


def scope_text(scope) -> str:
    kind = "stateful" if scope.stateful else "stateless"
    extra = (f", {scope.standbys} standby" if scope.standbys else "") + (
        f", {scope.warmups} warm-up" if scope.warmups else "")
    changes = ",".join(scope.faults + scope.operations) or "none"
    kind += ", static" if scope.static else ""
    extra += f", {scope.classic} classic" if scope.classic else ""
    return (f"{scope.processes} processes x {scope.members_per_process} members, {kind} partitions "
            f"{list(scope.partitions)}{extra}, faults/operations {changes}, budget {scope.budget}, "
            f"epoch<{scope.max_epoch}, {scope.profile}")


def out_of_reach(scope) -> dict[str, str]:
    far = {}
    if not (scope.stateful and scope.warmups):
        far["warmup_promoted"] = "no warm-up tasks (stateful tasks and warmups > 0)"
    if "topology_update" not in scope.operations or scope.budget == 0:
        far["topology_update_completes"] = "no topology_update operation in the scope"
    elif scope.profile != "kip-1071":
        far["topology_update_completes"] = f"{scope.profile} rejects topology updates"
    if not scope.stateful and "topic_change" not in scope.operations:
        far["not_ready_then_ready"] = "stateless, and no topic_change operation"
    if not scope.static or scope.budget == 0 or "roll" not in scope.operations:
        far["static_rejoin_keeps_tasks"] = "no static members closing to restart (static and roll)"
    elif scope.profile == "kafka-4.1":
        far["static_rejoin_keeps_tasks"] = "kafka-4.1 rejects instance ids"
    if not scope.classic:
        far["migration_completes"] = "no classic members (classic: 0)"
    return far


PROTOCOL = Protocol(
    name="streams-group",
    package="streams_group",
    model=MODEL,
    default_scopes=reference_scopes,
    profiles=tuple(PROFILES),
    with_profile=with_profile,
    scope_text=scope_text,
    flags=("budget", "faults", "operations"),
    plan_stage=None,            # no --plan: a scope's processes run one configuration
    reference=None,
    # the switched-rule bugs, then the findings (Kafka's own rules the properties reject)
    variants=known_bugs.VARIANTS + known_bugs.FINDINGS,
    out_of_reach=out_of_reach,
    observer=described,
    observed={k: ("client", "text") for k in ("handle", "expire", "session_timeout")},
    fleet=Fleet(scope="one-process", bugs=("KAFKA-19233", "KAFKA-19190")),
    spec_mapping="groupcheck.spec.mapping.streams_group",
)

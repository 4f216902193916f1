"""The reference scopes ``groupcheck check`` explores for each protocol.

Together they reach every rule family the model has (each scope's comment names the
ones it is there for): faults, operations, rolling upgrades and downgrades, every
assignor, every profile that ships no known bug (the known bugs' own scopes run as
expected violations, ``protocols.expected_jobs``), and, for Streams, version probing
under each family, stream threads, standbys and warm-up tasks. The main job must stay
within about a minute; ``benchmarks/bench.py`` and docs/results/benchmarks.md give the time.
"""
from __future__ import annotations

from dataclasses import replace


def consumer() -> dict[str, object]:
    from groupcheck.model.consumer.scope import PROFILES, Config, ConsumerScope

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
    }


def streams_classic() -> dict[str, object]:
    from groupcheck.model.streams_classic.scope import PROFILES, Config, StreamsScope

    def under(profile: str, scope: StreamsScope) -> StreamsScope:
        return replace(scope, profile=profile, behaviour=PROFILES[profile])

    return {
        # one rolling bounce; a 2.0 leader answers the 2.3 subscriptions by version probing
        # (KIP-268's empty assignment; 2.4 -> 3.9 follows next-version's 2.6+ rules)
        "bounce-2.0-2.3": StreamsScope(instances=3, tasks=3, plan=(Config("2.0"), Config("2.3"))),
        # KIP-429's two bounces: eager (upgrade.from=2.3) first, then cooperative
        "two-bounce-2.3-3.9": StreamsScope(instances=2, tasks=3,
                                           plan=(Config("2.3"), Config("3.9", "2.3"), Config("3.9")),
                                           faults=("crash",), budget=1),
        # the first of those bounces at the size where skipping upgrade.from shows (3 instances,
        # 4 tasks): a COOPERATIVE member under an EAGER 2.3 leader keeps a task given away
        "first-bounce-2.3-3.9": StreamsScope(instances=3, tasks=4, plan=(Config("2.3"), Config("3.9", "2.3"))),
        # KIP-268's two bounces from before version probing (upgrade.from=0.10.2 sends v2)
        "two-bounce-0.10.2-2.0": StreamsScope(instances=2, tasks=2, plan=(Config("0.10.2"), Config("2.0", "0.10.2"),
                                                                          Config("2.0"))),
        # the KIP-268 test plan's simulated next metadata version
        "next-version": StreamsScope(instances=3, tasks=3, plan=(Config("3.9"), Config("next"))),
        # 2.0 -> next under each probing family: KIP-268's text, and Kafka 2.6+'s rules
        "kip-268-2.0-next": under("kip-268", StreamsScope(instances=3, tasks=3, plan=(Config("2.0"), Config("next")))),
        "kafka-2.6+-2.0-next": under("kafka-2.6+", StreamsScope(instances=3, tasks=3,
                                                               plan=(Config("2.0"), Config("next")))),
        # version probing with two threads per instance: a 2.3 leader answers a 2.4 member
        # (KAFKA-8649's prevTasks fix decides what each thread of an instance gets)
        "threads-probing": StreamsScope(instances=2, threads=2, tasks=2, plan=(Config("2.3"), Config("2.4", "2.3")),
                                        max_generation=12),
        # two stream threads per instance: members of one instance share its tasks
        "threads": StreamsScope(instances=2, threads=2, tasks=3, plan=(Config("2.4"), Config("3.9"))),
        # standby replicas with the sticky assignor, a crash and a scale-down
        "standbys": StreamsScope(instances=3, tasks=3, standbys=1, plan=(Config("3.9"),), faults=("crash",),
                                 operations=("scale_down",), budget=1),
        # KIP-429's warm-up (learner) tasks under scale-up, scale-down and a crash
        "warm-ups": StreamsScope(instances=3, initial=2, tasks=3, standbys=1, plan=(Config("3.9"),),
                                 task_assignor="learner", operations=("scale_up", "scale_down"),
                                 faults=("crash",), budget=2),
    }


def streams_group() -> dict[str, object]:
    from groupcheck.model.streams_group.scope import StreamsGroupScope as S

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


def consumer_group() -> dict[str, object]:
    from groupcheck.model.consumer_group.scope import ConsumerGroupScope as S

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
    }

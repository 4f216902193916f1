"""Named behaviour profiles for KIP-1071 streams groups: where the KIP's text and what
Kafka ships decide a request differently, each side is a profile, and every rule in
``validation.py`` and ``topology.py`` reads its switch from here (the same idea as
``model/streams_classic/releases.py`` for the classic protocol).

* ``kip-1071``  the KIP's text ("Request Validation", "Request Handling", "Topology updates").
* ``kafka-4.1`` what 4.1 ships (``GroupCoordinatorService`` and ``GroupMetadataManager``
  at 4.1; 4.2-4.4 decide topology epochs the same way, see ../shared/kafka-behavior.md A4).
* ``kafka-4.5`` KAFKA-21370: a join with the group's topology epoch but another topology is
  STREAMS_INVALID_TOPOLOGY_EPOCH. Its service validation is the newest stored trunk's
  ``GroupCoordinatorService`` (ed89450d), which rejects only source-topic regexes as
  unsupported. Static membership (instance ids, epoch -2) is Kafka's since KAFKA-20169
  (apache/kafka#22245 coordinator, #22559 client; 4.4): the coordinator rules are in
  ``coordinator.py`` and ``coordinator_update.CoordinatorProfile.static_rejoin_in_place``.

Each switch names the sources it comes from; a shipped profile's value is what the code
does, the KIP profile's what the KIP says.
"""
from __future__ import annotations

from typing import NamedTuple

# How a member joining with topology epoch ER below the group's EG is answered.
FENCE = "fence"              # KIP: "If ER<EG, fail with STREAMS_TOPOLOGY_FENCED"
KEEP_STALE = "keep-stale"    # Kafka: keep the group's topology, the member gets STALE_TOPOLOGY

# What a join at the group's epoch with other topology metadata gets.
INVALID_TOPOLOGY_EPOCH = "STREAMS_INVALID_TOPOLOGY_EPOCH"
UPDATES_NOT_SUPPORTED = "INVALID_REQUEST"   # "Topology updates are not supported yet."

# Features a shipped release rejects as INVALID_REQUEST before validating the request
# (GroupCoordinatorService#throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures).
INSTANCE_ID = "instance_id"          # "Static membership is not yet supported."
TASK_OFFSETS = "task_offsets"        # "TaskOffsets are not supported yet."
TASK_END_OFFSETS = "task_end_offsets"  # "TaskEndOffsets are not supported yet."
WARMUP_TASKS = "warmup_tasks"        # "WarmupTasks are not supported yet." (non-null and non-empty)
SOURCE_TOPIC_REGEX = "source_topic_regex"  # "Regular expressions for source topics are not supported yet."
UNSUPPORTED_ORDER = (INSTANCE_ID, TASK_OFFSETS, TASK_END_OFFSETS, WARMUP_TASKS, SOURCE_TOPIC_REGEX)


class Profile(NamedTuple):
    name: str
    # KIP: "Either MemberId is non-empty or MemberEpoch is 0." Kafka: MemberId is checked
    # at every epoch (the client generates it, KIP-1082 style): "MemberId can't be empty."
    member_id_required_at_join: bool
    # Kafka's throwIfEmptyString treats a blank string (Java ``trim().isEmpty()``) as empty;
    # the KIP says "non-empty".
    blank_is_empty: bool
    # Kafka also checks RackId ("RackId can't be empty."); the KIP's list has no such rule.
    rack_id_checked: bool
    # KIP: "RebalanceTimeoutMs must be larger than zero in the first heartbeat request."
    # Kafka: only -1 ("unchanged") is refused at epoch 0.
    rebalance_timeout_positive: bool
    # Kafka: epoch -2 needs an InstanceId ("InstanceId can't be null."); not in the KIP's list.
    static_leave_needs_instance_id: bool
    # Kafka: "If one task-type is non-null, all must be non-null."; not in the KIP's list.
    task_lists_all_or_none: bool
    # KIP: "ActiveTasks, StandbyTasks and WarmupTasks have to be disjoint sets". Kafka's
    # service validation never checks it.
    task_lists_disjoint: bool
    # KIP's five STREAMS_INVALID_TOPOLOGY invariants; Kafka's throwIfInvalidTopology checks
    # only the first (changelog topics with a partition count).
    all_topology_invariants: bool
    # Features rejected as not supported yet, in Kafka's order (a subset of UNSUPPORTED_ORDER).
    unsupported: tuple[str, ...]
    # Topology-epoch decisions at join (topology.py).
    stale_join: str              # FENCE | KEEP_STALE
    same_epoch_mismatch: str     # INVALID_TOPOLOGY_EPOCH | UPDATES_NOT_SUPPORTED
    topology_updates: bool       # KIP: "If ER=EG+1, update the topology"
    # KIP: "resolve source topic regular expressions and check that each of them resolve to
    # at least one topic"; shipped releases refuse regexes before that (``unsupported``).
    source_topic_regex: bool
    # KIP (MISSING_INTERNAL_TOPICS): "There can only be one such request in-flight at a
    # time". Kafka 4.1's AutoTopicCreationManager#createStreamsInternalTopics sends a
    # CreateTopics for the missing internal topics on every heartbeat that lists them; from
    # 4.2 (apache/kafka PR #20663, "auto-topic creation back-off") it skips topics whose
    # creation is in flight (``inflightTopics``) or in back-off after an error.
    one_creation_in_flight: bool = True


KIP_1071 = Profile(
    name="kip-1071", member_id_required_at_join=False, blank_is_empty=False, rack_id_checked=False,
    rebalance_timeout_positive=True, static_leave_needs_instance_id=False, task_lists_all_or_none=False,
    task_lists_disjoint=True, all_topology_invariants=True, unsupported=(),
    stale_join=FENCE, same_epoch_mismatch=INVALID_TOPOLOGY_EPOCH, topology_updates=True,
    source_topic_regex=True)

KAFKA_4_1 = Profile(
    name="kafka-4.1", member_id_required_at_join=True, blank_is_empty=True, rack_id_checked=True,
    rebalance_timeout_positive=False, static_leave_needs_instance_id=True, task_lists_all_or_none=True,
    task_lists_disjoint=False, all_topology_invariants=False, unsupported=UNSUPPORTED_ORDER,
    stale_join=KEEP_STALE, same_epoch_mismatch=UPDATES_NOT_SUPPORTED, topology_updates=False,
    source_topic_regex=False, one_creation_in_flight=False)

# KAFKA-21370 (4.5) changes only the same-epoch mismatch; a higher epoch is still not an
# update (an assumption: the stored sources show no 4.5 topology-update path).
KAFKA_4_5 = KAFKA_4_1._replace(
    name="kafka-4.5", unsupported=(SOURCE_TOPIC_REGEX,), same_epoch_mismatch=INVALID_TOPOLOGY_EPOCH,
    one_creation_in_flight=True)

PROFILES: dict[str, Profile] = {p.name: p for p in (KIP_1071, KAFKA_4_1, KAFKA_4_5)}


def profile(name: str | Profile) -> Profile:
    """The profile called ``name`` (a Profile passes through)."""
    if isinstance(name, Profile):
        return name
    if name not in PROFILES:
        raise KeyError(f"unknown streams group profile {name!r}; known: {', '.join(PROFILES)}")
    return PROFILES[name]

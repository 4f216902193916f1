"""KIP-848 consumer groups: the ConsumerGroupHeartbeat messages, and the names the rest of
the package uses (error codes, group states).

The messages are field for field the RPC's (``ConsumerGroupHeartbeatRequest.json`` /
``ConsumerGroupHeartbeatResponse.json``, apiKey 68, apache/kafka clients/src/main/resources/
common/message/). Everything is a NamedTuple (immutable, hashable). A field the schema makes
nullable ("null if unchanged since last heartbeat") is ``None`` when absent; lists are tuples.

Topic ids: the wire carries a topic's Uuid in ``TopicPartitions.TopicId``; the model names a
topic by its name in that field (one topic, one name, no topic is deleted and re-created under
the same name inside a scope), so ``topic_id`` holds the topic name.
"""
from __future__ import annotations

from typing import NamedTuple

# Member epochs with a meaning of their own (ConsumerGroupHeartbeatRequest.json, MemberEpoch:
# "The current member epoch; 0 to join the group; -1 to leave the group; -2 to indicate that
# the static member will rejoin."; GroupMetadataManager / ConsumerGroupHeartbeatRequest
# LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH)
JOIN_EPOCH = 0
LEAVE_EPOCH = -1
LEAVE_STATIC_EPOCH = -2

# Error codes (name -> Kafka's code), checked against clients/src/main/java/org/apache/kafka/
# common/protocol/Errors.java
ERRORS = {
    "NONE": 0,
    "UNKNOWN_TOPIC_OR_PARTITION": 3,
    "COORDINATOR_LOAD_IN_PROGRESS": 14,
    "COORDINATOR_NOT_AVAILABLE": 15,
    "NOT_COORDINATOR": 16,
    "ILLEGAL_GENERATION": 22,
    "INCONSISTENT_GROUP_PROTOCOL": 23,
    "UNKNOWN_MEMBER_ID": 25,
    "REBALANCE_IN_PROGRESS": 27,
    "GROUP_AUTHORIZATION_FAILED": 30,
    "UNSUPPORTED_VERSION": 35,
    "INVALID_REQUEST": 42,
    "GROUP_ID_NOT_FOUND": 69,
    "MEMBER_ID_REQUIRED": 79,
    "GROUP_MAX_SIZE_REACHED": 81,
    "FENCED_INSTANCE_ID": 82,
    "FENCED_MEMBER_EPOCH": 110,
    "UNRELEASED_INSTANCE_ID": 111,
    "UNSUPPORTED_ASSIGNOR": 112,
    "STALE_MEMBER_EPOCH": 113,
    "INVALID_REGULAR_EXPRESSION": 128,
}
ERROR_NAMES = {v: k for k, v in ERRORS.items()}

# Group states (ConsumerGroup.ConsumerGroupState: EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD)
EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD = "EMPTY", "ASSIGNING", "RECONCILING", "STABLE", "DEAD"
GROUP_STATES = (EMPTY, ASSIGNING, RECONCILING, STABLE, DEAD)


class TopicPartitions(NamedTuple):
    """ConsumerGroupHeartbeatRequest/Response ``TopicPartitions``: the topic (its name in the
    model, Kafka's Uuid on the wire) and partition numbers."""

    topic_id: str
    partitions: tuple[int, ...] = ()


class ConsumerGroupHeartbeat(NamedTuple):
    """ConsumerGroupHeartbeatRequest (v0/v1). ``rebalance_timeout_ms`` -1: unchanged since the
    last heartbeat; ``subscribed_topic_names`` / ``subscribed_topic_regex`` /
    ``server_assignor`` / ``topic_partitions`` None: unchanged (null on the wire)."""

    group_id: str
    member_id: str
    member_epoch: int
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: tuple[str, ...] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    topic_partitions: tuple[TopicPartitions, ...] | None = None


class ConsumerGroupHeartbeatResponse(NamedTuple):
    """ConsumerGroupHeartbeatResponse. ``assignment`` None: not sent ("null if not provided";
    the client keeps its assignment); otherwise the member's whole assignment."""

    error_code: int = 0
    error_message: str | None = None
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    assignment: tuple[TopicPartitions, ...] | None = None
    throttle_time_ms: int = 0


__all__ = ["JOIN_EPOCH", "LEAVE_EPOCH", "LEAVE_STATIC_EPOCH", "ERRORS", "ERROR_NAMES", "EMPTY", "ASSIGNING",
           "RECONCILING", "STABLE", "DEAD", "GROUP_STATES", "TopicPartitions", "ConsumerGroupHeartbeat",
           "ConsumerGroupHeartbeatResponse"]

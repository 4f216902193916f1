"""Topics on a broker over TCP: CreateTopics (already there is fine) and a topic's id by
Metadata v10+ (KIP-516), for the roles whose requests carry topic ids (ConsumerGroupHeartbeat
names a member's owned partitions and its assignment by topic id). ``BrokerCoordinator``'s
``create_topic`` and ``ensure_topic`` are these; a target that makes topics otherwise
(librdkafka's mock, in process) overrides ``create_topic``.
"""
from __future__ import annotations

import time

from kafka.protocol.admin.topics import CreateTopicsRequest, CreateTopicsResponse
from kafka.protocol.metadata import MetadataRequest, MetadataResponse

METADATA_TOPIC_IDS = 10         # the first Metadata version that answers topic ids (KIP-516)


def create_topic(target, name: str, partitions: int) -> bool:
    """``name`` made by CreateTopics when the broker speaks it; TOPIC_ALREADY_EXISTS is fine
    (its partition count is checked by ``topic_id``). False when the broker does not speak
    CreateTopics."""
    from .broker import BrokerError, error_name, roundtrip
    v = target.versions["CreateTopics"]
    if v < 0:
        return False
    rq = CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=1, assignments=[], configs=[])],
        timeout_ms=10000, validate_only=False)
    code = roundtrip(target.bootstrap, rq, CreateTopicsResponse, v, timeout=15.0).topics[0].error_code
    if code not in (0, 36):          # 36: TOPIC_ALREADY_EXISTS
        raise BrokerError(f"broker {target.address}: CreateTopics {name} answered {error_name(code)}")
    return True


def topic_id(target, name: str, partitions: int) -> str:
    """``name``'s id (uuid str) by Metadata v10+; BrokerError when the broker does not answer
    topic ids, does not know the topic, or it has another partition count."""
    from .broker import BrokerError, error_name, roundtrip
    lo, hi = target.advertised.get(MetadataRequest.API_KEY, (0, -1))
    v = min(hi, MetadataRequest.max_version)
    if v < METADATA_TOPIC_IDS:
        raise BrokerError(f"broker {target.address} answers Metadata up to v{hi}: no topic ids (v10+) for {name}")
    rq = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(topic_id=None, name=name)],
                         allow_auto_topic_creation=False, include_cluster_authorized_operations=False,
                         include_topic_authorized_operations=False)
    for _ in range(20):              # a topic just created may be LEADER_NOT_AVAILABLE for a while
        t = roundtrip(target.bootstrap, rq, MetadataResponse, v).topics[0]
        if t.error_code == 0 and t.partitions:
            break
        time.sleep(0.25)
    if t.error_code != 0:
        raise BrokerError(f"broker {target.address}: Metadata for {name} answered {error_name(t.error_code)}")
    if len(t.partitions) != partitions:
        raise BrokerError(f"broker {target.address}: topic {name} has {len(t.partitions)} partitions, "
                          f"{partitions} are needed")
    return str(t.topic_id)

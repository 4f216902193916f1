"""KIP-848 over TCP on any broker that advertises ConsumerGroupHeartbeat (API 68): the
comparison of ``roles/group_coordinator/compare_848.py`` (eleven scenarios, one group
each) with the heartbeats sent to the group's coordinator.

The topic the members subscribe to (``TOPIC``, ``compare_848.PARTITIONS`` partitions) is made
with CreateTopics when the broker speaks it (already there is fine); its topic id is read
from Metadata v10+, since ConsumerGroupHeartbeat carries topic ids (a member's owned
partitions, the assignment). Each scenario's group is new (a broker keeps its groups), and
its coordinator is found with FindCoordinator. What is specific to a target (librdkafka's
mock: the topic made in process, its timeouts) is done by the target before this runs.
"""
from __future__ import annotations

import time

from kafka.protocol.admin.topics import CreateTopicsRequest, CreateTopicsResponse
from kafka.protocol.metadata import MetadataRequest, MetadataResponse

from groupcheck.model.wire.consumer_group_heartbeat import WireError

API_KEY = 68                    # ConsumerGroupHeartbeat
TOPIC = "groupcheck-kip848"     # the topic every KIP-848 scenario subscribes to
METADATA_TOPIC_IDS = 10         # the first Metadata version that answers topic ids (KIP-516)


def create_topic(target, partitions: int) -> None:
    """``TOPIC`` made by CreateTopics when the broker speaks it; TOPIC_ALREADY_EXISTS is fine
    (its partition count is checked by ``topic_id``)."""
    from .broker import BrokerError, error_name, roundtrip
    v = target.versions["CreateTopics"]
    if v < 0:
        return
    rq = CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(
        name=TOPIC, num_partitions=partitions, replication_factor=1, assignments=[], configs=[])],
        timeout_ms=10000, validate_only=False)
    code = roundtrip(target.bootstrap, rq, CreateTopicsResponse, v, timeout=15.0).topics[0].error_code
    if code not in (0, 36):          # 36: TOPIC_ALREADY_EXISTS
        raise BrokerError(f"broker {target._where()}: CreateTopics {TOPIC} answered {error_name(code)}")


def topic_id(target, partitions: int) -> str:
    """``TOPIC``'s id (uuid str) by Metadata v10+; BrokerError when the broker does not answer
    topic ids, does not know the topic, or it has another partition count."""
    from .broker import BrokerError, error_name, roundtrip
    lo, hi = target.advertised.get(MetadataRequest.API_KEY, (0, -1))
    v = min(hi, MetadataRequest.max_version)
    if v < METADATA_TOPIC_IDS:
        raise BrokerError(f"broker {target._where()} answers Metadata up to v{hi}: no topic ids (v10+) "
                          "for the KIP-848 scenarios")
    rq = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(topic_id=None, name=TOPIC)],
                         allow_auto_topic_creation=False, include_cluster_authorized_operations=False,
                         include_topic_authorized_operations=False)
    for _ in range(20):              # a topic just created may be LEADER_NOT_AVAILABLE for a while
        t = roundtrip(target.bootstrap, rq, MetadataResponse, v).topics[0]
        if t.error_code == 0 and t.partitions:
            break
        time.sleep(0.25)
    if t.error_code != 0:
        raise BrokerError(f"broker {target._where()}: Metadata for {TOPIC} answered {error_name(t.error_code)}")
    if len(t.partitions) != partitions:
        raise BrokerError(f"broker {target._where()}: topic {TOPIC} has {len(t.partitions)} partitions, "
                          f"the KIP-848 scenarios need {partitions}")
    return str(t.topic_id)


def run(target, profile: str) -> list[dict]:
    """Every KIP-848 scenario on ``target`` (an opened ``BrokerCoordinator``), compared with
    the model under ``profile``; a connection lost or an answer that cannot be read is a
    BrokerError naming the broker (one line, exit 2)."""
    from .broker import BrokerError
    try:
        return _run(target, profile)
    except (OSError, WireError) as e:
        raise BrokerError(f"broker {target._where()}: KIP-848 scenarios: {e}") from None


def _run(target, profile: str) -> list[dict]:
    from ...roles.group_coordinator import compare_848 as compare
    judgements = target.kip848_judgements()
    create_topic(target, compare.PARTITIONS)
    tid = topic_id(target, compare.PARTITIONS)
    out = []
    for name in compare.SCENARIOS:
        group = f"gc848-{name}-{time.time_ns()}"
        host, port = target._find_coordinator(group)
        out.append(compare.compare(name, profile, run=lambda steps, group=group, where=f"{host}:{port}":
                                   compare.run_tcp(steps, where, group, topic=TOPIC, topic_id=tid),
                                   judgements=judgements))
    return out

"""Byte-exact codecs for Kafka Streams' rebalance metadata: ``SubscriptionInfo`` / ``AssignmentInfo``.

These are the ``userData`` payloads Kafka Streams' ``StreamsPartitionAssignor`` puts inside the
consumer protocol's Subscription / Assignment (see ``consumer_protocol.py``).  Everything is
big-endian; there is no int16 header as in the consumer protocol: both messages start with an
int32 *used version*.

Sources (read from the apache/kafka git history; paths under
``streams/src/main/java/org/apache/kafka/streams/processor/internals/assignment/`` unless noted):

* ``SubscriptionInfo.java`` at tags 0.10.0.0 (v1), 1.1.0 / 1.1.1 (v2), 2.3.0 (v1-4, hand-written
  ``ByteBuffer`` code), 2.4.0 (v5, same layout as v3/v4) and, from 2.5.0 on, the generated
  serializer of ``streams/src/main/resources/common/message/SubscriptionInfo.json`` (2.5, versions
  1-6) / ``SubscriptionInfoData.json`` (2.6.0 v7, 2.6.1 v8, 2.8.0 v9, 3.0.0 v10, 3.2.0+ v11; the
  3.2.0 file is unchanged up to trunk of 2024-10, commit 1eb7644349c).  The generated serializer
  is "flexibleVersions": "none": no tagged fields, ``uuid`` = two int64 (most, least significant),
  ``bytes`` = int32 length + bytes, nullable ``string`` = int16 length (-1 = null) + UTF-8,
  ``[]T`` = int32 count + elements, ``int8`` = one signed byte.
* ``AssignmentInfo.java`` (``DataOutputStream`` code throughout) at 0.10.0.0 (v1), 1.1.1 (v2),
  2.3.0 (v1-4), 2.4.0 (v5), 2.5.0 (v6), 2.6.0 (v7), 2.6.1 (v8), 2.8.0 (v9), 3.0.0 (v10, TaskIds
  through ``ConsumerProtocolUtils.writeTaskIdTo``), 3.2.0 / trunk (v11).
* ``StreamsAssignmentProtocolVersions.java`` (2.4+) or the ``LATEST_SUPPORTED_VERSION`` /
  ``CURRENT_VERSION`` constants before it: latest version by release 0.10.0=1; 0.10.1-1.1=2;
  2.0=3; 2.1-2.3=4; 2.4=5; 2.5=6; 2.6.0=7; 2.6.1-2.7=8; 2.8=9; 3.0-3.1=10; 3.2-3.9 and trunk=11.

Implemented: **SubscriptionInfo v1-11 and AssignmentInfo v1-11**, all byte-exact.
(``LATEST_SUPPORTED_VERSION`` = 11 is the newest version any Kafka release defines.)  Besides
reading the sources, the bytes were checked against Kafka's own code, compiled and run outside
this project; the tests hold the vectors it printed:

* trunk ``AssignmentInfo.java`` + ``ConsumerProtocolUtils.java``: AssignmentInfo v1-11;
* trunk ``SubscriptionInfoData``, produced from ``SubscriptionInfoData.json`` by Kafka's own
  ``MessageGenerator``: SubscriptionInfo v1-11;
* 2.3.0 ``SubscriptionInfo.java`` / ``AssignmentInfo.java``: both v1-4; 2.4.0
  ``SubscriptionInfo.java``: v1-5.

The 2.5-3.1 generated serializers were not run.  Their JSON files define the same layout for
the versions they know.  Not implemented: every version outside 1-11.  Encoding one raises
``ValueError``, since there is no Kafka source to follow and the codec does not guess.  Decoding
one is covered in each message module's docstring.

Modules (this one re-exports their public names, so ``model.wire.streams_metadata`` stays the
import path):

* ``streams_subscription.py``: ``SubscriptionInfo``, ``encode_subscription_info``,
  ``decode_subscription_info``; its docstring has the SubscriptionInfo wire layout and how a
  version above 11 decodes (version probing).
* ``streams_assignment.py``: ``AssignmentInfo``, ``encode_assignment_info``,
  ``decode_assignment_info``; its docstring has the AssignmentInfo wire layout and how a version
  above 11 is rejected (or read with ``allow_future=True``).
* ``streams_values.py``: version constants, defaults, the ``TaskId`` / ``TopicPartition`` /
  ``HostInfo`` / ``HostPartitions`` aliases and the field normalisers.
* ``streams_bytes.py``: the wire primitives both codecs share (range-checked encoders, Java
  ``writeUTF`` / ``writeChars``, version checks, the bounds-checked ``Reader``).

Data model: tasks are ``(topic_group_id, partition)`` tuples, or ``(topic_group_id, partition,
named_topology)`` for a named topology (v10+; ``None`` or ``""`` as third element normalises to
the 2-tuple, as Kafka's ``TaskId`` downgrades an empty name to null).  Java's sets and maps are
tuples here, in wire order (duplicates kept), so decoding then encoding reproduces the bytes.

Encoding a value the version cannot carry:

* ``SubscriptionInfo``: ``ValueError`` naming the field (the generated serializer throws
  ``UnsupportedVersionException`` for a non-default field its version lacks).  This includes
  ``latest_supported_version`` other than -1 below v3 and ``latest_supported_version`` below the
  used version from v3 (Kafka's ``SubscriptionInfo.validateVersions``).
* ``AssignmentInfo``: dropped silently by default, as ``AssignmentInfo.encode`` writes only its
  version's fields; ``drop_unsupported=False`` raises ``ValueError`` instead.
* A named-topology TaskId below v10 always raises (Kafka throws ``TaskAssignmentException``).

Deliberate differences from Kafka's readers (all raise ``DecodeError`` naming the field):
invalid UTF-8 (Java substitutes U+FFFD); non-canonical modified UTF-8 (a raw 0x00 byte or an
overlong form, which ``DataInputStream.readUTF`` accepts but ``writeUTF`` never writes); a
negative count or length (Java loops zero times or reads a negative nullable length as null);
an AssignmentInfo topic dictionary with a repeated index or topic, or a reference to an index
it lacks (Java overwrites, or builds a TopicPartition with a null topic); a SubscriptionInfo
whose versions fail ``validateVersions`` (checked by Kafka 2.6+, not by older releases).
With ``strict=True`` (the default) trailing bytes are rejected, and so are encodings Kafka's
writers never produce: a repeated or empty topicGroupId group in v7-9 ``taskOffsetSums`` and an
empty (not null) v10+ ``namedTopology``; ``strict=False`` accepts them as Kafka does.  Note that
Kafka 0.10.2.2, 0.11.0.3, 1.0.2 and 1.1.1 with ``upgrade.from=0.10.0`` write *v1* messages
followed by the v2 fields (``userEndPoint`` / ``partitionsByHost``), which 0.10.0 readers ignore:
decode those with ``strict=False``.
"""

from __future__ import annotations

from .errors import DecodeError
from .streams_assignment import (
    AssignmentInfo,
    decode_assignment_info,
    encode_assignment_info,
)
from .streams_subscription import (
    SubscriptionInfo,
    decode_subscription_info,
    encode_subscription_info,
)
from .streams_values import (
    EARLIEST_PROBEABLE_VERSION,
    LATEST_SUPPORTED_VERSION,
    MIN_NAMED_TOPOLOGY_VERSION,
    MIN_VERSION_OFFSET_SUM_SUBSCRIPTION,
    NO_NEXT_REBALANCE,
    UNKNOWN,
    ZERO_UUID,
    HostInfo,
    HostPartitions,
    TaskId,
    TopicPartition,
)

__all__ = [
    "EARLIEST_PROBEABLE_VERSION",
    "LATEST_SUPPORTED_VERSION",
    "MIN_NAMED_TOPOLOGY_VERSION",
    "MIN_VERSION_OFFSET_SUM_SUBSCRIPTION",
    "NO_NEXT_REBALANCE",
    "UNKNOWN",
    "ZERO_UUID",
    "AssignmentInfo",
    "DecodeError",
    "HostInfo",
    "HostPartitions",
    "SubscriptionInfo",
    "TaskId",
    "TopicPartition",
    "decode_assignment_info",
    "decode_subscription_info",
    "encode_assignment_info",
    "encode_subscription_info",
]

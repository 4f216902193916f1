"""groupcheck as a library: Kafka's group rebalance rules on Kafka's own terms.

Topic names and partition numbers (``TopicPartition``), member ids as strings,
subscriptions with topics, ownedPartitions, generation (KIP-792) and userData; every
function runs the model's own rule (``model/``), so what the library answers is what
``groupcheck check`` explores. Bad input raises ``ApiError`` naming the field.

Consumer group (``consumer``):
    assign                               ConsumerPartitionAssignor#assign (range, roundrobin, sticky, cooperative-sticky)
    resolve_claims                       which ownedPartitions claims the leader keeps (KIP-792, per profile)
    partitions_transferring_ownership    AbstractStickyAssignor's partitionsTransferringOwnership
    adjust_assignment                    CooperativeStickyAssignor#adjustAssignment (withholding)
    validate_cooperative_assignment      ConsumerCoordinator#validateCooperativeAssignment
    rebalance_protocol                   the consumer's RebalanceProtocol from its assignor list
    select_protocol                      the group coordinator's vote (GroupMetadata#selectProtocol)
Kafka Streams (``streams``):
    assign_streams                       StreamsPartitionAssignor#assign on the classic protocol
Your own assignor (``custom``):
    PartitionAssignor, register_assignor, load
"""
from .consumer import (
                       DEFAULT_PROFILE,
                       adjust_assignment,
                       assign,
                       partitions_transferring_ownership,
                       rebalance_protocol,
                       resolve_claims,
                       select_protocol,
                       validate_cooperative_assignment,
)
from .custom import (
                       ENTRY_POINT_GROUP,
                       AssignorLoadError,
                       InvalidAssignment,
                       PartitionAssignor,
                       load,
                       register_assignor,
)
from .streams import assign_streams
from .values import (
                       ApiError,
                       ClaimResolution,
                       CooperativeAssignmentError,
                       StickyUserData,
                       StreamsAssignFailed,
                       StreamsAssignment,
                       StreamsSubscription,
                       Subscription,
                       TaskId,
                       TopicPartition,
)

COOPERATIVE, EAGER = "COOPERATIVE", "EAGER"

__all__ = [
    "ApiError", "AssignorLoadError", "COOPERATIVE", "ClaimResolution", "CooperativeAssignmentError",
    "DEFAULT_PROFILE", "EAGER", "ENTRY_POINT_GROUP", "InvalidAssignment", "PartitionAssignor", "StickyUserData",
    "StreamsAssignFailed", "StreamsAssignment", "StreamsSubscription", "Subscription", "TaskId", "TopicPartition",
    "adjust_assignment", "assign", "assign_streams", "load", "partitions_transferring_ownership",
    "rebalance_protocol", "register_assignor", "resolve_claims", "select_protocol",
    "validate_cooperative_assignment",
]

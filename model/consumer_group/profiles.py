"""Named behaviour profiles for KIP-848 consumer groups: where the KIP's text and shipped
Kafka releases decide a request differently, each side is a profile, and every rule in
``validation.py``, ``coordinator.py`` and ``coordinator_update.py`` reads its switch here.

* ``kip-848``    the KIP's text (the "Consumer Group Heartbeat API" and "Rebalance Process"
                 sections) where it is explicit; elsewhere Kafka's trunk rules.
* ``kafka-3.7``  the early-access coordinator (3.7.0): no regex in the request schema, names
                 required and non-empty at join, the assignment sent whenever owned partitions
                 are reported (before KAFKA-16367, 3.8).
* ``kafka-4.0``  GA: regexes resolved asynchronously, empty subscriptions accepted at join,
                 the assignment sent on a full request (names, not a regex, make it full).
* ``kafka-4.1``  4.0's rules (the own pending revocation still blocks; epoch + 1 after revoking).
* ``kafka-4.2``  KAFKA-19449 (the member's own pending revocation no longer blocks) and
                 KAFKA-19974 (the epoch stays after revoking: the epoch core's ``consumer-trunk``).
                 KAFKA-19233's fix (merged to trunk 2026-01) is not in it (an assumption: no
                 backport is in the stored sources).
* ``kafka-4.3``  trunk after 4.2: KAFKA-19233's fix (PR #21305), KIP-1251's assignment
                 epochs for offset commits (KAFKA-20066, PR #21692), KAFKA-20442 (an emptied
                 group's epochs made equal, PR #22045), KAFKA-20268 (a new group starts at
                 group and assignment epoch 1, PR #21700).
The 3.7 coordinator's reconciliation bug KAFKA-16249 is part of ``kafka-3.7``; the KIP profile
takes every fix, and a static member's own-id rejoin in place (apache/kafka #23542, open).

Each switch names the source it comes from (apache/kafka, group-coordinator/src/main/java/org/
apache/kafka/coordinator/group/ unless said otherwise).
"""
from __future__ import annotations

from typing import NamedTuple

from ..epochs import CONSUMER_4_1, CONSUMER_TRUNK
from ..epochs import Profile as EpochProfile

# How a SubscribedTopicRegex is handled.
REGEX_REJECTED = "rejected"   # 3.7: GroupCoordinatorService "SubscribedTopicRegex is not supported yet."
REGEX_SYNC = "sync"           # the KIP: resolved against the metadata in the heartbeat itself
REGEX_ASYNC = "async"         # 4.0+: GroupMetadataManager#maybeUpdateRegularExpressions schedules the
#                               resolution; its result (a ConsumerGroupRegularExpression record) bumps
#                               the group epoch later (``coordinator.resolve_regexes``)

# When the response carries the assignment.
SENT_WHEN_OWNED_REPORTED = "owned-reported"
SENT_ON_FULL_REQUEST = "full-request"
SENT_ON_FULL_REQUEST_OR_REGEX = "full-request-or-regex"

# Which epochs need a non-empty MemberId (GroupCoordinatorService#throwIfConsumerGroupHeartbeatRequestIsInvalid).
MEMBER_ID_NOT_AT_JOIN = "not-at-join"   # KIP / 3.7-4.0 v0: "memberEpoch > 0 || memberEpoch == -1" (and -2 in 3.7)
MEMBER_ID_ALWAYS = "always"             # v1+ (KIP-1082: the client generates its member id)


class Profile(NamedTuple):
    name: str
    # The epoch core's reconciliation profile: ``consumer-4.1`` adds 1 to the member epoch
    # after it revoked; ``consumer-trunk`` (KAFKA-19974, 4.2) keeps it.
    epochs: EpochProfile
    # modern/consumer/CurrentAssignmentBuilder#computeNextAssignment before KAFKA-19449: a
    # partition this member itself still has pending revocation counts as unreleased.
    own_pending_blocks: bool
    regex: str                       # REGEX_*
    member_id_required: str          # MEMBER_ID_*
    # 3.7/3.8: "SubscribedTopicNames must be set in first request." (non-null, non-empty);
    # 4.0+: "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."
    join_needs_nonempty_names: bool
    # When the response carries the assignment (GroupMetadataManager#consumerGroupHeartbeat):
    # SENT_WHEN_OWNED_REPORTED (3.7: "ownedTopicPartitions != null || memberEpoch == 0 ||
    # assignmentUpdated"); SENT_ON_FULL_REQUEST (3.8+, KAFKA-16367 / apache/kafka #15533:
    # "memberEpoch == 0 || (rebalanceTimeoutMs != -1 && subscribedTopicNames != null &&
    # ownedTopicPartitions != null)" or a change; a regex-only subscriber's request is never
    # full); SENT_ON_FULL_REQUEST_OR_REGEX (the KIP: a regex subscription counts like names).
    assignment_sent: str
    # The server assignors (group.consumer.assignors) and the default one (the first):
    # GroupCoordinatorConfig CONSUMER_GROUP_ASSIGNORS_DEFAULT = [UniformAssignor, RangeAssignor].
    assignors: tuple[str, ...] = ("uniform", "range")
    # A member's epoch-0 heartbeat with a member id the group knows (KAFKA-19233, apache/kafka
    # PR #21305, merged 2026-01-14: "Add early return for receivedMemberEpoch=0 in validation
    # method"): True: accepted, the member keeps its epoch and assignment and the full response
    # hands them back; False (every release before the fix): it meets the member-epoch check,
    # and 0 is neither its epoch nor its previous one once it is past epoch 1: FENCED_MEMBER_EPOCH.
    epoch0_rejoin_accepted: bool = True
    # KIP-1251 "Assignment epochs for consumer groups" (KAFKA-20066, apache/kafka #21692, merged
    # 2026-03): each assigned partition keeps the member epoch it was assigned at, and an
    # OffsetCommit is accepted when "assignmentEpoch <= clientEpoch <= brokerEpoch" for every
    # committed partition (ConsumerGroup#validateOffsetCommit / createAssignmentEpochValidator).
    # False: "clientEpoch == brokerEpoch" (validateMemberEpoch), every release before.
    assignment_epochs: bool = False
    # The KIP: "The group epoch is bumped when ... a member joins or leaves the group". Kafka
    # (consumerGroupHeartbeat, 3.7-4.x): a join bumps only through what it changes: the group
    # is new ("groupEpoch() == 0"), the subscribed names differ (hasMemberSubscriptionChanged),
    # an already resolved regex (maybeUpdateRegularExpressions) or the subscription metadata;
    # a member joining with no subscription does not bump.
    bump_on_join: bool = False
    # The server-side range assignor before KAFKA-16944 (3.7 / 3.8): sticky per topic; since
    # 3.9 ranges in sortMemberIds order, not sticky (assignors/consumer_group_range.py).
    sticky_range: bool = False
    # KAFKA-20442 (apache/kafka #22045, 2026-04, cherry-picked to 4.3): when a removal empties
    # the group, a ConsumerGroupTargetAssignmentMetadata record brings the assignment epoch up
    # to the bumped group epoch ("an empty group should have matching epochs"). Before: the
    # empty group keeps groupEpoch > assignmentEpoch.
    empty_group_epochs_equal: bool = False
    # KAFKA-16249 (apache/kafka #15364, fixed in 3.8.0): 3.7.0's CurrentAssignmentBuilder#build
    # starts with "if (targetAssignmentEpoch != member.targetMemberEpoch()) return
    # transitionToNewTargetAssignmentState();", recomputing from assigned ∪ pending revocation
    # and ignoring the owned partitions the heartbeat reports; so an acknowledgement sent in the
    # heartbeat that meets a new target is lost.
    new_target_ignores_owned: bool = False
    # A static member's epoch-0 heartbeat with its own member id while it still holds its
    # instance id (a lost join response, a rejoin after FENCED_MEMBER_EPOCH). True: a rejoin
    # like any known member's (the KIP's "0 to join the group"; apache/kafka #23542, open).
    # False (Kafka, getOrMaybeSubscribeStaticConsumerGroupMember / throwIfInstanceIdIsUnreleased):
    # UNRELEASED_INSTANCE_ID, which the Java client takes as fatal.
    static_rejoin_in_place: bool = False
    # KAFKA-16147 (apache/kafka #15212, fixed in 3.8.0): 3.7.0's ConsumerGroup#
    # maybeUpdatePartitionEpoch removed the old assigned partitions' epochs and added the new
    # ones, then removed the old pending-revocation ones and added the new: a partition moving
    # from the member's pending revocation back into its assigned set is added, then removed,
    # so the map forgets its owner and another member may be given it ("Partition is assigned
    # to two members at the same time").
    partition_epoch_map_bug: bool = False
    # KAFKA-20268 (apache/kafka #21700, 2026-03, 4.3): "we initialize groups at epoch 1 with
    # target assignment epoch 1. Epoch 1 contains an empty assignment and the first computed
    # assignment will have epoch 2." Before: a new group starts at epochs 0.
    initial_group_epoch: int = 0


KIP_848 = Profile(name="kip-848", epochs=CONSUMER_TRUNK, own_pending_blocks=False, regex=REGEX_SYNC,
                  member_id_required=MEMBER_ID_NOT_AT_JOIN, join_needs_nonempty_names=False,
                  assignment_sent=SENT_ON_FULL_REQUEST_OR_REGEX, bump_on_join=True, empty_group_epochs_equal=True,
                  static_rejoin_in_place=True)
KAFKA_3_7 = Profile(name="kafka-3.7", epochs=CONSUMER_4_1, own_pending_blocks=True, regex=REGEX_REJECTED,
                    member_id_required=MEMBER_ID_NOT_AT_JOIN, join_needs_nonempty_names=True,
                    assignment_sent=SENT_WHEN_OWNED_REPORTED, epoch0_rejoin_accepted=False, sticky_range=True,
                    new_target_ignores_owned=True, partition_epoch_map_bug=True)
KAFKA_4_0 = Profile(name="kafka-4.0", epochs=CONSUMER_4_1, own_pending_blocks=True, regex=REGEX_ASYNC,
                    member_id_required=MEMBER_ID_ALWAYS, join_needs_nonempty_names=False,
                    assignment_sent=SENT_ON_FULL_REQUEST, epoch0_rejoin_accepted=False)
KAFKA_4_1 = KAFKA_4_0._replace(name="kafka-4.1")
KAFKA_4_2 = KAFKA_4_0._replace(name="kafka-4.2", epochs=CONSUMER_TRUNK, own_pending_blocks=False)
KAFKA_4_3 = KAFKA_4_2._replace(name="kafka-4.3", epoch0_rejoin_accepted=True, assignment_epochs=True,
                               empty_group_epochs_equal=True, initial_group_epoch=1)

PROFILES: dict[str, Profile] = {p.name: p for p in (KIP_848, KAFKA_3_7, KAFKA_4_0, KAFKA_4_1, KAFKA_4_2, KAFKA_4_3)}


def profile(name) -> Profile:
    """The profile called ``name`` (a Profile passes through)."""
    if isinstance(name, Profile):
        return name
    if name not in PROFILES:
        raise KeyError(f"unknown consumer group profile {name!r}; known: {', '.join(PROFILES)}")
    return PROFILES[name]


__all__ = ["Profile", "PROFILES", "profile", "KIP_848", "KAFKA_3_7", "KAFKA_4_0", "KAFKA_4_1", "KAFKA_4_2", "KAFKA_4_3",
           "REGEX_REJECTED", "REGEX_SYNC", "REGEX_ASYNC", "SENT_WHEN_OWNED_REPORTED",
           "SENT_ON_FULL_REQUEST", "SENT_ON_FULL_REQUEST_OR_REGEX", "MEMBER_ID_NOT_AT_JOIN", "MEMBER_ID_ALWAYS"]

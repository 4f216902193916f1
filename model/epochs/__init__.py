"""The epoch core shared by KIP-848 consumer groups and KIP-1071 Streams groups:
group / assignment / member epochs, the target assignment, and member
reconciliation (Kafka's CurrentAssignmentBuilder) over per-role resource bitmasks.
See README.md beside this file."""
from .group import (ACTIVE, STANDBY, WARMUP, GroupEpochs, Holding, TargetAssignment, bump_group_epoch,
                    consumer_unreleased, holding, install_target, needs_new_target, streams_unreleased,
                    validate_member_epoch)
from .reconcile import (CONSUMER_4_1, CONSUMER_TRUNK, FENCED_MEMBER_EPOCH, MEMBER_STATES, NO_REVOCATION_EPOCH, PROFILES, STABLE,
                        STREAMS_4_1, STREAMS_TRUNK, UNKNOWN, UNRELEASED, UNREVOKED, Difference, Fenced,
                        MemberAssignment, Profile, difference, new_member, reconcile)

__all__ = [
    "ACTIVE", "STANDBY", "WARMUP", "GroupEpochs", "Holding", "TargetAssignment", "bump_group_epoch",
    "consumer_unreleased", "holding", "install_target", "needs_new_target", "streams_unreleased",
    "validate_member_epoch", "CONSUMER_4_1", "CONSUMER_TRUNK", "FENCED_MEMBER_EPOCH", "MEMBER_STATES", "NO_REVOCATION_EPOCH",
    "PROFILES", "STABLE", "STREAMS_4_1", "STREAMS_TRUNK", "UNKNOWN", "UNRELEASED", "UNREVOKED",
    "Difference", "Fenced", "MemberAssignment", "Profile", "difference", "new_member", "reconcile",
]

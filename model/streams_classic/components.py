"""Kafka Streams' classic-protocol parts a conformance target is compared with.

Each name here is the model's own function (not a copy). The group coordinator is the
classic consumer group's (``model/consumer``'s components); what Streams adds is:

- the assignor: ``leader_assign(scope, state, leader, generation)`` is
  StreamsPartitionAssignor#assign as the group leader runs it (version probing, KIP-268;
  the task assignor, sticky or KIP-429's warm-up tasks), returning the leader's
  ``Outcome``; ``LEADER_FAILURE`` starts the note of an assign() that threw.
- the member: ``fresh(scope, stage, status)`` a stream thread as it starts, sending the
  subscription version ``first_version(scope, stage)`` (upgrade.from honoured by the profile).
- the release facts the version negotiation reads (releases.py): ``release``,
  ``subscription_version``, ``accepts_upgrade_from``, ``rebalance_protocol``,
  ``RELEASES``, ``UPGRADE_FROM``, ``PRE_PROBING``, ``EARLIEST_PROBEABLE_VERSION``.
"""
from __future__ import annotations

from .leader import assign as leader_assign
from .releases import (EARLIEST_PROBEABLE_VERSION, PRE_PROBING, RELEASES, UPGRADE_FROM, accepts_upgrade_from,
                       rebalance_protocol, release, subscription_version)
from .step import LEADER_FAILURE, first_version, fresh

__all__ = ["EARLIEST_PROBEABLE_VERSION", "LEADER_FAILURE", "PRE_PROBING", "RELEASES", "UPGRADE_FROM",
           "accepts_upgrade_from", "first_version", "fresh", "leader_assign", "rebalance_protocol", "release",
           "subscription_version"]

"""KIP-848's parts a conformance target is compared with, one by one.

Each name here is the model's own function (not a copy); its docstring quotes the Kafka
code it stands for.

The group coordinator (GroupMetadataManager):

- ``heartbeat(group, request, cluster, profile, config, switches)``: one
  ConsumerGroupHeartbeat (consumerGroupHeartbeat), returning an ``Outcome`` with the
  response, the records written and the coordinator's events; ``offset_commit`` is
  ConsumerGroup#validateOffsetCommit.
- ``new_group(group_id, partition_index(topics))``: the group a first join creates;
  ``Cluster(topics)`` the topics the coordinator sees.

The consumer (the Java consumer's membership manager):

- ``on_response(client, reply, rules)``: what the client does with a heartbeat response;
  ``reconcile(client, commit_error)`` the reconciliation it runs (revoke, then assign).

The assignor (the coordinator's server-side assignor, KIP-848 "Assignment"):

- ``new_target(group, assignor)``: the target assignment the named assignor computes.

``partition_names(scope, mask)`` names the partitions of a mask as the model's texts do.
"""
from __future__ import annotations

from .coordinator import Cluster, heartbeat, offset_commit
from .group import new_group, partition_index
from .member import on_response, reconcile
from .render import _parts
from .target import new_target


def partition_names(scope, mask: int) -> list[str]:
    """The partitions of ``mask`` as ``t0-1`` names, in the scope's partition order."""
    return _parts(scope, mask)


__all__ = ["Cluster", "heartbeat", "new_group", "new_target", "offset_commit", "on_response", "partition_index",
           "partition_names", "reconcile"]

"""KIP-1071's parts a conformance target is compared with, one by one.

Each name here is the model's own function (not a copy); its docstring quotes the Kafka
code it stands for.

- the group coordinator: ``heartbeat(group, request, cluster, ...)`` handles one
  StreamsGroupHeartbeat (GroupMetadataManager#streamsGroupHeartbeat), returning an
  ``Outcome`` with the response, the records written and the coordinator's events;
  ``new_group(group_id, task_index)`` is the group a first join creates, ``Cluster`` the
  topics the coordinator sees.
- the member: ``on_response(client, reply)`` is what a Streams client does with a
  heartbeat response (StreamsMembershipManager).
- the task assignor: ``new_target(group, configured, configs, ...)`` is the target
  assignment the group's assignor computes (KIP-1071 "Assignment").
"""
from __future__ import annotations

from .coordinator import Cluster, heartbeat
from .group import new_group
from .member import on_response
from .target import new_target

__all__ = ["Cluster", "heartbeat", "new_group", "new_target", "on_response"]

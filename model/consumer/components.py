"""The classic protocol's parts a conformance target is compared with, one by one.

``groupcheck conform`` puts a real implementation where one of these parts is and runs
the rest of the model around it. Each name here is the model's own function (not a copy);
its docstring quotes the Kafka code it stands for.

The group coordinator (GroupCoordinator, Kafka 3.x), on a ``Group`` it returns in an
``Outcome(group, out, events)``, ``out`` being ``((slot, response), ...)``:

- ``handle_request(group, slot, request)``: one JoinGroup, SyncGroup, Heartbeat or
  LeaveGroup arriving on connection ``slot`` (handleJoinGroup, handleSyncGroup,
  handleHeartbeat, handleLeaveGroup).
- ``remove_member``, ``rebalance_timeout``, ``maybe_complete_join``: what time does
  (a session timeout, the rebalance timeout, completing a join); ``chain`` joins two
  outcomes; ``new_group`` is an Empty group.

The consumer (ConsumerCoordinator / AbstractCoordinator):

- ``receive(scope, state, slot)``: the client handles the response at the head of its
  inbox (JoinGroupResponseHandler, SyncGroupResponseHandler, HeartbeatResponseHandler).
- ``sends_leave_group(consumer)``, ``protocol_of(scope, consumer)``, ``unreachable``.

The assignor (the leader's onLeaderElected):

- ``run_assignor(assignor, behaviour, subs, partitions, stride)``: ConsumerPartitionAssignor#assign
  as the leader runs it; ``claim_of`` what it reads as a member's previous ownership;
  ``select_protocol`` the coordinator's choice of a protocol all members support.
"""
from __future__ import annotations

from .actions import unreachable
from .client import protocol_of, receive, sends_leave_group
from .coordinator import Outcome, maybe_complete_join, new_group, rebalance_timeout, remove_member
from .coordinator import _chain as chain
from .leader import claim_of, run_assignor
from .selection import select_protocol
from .step import dispatch as handle_request

__all__ = [
    "Outcome", "chain", "claim_of", "handle_request", "maybe_complete_join", "new_group", "protocol_of",
    "rebalance_timeout", "receive", "remove_member", "run_assignor", "select_protocol", "sends_leave_group",
    "unreachable",
]

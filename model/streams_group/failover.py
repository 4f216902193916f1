"""Coordinator failover as a step of the explorable model: a new coordinator loads the
``__consumer_offsets`` partition and holds what replaying it gives; what Kafka does not
persist is lost.

    failover(group, log_prefix, group_id, task_index, rejects_simple_classic) -> (group, error)
    failover_step(state, log_prefix, group_id, task_index, rejects_simple_classic, lost) -> (state, note)

The log: the world keeps none; the group's records are regenerated as
``records.diff(no group, group)``, one record per key with its latest value, which is
the log after compaction (tombstones gone past delete.retention.ms). A scope with
classic members adds what the classic group wrote before any streams record, its offset
commits (``classic_commits``); the model's streams members commit nothing, so no later
commit replaces them and they stay first in the compacted log. That is the order
KAFKA-20254 is about (apache/kafka PR #21641: "During replay of the __consumer_offsets
topic, offset commit records can appear before streams group records, for example after
log compaction").

What a failover keeps and loses (apache/kafka group-coordinator, GroupMetadataManager,
StreamsGroup; commit 0013464cf112f01678cefa691f73b466e7ed7010):

* every record-backed field of the streams group (the ``replay`` methods);
* the classic members of a migrating group: kept (Kafka keeps a converted consumer
  group's classic members as ClassicMemberMetadata in their member-metadata record);
* lost: the SHUTDOWN_APPLICATION requester (StreamsGroup#shutdownRequestMemberId: "This
  is not persisted in the log, as the shutdown request is best-effort.");
* timers restart: ``onLoaded`` schedules a session timeout for every member and a
  rebalance timeout for each member in UNREVOKED_TASKS. The model's timers are actions
  enabled by the state (``expire``, ``session_timeout``, ``rebalance_timeout``), so a
  restarted timer is the same action;
* requests in flight to the old coordinator fail (NOT_COORDINATOR) and the client sends
  its heartbeat again to the new one: the model keeps the request in flight, handled by
  the new coordinator. Responses already sent were written and committed first
  (coordinator-common CoordinatorRuntime: "The response is parked until the records are
  committed and delivered when they are."), so they stay in flight;
* a write not yet committed when the coordinator moves is lost: on unload its parked
  response fails (``deferredEventQueue.failAll(Errors.NOT_COORDINATOR.exception())``) and
  the new leader's log ends before its records. The model keeps the last streams
  heartbeat's write as uncommitted until its response is read or another write follows
  (``State.uncommitted``: at most one write is ever uncommitted, a simplification); the
  failover that loses it (``failover`` with arg 1, ``step._failover``) loads the log
  without it, drops the internal topics that heartbeat asked for (KafkaApis creates them
  from the coordinator's response) and has the client send its heartbeat again;
* a classic group (``classic_clients.reload``) is loaded from its last GroupMetadata record
  ("loadedMembers.isEmpty() ? EMPTY : STABLE"): a rebalance under way is lost, and the
  JoinGroup / SyncGroup waiting in the old coordinator's purgatory fail NOT_COORDINATOR
  (onUnloaded) and are sent again.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from .group import new_group
from .migration import MigratingGroup, mixed
from .member import running
from .records import OffsetCommit, ReplayError, diff, replay
from .world import WAITING


def classic_commits(group_id: str, topic: str) -> tuple[OffsetCommit, ...]:
    """The classic group's committed offset (a classic Streams client commits its active
    tasks' offsets): for the first partition of ``topic``."""
    return (OffsetCommit(group_id, topic, 0, 1),)


def failover(group, log_prefix: tuple, group_id: str, task_index, rejects_simple_classic: bool):
    """(the group the new coordinator holds, the replay error or None). ``group`` is a
    streams Group or a MigratingGroup."""
    streams = group.group if isinstance(group, MigratingGroup) else group
    none = replace(new_group(group_id, task_index), dead=True)
    records = tuple(log_prefix) + diff(none, streams)
    error: Optional[str] = None
    try:
        loaded = replay(records, none, kafka_20254=rejects_simple_classic)
    except ReplayError as e:   # Kafka: the partition fails to load; the group is gone
        loaded, error = none, str(e)
    if isinstance(group, MigratingGroup):
        return mixed(loaded, group.classic), error
    return loaded, error


def failover_step(state, log_prefix: tuple, group_id: str, task_index, rejects_simple_classic: bool, lost: int):
    """The world after a failover: (state, note). ``lost`` 1: the last streams heartbeat's
    write (``state.uncommitted``) was not committed: the log ends before it, the internal
    topics it asked for were neither requested nor created (KafkaApis asks for them from
    the coordinator's response), and its client, whose response failed NOT_COORDINATOR, sends it again."""
    written, topics, clients = state.group, state.topics, state.clients
    if lost:
        lost_write = state.uncommitted
        written, created, slot, request = lost_write.committed, lost_write.created, lost_write.slot, lost_write.request
        topics = tuple((t, p) for t, p in topics if t not in created)
        state = state._replace(creating=tuple((t, p) for t, p in state.creating if t not in created))
        c = clients[slot]
        if running(c) and c.request is None and c.status != WAITING:
            clients = clients[:slot] + (c._replace(request=request, reply=None),) + clients[slot + 1:]
    group, error = failover(written, log_prefix, group_id, task_index, rejects_simple_classic)
    nxt = state._replace(group=group, shutdown=None, topics=topics, clients=clients, budget=state.budget - 1,
                         calm=0, beaten=0, fresh=0, uncommitted=None)
    return nxt, ("the last write lost, " if lost else "") + (error or "log loaded")


__all__ = ["classic_commits", "failover", "failover_step"]

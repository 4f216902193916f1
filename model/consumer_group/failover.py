"""Coordinator failover for a KIP-848 consumer group: a new coordinator loads the
``__consumer_offsets`` partition and holds what replaying it gives; what Kafka does not persist
is lost, and timers restart.

    compacted_log(group)                      the log after compaction: one record per key
    failover(group, log_prefix, lost_write)   -> (the group the new coordinator holds, replay error or None)
    timers_after_load(group)                  the timers onLoaded schedules

What a failover keeps and loses (apache/kafka group-coordinator, GroupMetadataManager):

* every record-backed field of the group (the ``replay`` methods): epochs, members and their
  subscriptions, target assignment, current assignments, subscription metadata, resolved regexes;
* timers restart: ``onLoaded`` schedules a session timeout for every member and a rebalance
  timeout for each member in UNREVOKED_PARTITIONS (``timers_after_load``);
* a regex resolution running in the old coordinator's executor is lost; the new one starts
  another on the next heartbeat (maybeUpdateRegularExpressions: "The group has unresolved
  regular expressions"), so ``coordinator.resolve_regexes`` stays enabled;
* the partition-epoch map (soft) is rebuilt from the compacted log: what KAFKA-16147's
  bookkeeping lost (``Group.epoch_map_lost``) is owned again;
* a write not yet committed when the coordinator moves is lost (CoordinatorRuntime fails its
  parked response with NOT_COORDINATOR and the new leader's log ends before it):
  ``lost_write`` is the group as it was before that write, and the log is compacted from it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

from .group import Group, new_group
from .records import ReplayError, diff, replay


def _none(group: Group) -> Group:
    return replace(new_group(group.group_id, group.partition_index), dead=True)


def compacted_log(group: Group) -> tuple:
    """``diff(no group, group)``: one record per key with its latest value, tombstones gone."""
    return diff(_none(group), group)


def failover(group: Group, log_prefix: tuple = (), lost_write: Optional[Group] = None
             ) -> tuple[Group, Optional[str]]:
    """(the group a new coordinator holds, the replay error or None). ``log_prefix``: records
    of the group written before the compacted ones (the replay must accept them first);
    ``lost_write``: the group before the last write, which was not committed."""
    written = group if lost_write is None else lost_write
    records = tuple(log_prefix) + compacted_log(written)
    try:
        return replay(records, _none(group)), None
    except ReplayError as e:      # Kafka: the partition fails to load; the group is gone
        return _none(group), str(e)


def timers_after_load(group: Group) -> tuple:
    """GroupMetadataManager#onLoaded for a consumer group: ("session_timer", member id) for
    every member, ("rebalance_timer", member id, member epoch) for each UNREVOKED member."""
    out: list = []
    for m in group.members:
        out.append(("session_timer", m.member_id))
        if m.state == "UNREVOKED":
            out.append(("rebalance_timer", m.member_id, m.epoch))
    return tuple(out)


__all__ = ["compacted_log", "failover", "timers_after_load"]

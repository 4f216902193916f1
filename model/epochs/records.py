"""What the records of both epoch protocols share: the target-assignment batch ``diff`` writes,
a leaving member's tombstones, and the tombstone checks ``replay`` makes.

The two protocols write the same record kinds under their own names (``ConsumerGroup...``,
``StreamsGroup...``) and GroupMetadataManager replays them by the same rules
(apache/kafka group-coordinator ``GroupMetadataManager.java``, the ``replay(...Key, ...Value)``
methods). ``kind`` below is the record names' prefix, as Kafka's messages spell it.
The groups are either protocol's ``Group``: ``group_id``, ``members``, ``member(id)``,
``target_assignment`` ((member id, value), ...) and ``target_assignment_epoch``.
"""
from __future__ import annotations

from typing import Any, Callable


class ReplayError(Exception):
    """A record Kafka's replay rejects (an IllegalStateException there: the coordinator
    fails to load the partition)."""


def leave_tombstones(gid: str, member_id: str, current: type, target: type, metadata: type) -> list:
    """A leaving member's tombstones in the order replay accepts: current assignment, target
    assignment member, member metadata (the member-metadata check needs the first two first)."""
    return [current(gid, member_id, None), target(gid, member_id, None), metadata(gid, member_id, None)]


def target_batch(before: Any, after: Any, after_ids: set[str], member: type, metadata: type,
                 value: Callable[[Any, Any], Any]) -> list:
    """The target assignment as one batch (TargetAssignmentBuilder): changed entries, tombstones
    for entries gone (a removed member's was written with its leave), the epoch record last.
    ``member`` / ``metadata``: the protocol's target-assignment record types; ``value(group, target)``
    its target-assignment member value."""
    gid, old, new = after.group_id, dict(before.target_assignment), dict(after.target_assignment)
    removed = {m.member_id for m in before.members} - after_ids
    batch: list = []
    for mid in sorted(set(old) | set(new)):
        if mid in new and (old.get(mid) != new[mid] or mid in removed):
            batch.append(member(gid, mid, value(after, new[mid])))
        elif mid not in new and mid not in removed:
            batch.append(member(gid, mid, None))
    if batch or before.target_assignment_epoch != after.target_assignment_epoch:
        batch.append(metadata(gid, after.target_assignment_epoch))
    return batch


def check_group_tombstone(g: Any, kind: str) -> None:
    """A group-metadata tombstone is rejected while members remain or the assignment epoch is not -1."""
    if g.members:
        raise ReplayError(f"Received a tombstone record to delete group {g.group_id} but the "
                          f"group still has {len(g.members)} members.")
    if g.target_assignment_epoch != -1:
        raise ReplayError(f"Received a tombstone record to delete group {g.group_id} but did not "
                          f"receive {kind}TargetAssignmentMetadataValue tombstone.")


def check_member_tombstone(g: Any, old: Any, leave_epoch: int, kind: str) -> None:
    """A member-metadata tombstone is rejected unless the member's current-assignment tombstone
    (epoch -1) and target-assignment tombstone came first."""
    if old.epoch != leave_epoch:
        raise ReplayError(f"Received a tombstone record to delete member {old.member_id} but did "
                          f"not receive {kind}CurrentMemberAssignmentValue tombstone.")
    if old.member_id in dict(g.target_assignment):
        raise ReplayError(f"Received a tombstone record to delete member {old.member_id} but did "
                          f"not receive {kind}TargetAssignmentMetadataValue tombstone.")


def check_target_tombstone(g: Any) -> None:
    """A target-assignment-metadata tombstone is rejected while target entries remain."""
    if g.target_assignment:
        raise ReplayError(f"Received a tombstone record to delete target assignment of {g.group_id} "
                          f"but the assignment still has {len(g.target_assignment)} members.")

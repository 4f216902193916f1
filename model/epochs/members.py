"""The member table of the coordinator's group, as both epoch protocols keep it.

``MemberTable`` is a base for a frozen dataclass with a ``members`` tuple sorted by member id
(``consumer_group.group.Group``, ``streams_group.group.Group``): it looks a member up by member id
or by instance id (static membership) and builds the group with one member added, replaced or
removed (Kafka's ``ConsumerGroup`` / ``StreamsGroup``: ``getOrMaybeCreateMember``, ``staticMember``,
``updateMember``, ``removeMember``).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional


class MemberTable:
    __slots__ = ()
    members: tuple

    def member(self, member_id: str) -> Optional[Any]:
        return next((m for m in self.members if m.member_id == member_id), None)

    def static_member(self, instance_id: str) -> Optional[Any]:
        """staticMember: the member holding ``instance_id`` (None: no member does)."""
        return next((m for m in self.members if m.instance_id == instance_id), None)

    def with_member(self, member: Any):
        others = [m for m in self.members if m.member_id != member.member_id]
        return replace(self, members=tuple(sorted(others + [member], key=lambda m: m.member_id)))

    def without_member(self, member_id: str):
        return replace(self, members=tuple(m for m in self.members if m.member_id != member_id))

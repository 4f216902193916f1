"""What the coordinator of both epoch protocols reads beside the group: the cluster's topics,
and a group id it holds as a group of another type."""
from __future__ import annotations

from typing import NamedTuple


class OtherGroup(NamedTuple):
    """A group id the coordinator holds as a group of another type (consumer, streams, share, classic)."""

    group_id: str
    group_type: str


class Cluster(NamedTuple):
    """The topics that exist: (name, partitions), sorted by name."""

    topics: tuple[tuple[str, int], ...] = ()

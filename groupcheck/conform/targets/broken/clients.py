"""Deliberately broken applications: listeners that get the callback contract wrong.

Each wraps the real consumer's callbacks (client.Listener) and names the property the
judge must flag for it. They exist to show the judge can fail: a self-test runs each
on the mock and expects exactly that property violated.
"""
from __future__ import annotations

from ..librdkafka.client import Listener


class SkipsRevoke(Listener):
    """Ignores on_revoke: keeps processing partitions librdkafka handed back, so the
    new owner is assigned partitions this member still owns."""
    swallow = "revoke"
    expected = "revoke_before_reassign"

    def on_revoke(self, partitions: set[int]) -> None:
        pass


class IgnoresLost(Listener):
    """Ignores on_lost: after being fenced it keeps its partitions and rejoins claiming
    them, while the group has given them to others."""
    swallow = "lost"
    expected = "lost_only_when_fenced"

    def on_lost(self, partitions: set[int]) -> None:
        pass


BROKEN = {"skips-revoke": SkipsRevoke, "ignores-lost": IgnoresLost}

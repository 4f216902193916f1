"""Deliberately wrong applications and a mis-ordered fake: the judge must flag each.

The listeners are the classic target's (``clients.py``), run here under the
consumer protocol. ``misordered`` is a fake observation stream (no client): a member
assigned a partition its previous owner has not revoked yet, then an epoch that goes
back, then an on_lost without any fence, all as ``judge`` sees events.
"""
from __future__ import annotations

from .clients import BROKEN  # noqa: F401 - the listeners, by name

EXPECTED = {"skips-revoke": "revoke_before_reassign", "ignores-lost": "callbacks_in_order"}


def misordered() -> list[dict]:
    """c1 owns {0,1}; c2 is assigned 1 before c1 revoked it; c2's epoch goes 5 -> 4; c1
    gets on_lost with no fence cause."""
    def cb(t, kind, member, parts, before, after, mid, epoch):
        return {"t": t, "kind": kind, "member": member, "partitions": parts, "member_id": mid, "generation": epoch,
                "owned_before": before, "owned_after": after}
    return [
        {"t": 0.0, "kind": "op", "op": "join", "args": {"member": "c1"}},
        cb(0.1, "assign", "c1", [0, 1], [], [0, 1], "A", 2),
        {"t": 0.2, "kind": "op", "op": "join", "args": {"member": "c2"}},
        cb(0.3, "assign", "c2", [1], [], [1], "B", 5),
        {"t": 0.4, "kind": "sample", "member": "c2", "member_id": "B", "generation": 4},
        cb(0.5, "lost", "c1", [0, 1], [0, 1], [], "A", 2),
    ]

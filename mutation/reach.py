"""``python -m mutation.reach``: what the consumer's reference scopes reach of the rules
some mutants change. A mutant of a rule whose trigger no reference scope reaches cannot
be killed by the main job, whatever the properties say; this names those triggers.

Counted per scope over the whole BFS (canonical states, the checker's bounds): the
fencing errors consumers receive (``fenced`` events by error), SyncGroup / Heartbeat
requests delivered with a generation other than the group's (by group state), and join
rounds whose members' subscriptions claim one partition twice (same or different
generations: where KIP-792's claim resolution and the withholding of contested
partitions matter).
"""
from __future__ import annotations

import sys
from collections import Counter

from groupcheck.protocols.consumer import reference_scopes
from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.state import COMPLETING
from groupcheck.model.consumer.step import canonical, within_bounds


def _duplicate_claims(group) -> str:
    subs = [m.subscription for m in group.members]
    for i, a in enumerate(subs):
        for b in subs[i + 1:]:
            if a.owned & b.owned:
                return "same-generation" if a.generation == b.generation else "different-generation"
    return ""


def census(scope) -> tuple[int, Counter]:
    seen = {canonical(scope, s) for s in MODEL.init_states(scope)}
    frontier, counts = list(seen), Counter()
    while frontier:
        nxt = []
        for s in frontier:
            for a in MODEL.actions(scope, s):
                if a.kind == "deliver":
                    req = s.consumers[a.slot].outbox[0]
                    if req.kind in ("SyncGroup", "Heartbeat") and req.generation != s.group.generation:
                        counts[f"stale-generation {req.kind} in {s.group.status}"] += 1
                t, events = MODEL.step(scope, s, a)
                for e in events:
                    if e.kind in ("fenced", "fatal"):
                        counts[f"{e.kind} {e.note}"] += 1
                if t.group.status == COMPLETING and s.group.status != COMPLETING:
                    dup = _duplicate_claims(t.group)
                    if dup:
                        counts[f"join round with a {dup} duplicate claim"] += 1
                t = canonical(scope, t)
                if t not in seen and within_bounds(scope, t):
                    seen.add(t)
                    nxt.append(t)
        frontier = nxt
    return len(seen), counts


def main() -> int:
    for name, scope in reference_scopes().items():
        n, counts = census(scope)
        print(f"{name} ({n:,} states): " + ("; ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "-"))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

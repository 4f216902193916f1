"""``can_settle``: from every reachable state, can the group still settle?

A safety claim cannot see a group that is stuck: a joining member nobody answers, a
rebalance that starts again and again. Heartbeats keep some action enabled, so there
is no deadlock either. This check asks the question a person would (CTL's AG EF): from
every state BFS reached, is some settled state reachable using only the protocol's own
steps, with no further fault or operation (``Model.fault_kinds``)? States BFS did not
expand (beyond ``within_bounds``) are given the benefit of the doubt: the search does not
know what follows them.

The graph is kept as integer ids and successor lists while BFS runs; the backward
search is linear in its edges.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class Graph:
    """The part of the BFS graph the check needs, keyed by small integer ids."""

    ids: dict = field(default_factory=dict)          # canonical key -> id
    succ: list[list[int]] = field(default_factory=list)   # id -> successors by a protocol step
    good: list[bool] = field(default_factory=list)  # settled, or not expanded (beyond the bounds)

    def id(self, key) -> int:
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.succ)
            self.succ.append([])
            self.good.append(False)
        return i


def stuck(graph: Graph) -> list[int]:
    """Ids of the states from which no good state is reachable, in id (BFS) order."""
    pred: list[list[int]] = [[] for _ in graph.succ]
    for i, nexts in enumerate(graph.succ):
        for j in nexts:
            pred[j].append(i)
    reach = list(graph.good)
    queue = deque(i for i, g in enumerate(reach) if g)
    while queue:
        j = queue.popleft()
        for i in pred[j]:
            if not reach[i]:
                reach[i] = True
                queue.append(i)
    return [i for i, ok in enumerate(reach) if not ok]

"""``can_settle``: from every reachable state, can the group still settle?

A safety claim cannot see a group that is stuck: a joining member nobody answers, a
rebalance that starts again and again. Heartbeats keep some action enabled, so there
is no deadlock either. This check asks the question a person would (CTL's AG EF): from
every state BFS reached, is some settled state reachable using only the protocol's own
steps, with no further fault or operation (``Model.fault_kinds``)? States BFS did not
expand (beyond ``within_bounds``) are given the benefit of the doubt: the search does not
know what follows them.

BFS keeps the graph compact while it runs (``Edges``: one flat array of successor
numbers); the backward search is linear in its edges.
"""
from __future__ import annotations

from array import array
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

    def successors(self, i: int) -> list[int]:
        return self.succ[i]


class Edges:
    """The graph as BFS builds it: states are numbered in the order BFS expands them,
    and ``expand(good)`` opens the next one; its successors by a protocol step are then
    appended to ``edges`` (numbers of states already seen or about to be kept)."""

    def __init__(self):
        self.good = bytearray()            # number -> settled, or not expanded (beyond the bounds)
        self.start = array("q", [0])       # number -> where its successors begin in edges
        self.edges = array("i")

    def expand(self, good: bool) -> None:
        if len(self.good):
            self.start.append(len(self.edges))
        self.good.append(good)

    def successors(self, i: int):
        end = self.start[i + 1] if i + 1 < len(self.start) else len(self.edges)
        return self.edges[self.start[i]:end]

    def first_of(self, states: list[int]) -> int:
        """The state of ``states`` that a graph numbering states as it meets them (each
        expanded state, then its successors) would number first."""
        wanted, met = set(states), bytearray(len(self.good))
        for i in range(len(self.good)):
            for j in (i, *self.successors(i)):
                if not met[j]:
                    met[j] = 1
                    if j in wanted:
                        return j
        raise ValueError("no such state")




def stuck(graph: Graph | Edges) -> list[int]:
    """Numbers of the states from which no good state is reachable, in number (BFS) order."""
    n = len(graph.good)
    # predecessors, compact: those of j are pred[first[j]:first[j + 1]]
    first = array("q", bytes(8 * (n + 1)))
    for i in range(n):
        for j in graph.successors(i):
            first[j + 1] += 1
    for j in range(n):
        first[j + 1] += first[j]
    fill = array("q", first)
    pred = array("q", bytes(8 * first[n]))
    for i in range(n):
        for j in graph.successors(i):
            pred[fill[j]] = i
            fill[j] += 1
    reach = bytearray(graph.good)
    queue = deque(i for i in range(n) if reach[i])
    while queue:
        j = queue.popleft()
        for i in pred[first[j]:first[j + 1]]:
            if not reach[i]:
                reach[i] = True
                queue.append(i)
    return [i for i in range(n) if not reach[i]]

r"""Liveness over the BFS graph: ``can_settle`` (AG EF settled) and
``settles_under_fairness`` (once faults stop, the group settles, under weak fairness).

A safety claim cannot see a group that is stuck: a joining member nobody answers, a
rebalance that starts again and again. Heartbeats keep some action enabled, so there
is no deadlock either.

``can_settle`` asks the question a person would (CTL's AG EF): from every state BFS
reached, is some settled state reachable using only the protocol's own steps, with no
further fault or operation (``Model.fault_kinds``)?

``settles_under_fairness`` is the real claim: every run in which faults stop and no
client's steps are starved converges. In TLA+, with ``Step(k, m)`` the non-fault action
of kind ``k`` for client slot ``m`` (-1: the coordinator) and ``Converged`` the model's
``converged`` (else ``settled``)::

    Fairness == \A m \in Slots, k \in Kinds : WF_vars(Step(k, m))
    Spec     == Init /\ [][Next]_vars /\ Fairness
    SettlesOnceFaultsStop == <>[][~FaultStep]_vars => []<>Converged

Every fault spends the finite fault budget, so every behaviour satisfies the premise
and TLC may check ``[]<>Converged`` alone (after the last fault the group converges,
and again after any later step that unsettles it).

*Fairness*: weak fairness per action instance, an instance being one kind of non-fault
step (every kind outside ``Model.fault_kinds``) for one client slot (``Action.slot``;
-1 is one instance, the coordinator's). Every non-fault kind, not ``progress_kinds``
alone: the classic consumer's heartbeats and timers are how it learns of a rebalance,
and without fairness on them 9 of its 10 reference scopes stop at a state only a
heartbeat leads out of. Per (kind, slot) rather than per kind, because that is what
Kafka gives: each client runs its own thread, so one member's heartbeats never stand
for another's; ``WF_vars(\E m: A(m))`` would let one member starve while another keeps
taking A, and report the starved member as a stuck group.

*The goal* is ``Model.converged``: settled but for heartbeats in flight. In a fair run
heartbeats go on forever, and two members heartbeating in turn keep the wire busy, so a
quiet ``settled`` state may never come (every reference scope of the three heartbeating
protocols fails that way). States beyond ``within_bounds`` (not expanded) get the
benefit of the doubt, as converged ones: no cycle goes through them.

*The check* (a fair cycle of non-fault steps through states that have not converged is
a counterexample): over the graph BFS built (its edges by non-fault steps, each
labelled with its instance), Tarjan's algorithm (iterative) finds the strongly
connected components of the states not converged. Under weak fairness (justice) a
component C holds a fair cycle if and only if every instance enabled at every state of
C is taken by an edge inside C: a cycle through every state and every edge of C is
then fair (an instance disabled somewhere in C is disabled on it), and any fair cycle
lies in one component whose "enabled everywhere" instances it must take. So no
refinement is needed; strong fairness (compassion) would need the Emerson-Lei
refinement that removes states and recomputes components (Emerson and Lei, "Modalities
for model checking", 1987; Lichtenstein and Pnueli, POPL 1985, for the weak case). A
component of one state and no self-loop is a run that stops there (TLA+'s stuttering):
fair when nothing is enabled (``can_settle`` reports such states first when the goal is
``settled``). One pass: linear in states and edges. An instance is enabled at a state
when it has a step there, self-loops included: a self-loop taken counts as taken, the
same verdict as TLA+'s ``<<A>>_vars`` gives, since a component holding a self-loop of A
takes A.

*Symmetry*: fairness is per slot, and a symmetry-reduced graph names each state's slots
after its class's representative, so one member's step looks like another's (a spurious
lasso on streams-group ``session-timeout``); ``checker.bfs(fairness=True)`` therefore
searches without the reduction.

*The counterexample* is a lasso: the shortest path to the first fair component's first
state (the prefix; ``_Search.path_to``), then a cycle inside the component that visits,
for each instance enabled somewhere in it, a state where it is disabled or an edge
taking it (``cycle``). ``groupcheck check`` prints it as a story ("the cycle repeats
from step k") and writes it as ITF with ``"loop": k``; ``judge_lasso`` re-judges it for
``groupcheck replay``.

BFS keeps the graph compact while it runs (``Edges``: one flat array of successor
numbers, one of labels); both checks are linear in its edges.
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
    labels: list[list[int]] = field(default_factory=list)  # id -> each successor's fairness instance (-1: none)

    def id(self, key) -> int:
        i = self.ids.get(key)
        if i is None:
            i = self.ids[key] = len(self.succ)
            self.succ.append([])
            self.good.append(False)
            self.labels.append([])
        return i

    def add(self, src, dst, label: int = -1) -> None:
        """An edge ``src -> dst`` (keys) by a step of fairness instance ``label``."""
        i, j = self.id(src), self.id(dst)
        self.succ[i].append(j)
        self.labels[i].append(label)

    @property
    def goal(self) -> list[bool]:
        """What settles_under_fairness aims at: here the same as ``good``."""
        return self.good

    def successors(self, i: int) -> list[int]:
        return self.succ[i]

    def labels_of(self, i: int) -> list[int]:
        return self.labels[i] if i < len(self.labels) and self.labels[i] else [-1] * len(self.succ[i])


class Edges:
    """The graph as BFS builds it: states are numbered in the order BFS expands them,
    and ``expand(good)`` opens the next one; its successors by a protocol step are then
    appended to ``edges`` (numbers of states already seen or about to be kept)."""

    def __init__(self):
        self.good = bytearray()            # number -> settled, or not expanded (beyond the bounds)
        self.goal = bytearray()            # number -> converged (``Model.converged``), settled, or not expanded
        self.start = array("q", [0])       # number -> where its successors begin in edges
        self.edges = array("i")
        self.labels = array("h")           # per edge: its fairness instance, -1 for none

    def expand(self, good: bool, goal: bool | None = None) -> None:
        if len(self.good):
            self.start.append(len(self.edges))
        self.good.append(good)
        self.goal.append(good if goal is None else good or goal)

    def add(self, j: int, label: int) -> None:
        """An edge from the state expanded last to ``j``, by a step of instance ``label``."""
        self.edges.append(j)
        self.labels.append(label)

    def successors(self, i: int):
        end = self.start[i + 1] if i + 1 < len(self.start) else len(self.edges)
        return self.edges[self.start[i]:end]

    def labels_of(self, i: int):
        end = self.start[i + 1] if i + 1 < len(self.start) else len(self.edges)
        return self.labels[self.start[i]:end]

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


# ---------------------------------------------------------------- settles_under_fairness

@dataclass
class Unfair:
    """What ``fair_cycles`` found: the fair components, each a list of state numbers
    (their first state, in number order, first), and how many states they hold."""

    components: list[list[int]]

    @property
    def states(self) -> int:
        return sum(len(c) for c in self.components)


def _enabled(graph, v: int) -> set[int]:
    return {a for a in graph.labels_of(v) if a >= 0}


def components(graph) -> list[list[int]]:
    """The strongly connected components of the graph restricted to the states that are
    not its goal (expanded, not converged): Tarjan's algorithm, iterative (no recursion
    limit on a million states)."""
    n, good = len(graph.goal), graph.goal
    index, low = array("i", [-1]) * n, array("i", [0]) * n
    on_stack, stack, out, counter = bytearray(n), [], [], 0
    for root in range(n):
        if good[root] or index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = 1
        work = [(root, iter(graph.successors(root)))]
        while work:
            v, succ = work[-1]
            for w in succ:
                if good[w]:
                    continue
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = 1
                    work.append((w, iter(graph.successors(w))))
                    break
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                work.pop()
                if work and low[v] < low[work[-1][0]]:
                    low[work[-1][0]] = low[v]
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack[w] = 0
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def is_fair(graph, comp: list[int]) -> bool:
    """Does component ``comp`` hold a fair cycle: is every instance enabled at all its
    states taken by an edge inside it? (One state without a self-loop: the run stops
    there, fair when no instance is enabled.)"""
    inside = set(comp)
    everywhere: set[int] | None = None
    taken: set[int] = set()
    for v in comp:
        labels = graph.labels_of(v)
        everywhere = _enabled(graph, v) if everywhere is None else everywhere & _enabled(graph, v)
        for w, a in zip(graph.successors(v), labels):
            if w in inside and a >= 0:
                taken.add(a)
    return not (everywhere - taken)


def fair_cycles(graph) -> Unfair:
    """Every component of unsettled states that holds a fair cycle, in the order of
    their first states (the first is nearest the initial states: BFS numbers by depth)."""
    found = [c for c in components(graph) if is_fair(graph, c)]
    return Unfair(sorted(found))


def _route(graph, start: int, inside: set[int], goal) -> list[int]:
    """The shortest path inside ``inside`` from ``start`` to a state ``goal`` accepts
    (``goal(v)``: True), as the states after ``start``; [] if ``start`` is one."""
    if goal(start):
        return []
    parent = {start: -1}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in graph.successors(v):
            if w in inside and w not in parent:
                parent[w] = v
                if goal(w):
                    path = [w]
                    while parent[path[-1]] != start:
                        path.append(parent[path[-1]])
                    return path[::-1]
                queue.append(w)
    raise ValueError("no route inside the component")


def cycle(graph, comp: list[int]) -> list[tuple[int, int]]:
    """A fair cycle through ``comp`` (a fair component) from its first state: the states
    after it, back to it ([] when the run stops at it), each with the instance its step
    must be (-1: any step to it). For each instance enabled somewhere in ``comp`` it
    visits a state where that instance is disabled or takes an edge labelled with it,
    greedily, the nearest first."""
    inside, entry = set(comp), comp[0]
    owed = set().union(*(_enabled(graph, v) for v in comp))
    taken_in = {v: {a for w, a in zip(graph.successors(v), graph.labels_of(v)) if w in inside and a >= 0}
                for v in comp}
    if len(comp) == 1 and not taken_in[entry] and entry not in graph.successors(entry):
        return []               # the run stops here (fair: nothing is enabled)
    here, out = entry, []
    owed -= owed - _enabled(graph, entry)
    while owed:
        path = _route(graph, here, inside, lambda v: bool((owed - _enabled(graph, v)) or (taken_in[v] & owed)))
        for v in path:
            owed -= owed - _enabled(graph, v)
        out += [(v, -1) for v in path]
        here = path[-1] if path else here
        ready = taken_in[here] & owed
        if ready:          # take an edge of an instance still owed
            a = min(ready)
            w = next(w for w, b in zip(graph.successors(here), graph.labels_of(here)) if b == a and w in inside)
            owed.discard(a)
            owed -= owed - _enabled(graph, w)
            out.append((w, a))
            here = w
    if not out:             # nothing owed: any edge inside, then back
        here = next(w for w in graph.successors(entry) if w in inside)
        out.append((here, -1))
    if here != entry:
        out += [(v, -1) for v in _route(graph, here, inside, lambda v: v == entry)]
    return out


def lasso(model, scope, path: list[int], entry, nodes: list[tuple[int, int]], number_of,
          label_of) -> tuple[list[int], int]:
    """The lasso as a path ``[init index, action index, ...]`` and the index of the state
    its cycle starts from: ``path`` leads to ``entry`` (a concrete state), and the cycle
    follows ``nodes`` (``cycle``'s state numbers and instances; ``number_of(state)`` gives
    a state's number, ``label_of(action)`` an action's instance), taking at each state the
    first non-fault action of the instance asked that leads to the next number. The
    search had no symmetry reduction, so the cycle ends on ``entry`` itself."""
    faults, loop = frozenset(model.fault_kinds), len(path) - 1
    out, state = list(path), entry
    for target, label in nodes:
        for index, action in enumerate(model.actions(scope, state)):
            if action.kind in faults or label >= 0 and label_of(action) != label:
                continue
            nxt, _ = model.step(scope, state, action)
            if number_of(nxt) == target:
                out.append(index)
                state = nxt
                break
        else:
            raise ValueError(f"no step leads to state {target}")
    return out, loop


def judge_lasso(model, scope, states: list, actions: list, loop: int) -> str | None:
    """Why the lasso ``states`` (``actions[i]`` led to ``states[i + 1]``) whose cycle starts at
    ``states[loop]`` is a counterexample to settles_under_fairness, or None if it is not:
    its last state is ``states[loop]`` again, the cycle takes no fault, never reaches the
    goal (``Model.converged``, else ``settled``), and takes every (kind, slot) of a
    non-fault step that is enabled at all its states (a cycle of no steps: none is)."""
    goal = model.converged or model.settled
    if goal is None:
        return None
    faults = frozenset(model.fault_kinds)
    cyc_states, cyc_actions = states[loop:-1] or states[loop:], actions[loop:]
    if states[-1] != states[loop]:
        return None
    if any(a.kind in faults for a in cyc_actions):
        return None
    if any(goal(scope, s) or model.settled(scope, s) or not model.within_bounds(scope, s) for s in cyc_states):
        return None
    taken = {(a.kind, a.slot) for a in cyc_actions}
    everywhere = None
    for s in cyc_states:
        here = {(a.kind, a.slot) for a in model.actions(scope, s) if a.kind not in faults}
        everywhere = here if everywhere is None else everywhere & here
    starved = sorted(everywhere - taken)
    if starved:
        return None
    what = f"the cycle of {len(cyc_actions)} steps from step {loop}" if cyc_actions else f"the stop at step {loop}"
    return f"{what} repeats forever without settling, fair to every step enabled throughout"

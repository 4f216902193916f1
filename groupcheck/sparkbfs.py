"""Exhaustive BFS on Apache Spark (``groupcheck check --engine spark``).

Level-synchronous breadth-first search: the states of one depth (the frontier) and
every state seen so far (the visited set) are RDDs keyed, and hash-partitioned, by a
stable 64-bit fingerprint of the canonical state (``fingerprint``). Each level

1. expands the frontier in parallel (``_expand``): the sometimes-claims (witnesses) at
   each state, the deadlock check, and every successor with the transition claims
   checked on every transition, to states seen before too, as ``checker.bfs`` does;
2. keeps one successor per fingerprint (``reduceByKey``: the one reached by the smallest
   (parent fingerprint, action index), with its concrete state), anti-joins the visited
   set (``subtractByKey``) and checks the state claims on the new states only;
3. unions the new states into the visited set, which maps each fingerprint to the
   (parent fingerprint, action index) it was first reached by: a shortest path is
   rebuilt from it, one partition read per step.

The new states and the visited set are persisted and locally
checkpointed (``localCheckpoint``: lineage stays one level long; the blocks live on the
executors, so a lost executor fails the search rather than recomputing it). Spark does
the scheduling and the shuffles; nothing here distributes work by hand.

The search stops after the first level with a violation. Which violation of that level
is reported is deterministic (a deadlock at the level expanded, then the transition with
the smallest (parent fingerprint, action index); at one transition a state claim before
a transition claim, as ``Claims.broken``) but not necessarily the one ``checker.bfs``
meets first; its depth is the same, the shallowest. The path is rebuilt from the parent
links and replayed through the model (``model.core.replay``), which must break a claim
at the same step (the claim replay finds first there is the one reported: a transition
other than the one kept for a new state may break a transition claim where the new
state also breaks a state claim, which ``model.core`` orders first). ``can_settle`` (the checker's AG EF settled check) needs the
whole graph of protocol steps and is not checked here: it is left out of
``Report.checked``. Limits (``max_states``, the ``Budget``) are looked at between levels,
so a cut search may hold more than ``max_states`` states (the whole last level).

Workers import ``groupcheck`` and ``model`` themselves (the states are NamedTuples of the
model's modules): with a local master the driver's ``PYTHONPATH`` is passed on; a
cluster needs groupcheck installed on its workers.
"""
from __future__ import annotations

import hashlib
import io
import pickle
import time
from typing import Callable

from . import checker
from .checker import Budget, Claims, Report, Violation
from .sparksession import BadMaster, start  # noqa: F401 - BadMaster: what session() raises

NONE = -1            # the parent fingerprint of an initial state


def fingerprint(canonical) -> int:
    """A 64-bit digest of a canonical state that every process computes alike (``hash()``
    is salted per process): the models' canonical forms are tuples of ints, strings,
    booleans and None, pickled without the memo (``fast``), so that equal values give
    equal bytes whichever objects they share (a state rebuilt by unpickling shares
    differently from one ``step`` built)."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=5)
    pickler.fast = True
    pickler.dump(canonical)
    return int.from_bytes(hashlib.blake2b(buf.getvalue(), digest_size=8).digest(), "big")


# -- on the workers ---------------------------------------------------------------------

_CONTEXTS: dict = {}


def _context(ctx: tuple):
    """(model, scope, claims, key) for ``ctx`` = (protocol name, scope as JSON, symmetry),
    built once per Python worker."""
    found = _CONTEXTS.get(ctx)
    if found is None:
        import json

        from .protocols import get
        name, scope_json, symmetry = ctx
        model = get(name).model
        from .api.custom import trust_scope
        d = json.loads(scope_json)
        trust_scope(d)            # the driver's own scope, checked there
        scope = model.view.scope_from_dict(d)
        canonical = model.canonical
        key = (lambda s: fingerprint(canonical(scope, s))) if symmetry else fingerprint
        found = _CONTEXTS[ctx] = (model, scope, Claims(model), key)
    return found


def _expand(ctx: tuple, acc, rows):
    """Expand a partition of the frontier: yield (successor fingerprint, (parent
    fingerprint, action index, successor)) for every transition; add to ``acc`` the
    witnesses met, the transitions taken, the smallest deadlocked fingerprint and the
    smallest transition that breaks a transition claim."""
    model, scope, claims, key = _context(ctx)
    step, actions, within, terminal_ok = model.step, model.actions, model.within_bounds, model.is_terminal_ok
    witnessed, transitions, deadlock, broken = set(), 0, None, None
    for fp, state in rows:
        for name, check in claims.sometimes:
            if name not in witnessed and check(scope, state) is not None:
                witnessed.add(name)
        if not within(scope, state):
            continue
        enabled = actions(scope, state)
        if not enabled and not terminal_ok(scope, state):
            deadlock = fp if deadlock is None else min(deadlock, fp)
            continue
        for index, action in enumerate(enabled):
            nxt, events = step(scope, state, action)
            transitions += 1
            if broken is None or (fp, index) < broken[:2]:
                found = claims.broken(scope, state, action, nxt, events, new=False)
                if found is not None:
                    broken = (fp, index, 1, *found)
            yield key(nxt), (fp, index, nxt)
    acc.add((frozenset(witnessed), transitions, deadlock, broken))


def _smaller(a, b):
    """The successor kept for a fingerprint: the one reached by the smallest (parent
    fingerprint, action index)."""
    return a if a[:2] <= b[:2] else b


def _check_new(ctx: tuple, acc, rows):
    """The state claims on a partition of new states (passed through unchanged); the
    smallest breaking one goes to ``acc``."""
    model, scope, claims, _ = _context(ctx)
    broken = None
    for row in rows:
        parent, index, state = row[1]
        if broken is None or (parent, index) < broken[:2]:
            found = claims.broken(scope, None, None, state, ())
            if found is not None:
                broken = (parent, index, 0, *found)
        yield row
    if broken is not None:
        acc.add((frozenset(), 0, None, broken))


def _link(value):
    return value[0], value[1]


def _state(value):
    return value[2]


# -- on the driver ----------------------------------------------------------------------

def _least(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def _accumulator(sc):
    from pyspark.accumulators import AccumulatorParam

    class Level(AccumulatorParam):
        def zero(self, value):
            return (frozenset(), 0, None, None)

        def addInPlace(self, a, b):
            return (a[0] | b[0], a[1] + b[1], _least(a[2], b[2]), _least(a[3], b[3]))

    return sc.accumulator((frozenset(), 0, None, None), Level())


def session(master: str = "local[*]"):
    """The active SparkSession, or a new one on ``master`` (``BadMaster``, one line, when
    Spark cannot run there; ``groupcheck.sparksession``). The web UI is off."""
    return start(master, "groupcheck-bfs", {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                                            "spark.python.worker.reuse": "true"})


def _keep(rdd):
    """``rdd`` persisted and marked for a local checkpoint (done by the next job that
    computes it). Mark an RDD before deriving others from it, or they recompute it."""
    from pyspark import StorageLevel
    return rdd.persist(StorageLevel.MEMORY_AND_DISK).localCheckpoint() or rdd


def _materialize(*rdds) -> int:
    """Compute ``rdds`` (each ``_keep``) in one job; the number of rows they hold together."""
    return rdds[0].context.union(list(rdds)).count()


def spark_bfs(protocol_name: str, scope_dict: dict, *, master: str = "local[*]", partitions: int | None = None,
              max_states: int | None = None, budget: Budget | None = None,
              progress: Callable[[int, int], None] | None = None, symmetry: bool = True) -> Report:
    """BFS of ``protocol_name`` over the JSON scope ``scope_dict`` on Spark; a
    ``checker.Report`` with the fields ``checker.bfs`` fills (``can_settle`` not checked).
    ``partitions``: of the frontier and the visited set (default: Spark's default
    parallelism, at least 2). ``progress(states, depth)`` is called after each level."""
    import json

    started = time.perf_counter()
    budget = budget or Budget()
    spark = session(master)
    sc = spark.sparkContext
    parts = partitions or max(2, sc.defaultParallelism)
    ctx = (protocol_name, json.dumps(scope_dict, sort_keys=True), symmetry)
    model, scope, claims, key = _context(ctx)
    report = Report(model.name, "bfs", checked=list(claims.checked),
                    witnessed={name: False for name, _ in claims.sometimes})

    # level 0: the initial states, told apart and checked on the driver
    rows, seen, broken = [], set(), None
    for i, init in enumerate(model.init_states(scope)):
        fp = key(init)
        if fp in seen:
            continue
        seen.add(fp)
        rows.append((fp, (NONE, i, init)))
        found = claims.broken(scope, None, None, init, ())
        if found is not None and broken is None:
            broken = (NONE, i, 0, *found)
    new = _keep(sc.parallelize(rows, parts).partitionBy(parts))
    visited = _keep(new.mapValues(_link))
    _materialize(new, visited)
    states, depth, deadlock = len(rows), 0, None
    report.states = states
    if progress is not None:
        progress(states, depth)

    while broken is None and states:
        spent = budget.spent()
        if max_states is not None and report.states >= max_states:
            report.cut = "max-states"
        elif spent is not None:
            report.cut = spent
        if report.cut is not None:
            break
        acc = _accumulator(sc)
        frontier = new.mapValues(_state)
        reps = (frontier.mapPartitions(lambda it, a=acc: _expand(ctx, a, it))
                .reduceByKey(_smaller, parts))
        fresh = _keep(reps.subtractByKey(visited, parts)
                      .mapPartitions(lambda it, a=acc: _check_new(ctx, a, it), preservesPartitioning=True))
        grown = _keep(visited.union(fresh.mapValues(_link)))
        total = _materialize(fresh, grown)
        before = report.states
        states = (total - before) // 2       # fresh + (visited before + fresh)
        witnessed, transitions, deadlock, broken = acc.value
        for name in witnessed:
            report.witnessed[name] = True
        report.transitions += transitions
        for old in (new, visited):
            old.unpersist()
        new, visited = fresh, grown
        report.states = before + states
        if deadlock is not None:
            broken = None        # the shallower violation: a state of the level expanded
            break
        if states:
            depth += 1
            report.depth = depth
        if progress is not None:
            progress(report.states, depth)

    def path_to(fp: int) -> list[int]:
        """Back from ``fp`` to an initial state through the visited set's parent links,
        one partition read per step (the set is partitioned by portable_hash, which is
        hash() for an int; RDD.lookup would insist on PYTHONHASHSEED)."""
        out = []
        while fp != NONE:
            part = hash(fp) % visited.getNumPartitions()
            fp, index = sc.runJob(visited, lambda rows, fp=fp: [v for k, v in rows if k == fp], [part])[0]
            out.append(index)
        return out[::-1]

    if deadlock is not None:
        report.violation = Violation("no_deadlock", "no action is enabled", path_to(deadlock), "deadlock")
    elif broken is not None:
        parent, index, _, name, message = broken
        path = [index] if parent == NONE else path_to(parent) + [index]
        report.violation = Violation(name, message, path, checker._kind(model, name))
    if report.violation is not None:
        report.violation = _confirm(model, scope, report.violation)
        report.depth = len(report.violation.path) - 1
    for rdd in (new, visited):
        rdd.unpersist()
    report.collision = checker.collision_probability(report.states)
    report.complete = report.cut is None and report.violation is None
    report.seconds = time.perf_counter() - started
    return report


def _confirm(model, scope, violation: Violation) -> Violation:
    """The rebuilt path replayed must break a claim at its last step, and none before;
    the violation as replay finds it (the first claim broken there, ``model.core``'s order)."""
    from .regression import violation_along
    found = violation_along(model, scope, violation.path)
    step = len(violation.path) - 1
    if found is None or found.step != step:
        got = f"{found.property} at step {found.step}" if found else "nothing"
        raise RuntimeError(f"spark BFS: the rebuilt path {violation.path} replays to {got}, "
                           f"not {violation.property} at step {step}")
    if found.property == violation.property:
        return violation
    return Violation(found.property, found.message, violation.path, checker._kind(model, found.property))

"""The TLA+ spec held against the Python model: two formalisations of one KIP, each
checking the other.

At each pinned tiny scope (a manifest ``config``) both sides are explored without
symmetry reduction: the spec's reachable states (its Init and Next, by the evaluator)
must be exactly the model's states mapped onto the spec's variables, every model
transition must satisfy the spec action named after its kind, and every invariant and
witness must give the model's verdict at every state. Along walks of larger scopes and
along each known bug's shortest counterexample, every step must be a step of the spec
(of the variant's next for a bug), and the bug's last state must break the spec's
invariant of the same name."""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from groupcheck.model.core import Model, replay

from .link import camel
from .manifest import Bundle, Config, OutsideSpec, Variant
from .tla_eval import Spec, SpecError

SHOWN = 5                 # differences shown per kind; the count says how many there were
MAX_STATES = 200_000      # a config is a tiny scope: past this, the cross-check stops and says so


# ---------------------------------------------------------------- loading specs

_SPECS: dict[tuple, Spec] = {}


def load_spec(bundle: Bundle, scope, module: str | None = None, next: str = "Next") -> Spec:
    """The spec (or a variant ``module``) with the constants of ``scope``; cached."""
    constants = bundle.constants(scope)
    files = tuple((f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in sorted(bundle.folder.glob("*.tla")))
    key = (str(bundle.folder), files, module or bundle.module, next, repr(sorted(constants.items())))
    if key not in _SPECS:
        _SPECS[key] = Spec.load(bundle.folder / f"{module or bundle.module}.tla", constants=constants,
                                init="Init", next=next)
    return _SPECS[key]


def as_state(spec: Spec, bundle: Bundle, scope, state) -> Any:
    """A model state as a spec state, through the manifest's mapping."""
    return spec.state(bundle.variables(scope, state))


# ---------------------------------------------------------------- the two graphs

@dataclass
class Graph:
    """States reached from the initial ones, in BFS order, with the step that first
    reached each (None for an initial state)."""

    order: list
    parent: dict                  # state -> (previous state, label) | None
    edges: int = 0
    cut: bool = False

    def path(self, state) -> list:
        """The labels of the shortest route to ``state``."""
        labels = []
        while self.parent[state] is not None:
            state, label = self.parent[state]
            labels.append(label)
        return labels[::-1]


def _explore(inits: Iterable, successors: Callable, expand: Callable[[Any], bool], limit: int,
             on_edge: Callable | None = None) -> Graph:
    graph = Graph([], {})
    queue = deque()
    for s in inits:
        if s not in graph.parent:
            graph.parent[s] = None
            graph.order.append(s)
            queue.append(s)
    while queue:
        s = queue.popleft()
        if not expand(s):
            continue
        for label, t in successors(s):
            graph.edges += 1
            if on_edge is not None:
                on_edge(s, label, t)
            if t not in graph.parent:
                if len(graph.order) >= limit:
                    graph.cut = True
                    return graph
                graph.parent[t] = (s, label)
                graph.order.append(t)
                queue.append(t)
    return graph


def model_graph(model: Model, scope, limit: int = MAX_STATES, on_edge=None) -> Graph:
    """The model's BFS without symmetry: states are told apart whole. States outside the
    scope's bounds are reached but not expanded, as in ``groupcheck check``. Labels are
    (action, events)."""
    def successors(s):
        for a in model.actions(scope, s):
            t, events = model.step(scope, s, a)
            yield (a, events), t
    return _explore(model.init_states(scope), successors, lambda s: model.within_bounds(scope, s), limit, on_edge)


def spec_graph(spec: Spec, constraint: str | None, limit: int = MAX_STATES, successors=None) -> Graph:
    """The spec's reachable states: Init, then Next; a state where the ``constraint``
    (TLC's CONSTRAINT) is false is reached but not expanded, as the model's BFS keeps a
    state past its bounds (TLC does not count such a state: ``check_config`` counts both
    ways). ``successors``: the spec's, memoised by the caller."""
    expand = (lambda s: spec.holds(constraint, s)) if constraint else (lambda s: True)
    return _explore(spec.init_states(), successors or spec.successors, expand, limit)


# ---------------------------------------------------------------- reports

@dataclass
class Report:
    """What one cross-check found. ``problems`` empty: the two sides agree."""

    title: str
    problems: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, kind: str, items: list[str]) -> None:
        """Up to SHOWN problems of one kind, then how many more there were."""
        self.problems += items[:SHOWN]
        if len(items) > SHOWN:
            self.problems.append(f"... and {len(items) - SHOWN} more {kind}")


def _differing(spec: Spec, a, b) -> list[str]:
    return [v for v in spec.variables if a[v] != b[v]]


def _nearest(spec: Spec, state, others: Iterable) -> tuple[Any, list[str]] | None:
    best = None
    for o in others:
        d = _differing(spec, state, o)
        if best is None or len(d) < len(best[1]):
            best = (o, d)
            if len(d) <= 1:
                break
    return best


def _show_value(value) -> str:
    from .values import show
    text = show(value)
    return text if len(text) <= 300 else text[:297] + "..."


def _explain(spec: Spec, state, others, route: str) -> str:
    near = _nearest(spec, state, others)
    if near is None:
        return route
    other, fields = near
    detail = "; ".join(f"{v} = {_show_value(state[v])} (nearest on the other side: {_show_value(other[v])})"
                       for v in fields[:3])
    return f"{route}; differs from the nearest state of the other side in {', '.join(fields)}: {detail}"


# ---------------------------------------------------------------- the cross-checks

def check_config(bundle: Bundle, config: Config, limit: int = MAX_STATES, variant: Variant | None = None) -> Report:
    """Reachable states, transitions, invariants and witnesses at one pinned scope (of a
    known bug's ``variant`` module: then any action of its next may take a step)."""
    started = time.perf_counter()
    model, scope = bundle.model, config.scope
    report = Report(f"{bundle.protocol.name} {config.name}")
    spec = load_spec(bundle, scope, variant.module, variant.next) if variant else load_spec(bundle, scope)

    mapped: dict = {}              # model state -> spec state
    def to_spec(s):
        if s not in mapped:
            mapped[s] = as_state(spec, bundle, scope, s)
        return mapped[s]

    unsatisfied: list[str] = []
    broken: dict[str, str] = {}             # claims both sides find broken at this scope
    names = set(spec.action_names)

    step_claims = _linked_steps(bundle, spec)
    wrong_steps: list[str] = []
    memo: dict = {}                         # spec state -> its (label, successor) steps: list, set

    def steps(u) -> frozenset:
        """Every step of the spec's next from ``u``, computed once for the edges out of it and
        for the spec's own exploration."""
        if u not in memo:
            found = spec.successors(u)
            memo[u] = (found, frozenset(found))
        return memo[u][1]

    def successors(u) -> list:
        steps(u)
        return memo[u][0]

    def on_edge(s, label, t):
        action, events = label
        for prop in step_claims:
            says = prop.check(scope, s, action, t, events)
            holds = spec.holds_step(prop.name, to_spec(s), to_spec(t))
            if (says is None) != holds:
                wrong_steps.append(f"step claim {prop.name} on {model.view.describe_action(scope, s, action)}: the model "
                                   f"says {'it holds' if says is None else repr(says)}, the spec "
                                   f"{'TRUE' if holds else 'FALSE'}")
            elif says is not None:
                broken.setdefault(prop.name, says)
        name = camel(action.kind)
        if variant is not None:
            if not any(u == to_spec(t) for _, u in steps(to_spec(s))):
                unsatisfied.append(f"{model.view.describe_action(scope, s, action)}: not a step of {variant.next}")
            return
        if name not in names:
            unsatisfied.append(f"the model takes {action.kind} ({model.view.describe_action(scope, s, action)}), "
                               f"which the spec has no action {name} for")
            return
        if (name, to_spec(t)) not in steps(to_spec(s)):
            by = [n for n, u in steps(to_spec(s)) if u == to_spec(t)]
            also = f"; the step satisfies {', '.join(sorted(set(by)))} instead" if by else ""
            unsatisfied.append(f"{model.view.describe_action(scope, s, action)}: the step does not satisfy {name}{also}")

    mg = model_graph(model, scope, limit, on_edge)
    report.figures["model states"] = len(mg.order)
    report.figures["transitions"] = mg.edges
    if mg.cut:
        report.problems.append(f"the model has over {limit:,} states at {config.name}: not a tiny scope")
        return report
    report.add("steps that are not the named spec action", unsatisfied)
    report.add("step-claim verdicts that differ", wrong_steps)

    images: dict = {}
    clashes = []
    for s in mg.order:
        img = to_spec(s)
        if img in images and len(clashes) < SHOWN:
            clashes.append(f"two model states map to one spec state (the mapping must keep every field): "
                           f"{model.view.describe_state(scope, images[img]) or images[img]!s} and "
                           f"{model.view.describe_state(scope, s) or s!s}")
        images.setdefault(img, s)
    report.add("clashes", clashes)

    sg = spec_graph(spec, bundle.constraint, limit, successors)
    report.figures["spec states"] = len(sg.order)
    if sg.cut:
        report.problems.append(f"the spec has over {limit:,} states at {config.name}")
        return report
    inits = {to_spec(s) for s in model.init_states(scope)}
    if inits != set(spec.init_states()):
        report.problems.append(f"Init: the spec has {len(spec.init_states())} initial state(s), the model {len(inits)}"
                               f" ({len(inits - set(spec.init_states()))} of the model's are not the spec's)")
    only_spec = [t for t in sg.order if t not in images]
    only_model = [s for s in mg.order if to_spec(s) not in sg.parent]
    report.add("states only the spec reaches", [
        _explain(spec, t, images, f"only the spec reaches a state, by {' -> '.join(sg.path(t)) or 'Init'}")
        for t in only_spec[:SHOWN]] + ["..."] * max(0, len(only_spec) - SHOWN))
    report.add("states only the model reaches", [
        _explain(spec, to_spec(s), sg.parent,
                 "only the model reaches a state, by " + (" -> ".join(a.kind for a, _ in mg.path(s)) or "its initial state"))
        for s in only_model[:SHOWN]] + ["..."] * max(0, len(only_model) - SHOWN))
    report.figures["only in spec"] = len(only_spec)
    report.figures["only in model"] = len(only_model)

    from groupcheck.checker import bfs
    checked = bfs(model, scope, symmetry=False)
    if checked.violation is None:
        report.figures["model BFS (no symmetry)"] = checked.states
    else:     # the checker stops at a violation: the full graph above is the count to compare
        report.figures["model BFS stops at"] = checked.violation.property
    # both graphs keep the states past the bounds (unexpanded); TLC counts only those within
    # the CONSTRAINT, and that is the count the manifest pins (tlc_config.run counts the same)
    for name, count in (("the model", len(mg.order)),
                        ("the model's BFS (symmetry off)", checked.states if checked.violation is None else None)):
        if count is not None and count != len(sg.order):
            report.problems.append(f"{name} has {count:,} states (bounds included), the spec {len(sg.order):,}")
    within = sum(1 for t in sg.order if not bundle.constraint or spec.holds(bundle.constraint, t))
    model_within = sum(1 for s in mg.order if model.within_bounds(scope, s))
    report.figures["TLC states"] = within
    for name, count in (("the spec", within), ("the model", model_within)):
        if count != config.distinct_states:
            report.problems.append(f"{name} has {count:,} distinct states within its bounds (TLC's count); "
                                   f"the manifest pins {config.distinct_states:,}")

    report.add("verdicts that differ", _verdicts(bundle, spec, scope, mg.order, to_spec, report))
    report.figures["claims broken on both sides"] = sorted(broken)
    report.seconds = time.perf_counter() - started
    return report


def same_scope(bundle: Bundle, name: str, distinct: int | None, earlier: str, earlier_distinct: int | None) -> Report:
    """A config or variant whose module and scope an earlier check (``earlier``) already
    compared: not compared twice; the counts the manifest pins for both must agree."""
    report = Report(f"{bundle.protocol.name} {name}")
    report.figures["states"] = f"same scope as {earlier}"
    if None not in (distinct, earlier_distinct) and distinct != earlier_distinct:
        report.problems.append(f"the manifest pins {distinct:,} distinct states for {name} and {earlier_distinct:,} "
                               f"for {earlier}, at the same scope")
    return report


def _linked(bundle: Bundle, spec: Spec) -> list:
    """The model's state properties the spec defines (the rest are in leaves_out)."""
    return [p for p in bundle.model.properties if p.on == "state" and p.name in spec.definitions]


def _linked_steps(bundle: Bundle, spec: Spec) -> list:
    """The model's claims on steps the spec defines (step predicates)."""
    return [p for p in bundle.model.properties if p.on == "step" and p.name in spec.definitions]


def _verdicts(bundle: Bundle, spec: Spec, scope, states: list, to_spec, report: Report) -> list[str]:
    """Each linked property, state by state: the spec's predicate against the model's
    claim (an invariant fails where the claim fails; a witness holds where it is found)."""
    model = bundle.model
    wrong = []
    found_model: set[str] = set()
    found_spec: set[str] = set()
    broken: set[str] = set()
    linked = _linked(bundle, spec)
    for s in states:
        t = to_spec(s)
        for prop in linked:
            says = prop.check(scope, s)
            holds = spec.holds(prop.name, t)
            if prop.kind == "sometimes":
                found_model |= {prop.name} if says is not None else set()
                found_spec |= {prop.name} if holds else set()
                if (says is not None) != holds and len(wrong) < 50:
                    wrong.append(f"witness {prop.name}: the model {'finds' if says else 'does not find'} it at a "
                                 f"state where the spec's predicate is {'TRUE' if holds else 'FALSE'} "
                                 f"({model.view.describe_state(scope, s) or s})")
            elif says is not None and not holds:
                broken.add(prop.name)
            elif (says is None) != holds and len(wrong) < 50:
                wrong.append(f"invariant {prop.name}: the model says {'it holds' if says is None else repr(says)}, "
                             f"the spec {'TRUE' if holds else 'FALSE'} ({model.view.describe_state(scope, s) or s})")
    report.figures["properties compared"] = len(linked)
    report.figures["witnesses reached"] = sorted(found_model)
    report.figures["invariants broken on both sides"] = sorted(broken)
    return wrong


def validate_path(bundle: Bundle, scope, path: list[int], spec: Spec, *, named: bool = True) -> tuple[int, list[str]]:
    """Every step of a model path is a step of ``spec``: the first state is initial, each
    step satisfies the action named after its kind (``named``; otherwise any action of
    the spec's next), and each linked invariant gives the model's verdict at every
    state. Returns (steps checked, problems)."""
    model = bundle.model
    first, steps = replay(model, scope, path)
    problems: list[str] = []
    prev = as_state(spec, bundle, scope, first)
    if prev not in set(spec.init_states()):
        problems.append("the first state does not satisfy Init")
    linked = [p for p in _linked(bundle, spec) if p.kind != "sometimes"]

    def verdicts(state, spec_state, where):
        for prop in linked:
            says = prop.check(scope, state)
            if (says is None) != spec.holds(prop.name, spec_state):
                problems.append(f"{where}: invariant {prop.name} is {'FALSE' if says is None else 'TRUE'} in the "
                                f"spec, the model says {'it holds' if says is None else repr(says)}")

    verdicts(first, prev, "initial state")
    on_steps = _linked_steps(bundle, spec)
    for i, st in enumerate(steps, start=1):
        left_out = bundle.leaves_out["actions"].get(st.action.kind)
        if left_out is not None:       # a step the spec does not state: the trace cannot be judged from here
            raise OutsideSpec(f"step {i} ({model.view.describe_action(scope, st.prev, st.action)}) is a "
                              f"{st.action.kind}, which the spec leaves out: {left_out}")
        try:
            nxt = as_state(spec, bundle, scope, st.next)
        except OutsideSpec as e:
            raise OutsideSpec(f"step {i} ({model.view.describe_action(scope, st.prev, st.action)}) reaches a state "
                              f"the spec does not state: {e}") from None
        for prop in on_steps:
            says = prop.check(scope, st.prev, st.action, st.next, st.events)
            if (says is None) != spec.holds_step(prop.name, prev, nxt):
                problems.append(f"step {i}: step claim {prop.name} is {'FALSE' if says is None else 'TRUE'} in the "
                                f"spec, the model says {'it holds' if says is None else repr(says)}")
        said = model.view.describe_action(scope, st.prev, st.action)
        if named:
            name = camel(st.action.kind)
            if name not in spec.action_names:
                problems.append(f"step {i} ({said}): the spec has no action {name}")
            elif not spec.steps_by(name, prev, nxt):
                problems.append(f"step {i} ({said}): not a step of {name}")
        elif not any(u == nxt for _, u in spec.successors(prev)):
            problems.append(f"step {i} ({said}): not a step of the spec")
        verdicts(st.next, nxt, f"step {i}")
        if problems:
            return i, problems
        prev = nxt
    return len(steps), problems


def check_walks(bundle: Bundle, scope, walks: int = 20, length: int = 60, seed: int = 0) -> Report:
    """Seeded random walks of ``scope`` (the checker's), each validated step by step."""
    from groupcheck.checker import walk
    started = time.perf_counter()
    report = Report(f"{bundle.protocol.name} walks")
    spec = load_spec(bundle, scope)
    total = 0
    for i in range(walks):
        path, _violation, _ = walk(bundle.model, scope, seed + i, length)
        try:
            n, problems = validate_path(bundle, scope, path, spec)
        except OutsideSpec as e:       # a walk scope of the manifest must stay inside the spec
            n, problems = 0, [str(e)]
        total += n
        report.add("walk problems", [f"walk seed {seed + i} (path {path[:n + 1]}): {p}" for p in problems])
    report.figures["walks"] = walks
    report.figures["steps validated"] = total
    report.seconds = time.perf_counter() - started
    return report


def check_variant(bundle: Bundle, variant: Variant) -> Report:
    """The known bug's shortest counterexample (the model's BFS under its scope) is a
    behaviour of the variant module, and its last state breaks the same-named invariant
    (its last step the same-named step claim), which holds before it."""
    from groupcheck.checker import bfs
    started = time.perf_counter()
    report = Report(f"{bundle.protocol.name} {variant.key}")
    known = {v.key: v for v in bundle.protocol.variants}
    if variant.key not in known:
        report.problems.append(f"the model has no variant {variant.key}")
        return report
    scope = bundle.variant_scope(variant)
    if scope != known[variant.key].buggy_scope():
        report.figures["scope"] = "the bug's switch at the spec's profile"
    found = bfs(bundle.model, scope)
    if found.violation is None or found.violation.property != variant.property:
        got = found.violation.property if found.violation else "nothing"
        report.problems.append(f"the model's BFS under {variant.key} breaks {got}, not {variant.property}")
        return report
    path = list(found.violation.path)
    spec = load_spec(bundle, scope, variant.module, variant.next)
    first, steps = replay(bundle.model, scope, path)
    states = [first] + [s.next for s in steps]
    mapped = [as_state(spec, bundle, scope, s) for s in states]
    if mapped[0] not in set(spec.init_states()):
        report.problems.append("the counterexample's first state does not satisfy Init")
    for i, st in enumerate(steps, start=1):
        if not any(u == mapped[i] for _, u in spec.successors(mapped[i - 1])):
            report.problems.append(f"step {i} ({bundle.model.view.describe_action(scope, st.prev, st.action)}) "
                                   f"is not a step of {variant.next}")
            break
    # a claim on states is judged at each state, a claim on steps on each step
    on_steps = variant.property in {p.name for p in _linked_steps(bundle, spec)}
    verdicts = ([spec.holds_step(variant.property, a, b) for a, b in zip(mapped, mapped[1:])] if on_steps
                else [spec.holds(variant.property, t) for t in mapped])
    where = "step" if on_steps else "state after step"
    for i, ok in enumerate(verdicts[:-1]):
        if not ok:
            report.problems.append(f"{variant.property} is already FALSE in the spec at {where} {i + on_steps}")
            break
    if verdicts[-1]:
        report.problems.append(f"the counterexample's last {'step' if on_steps else 'state'} (step {len(steps)}) "
                               f"does not break {variant.property} in the spec")
    report.figures["steps"] = len(steps)
    # the counterexample breaks the claim on both sides (the model's BFS found it breaking)
    report.figures["broken on both sides"] = [] if report.problems else [variant.property]
    if variant.distinct_states is not None:
        whole = check_config(bundle, Config(variant.key, scope, variant.distinct_states), variant=variant)
        report.problems += whole.problems
        report.figures["states (spec = model)"] = whole.figures.get("TLC states")
        report.figures["broken on both sides"] = sorted(set(report.figures["broken on both sides"])
                                                        | set(whole.figures.get("claims broken on both sides", []))
                                                        | set(whole.figures.get("invariants broken on both sides", [])))
    report.seconds = time.perf_counter() - started
    return report


__all__ = ["Graph", "OutsideSpec", "Report", "SpecError", "as_state", "check_config", "check_variant", "check_walks",
           "load_spec", "model_graph", "same_scope", "spec_graph", "validate_path"]

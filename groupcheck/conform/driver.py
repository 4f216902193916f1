"""The driver: explore a target's scenarios (BFS, then swarm walks), collect divergences.

The role's pieces (recorder, ``conform_model``, scenarios) come from ``roles.of(target)``:
the assignor role unless the target names another (``streams_assignor``).

For each scope of the role's ``scopes(target)``: BFS over ``conform_model`` (shortest
counterexample = the minimal scenario); when it finds a violation, its (claim,
signature) (``dedupe``) is recorded and quieted, and BFS runs again (answers are cached,
so the implementation is not asked twice), until BFS finds nothing new, a limit stops
it, or ``Settings.max_distinct`` were met in the scope. Then seeded swarm walks do the
same, and a walk's counterexample is shrunk (``shrink``) to the same signature. So a
second, different failure of a claim is found too; the run's ``Ledger`` keeps each
(claim, signature) once, its shortest path, and how many scope searches met it. Every
search is bounded by the command's limits (``console.Limits``), Ctrl-C included.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from groupcheck import checker
from groupcheck.console import Limits, Ticker
from groupcheck.model.core import first_violation, replay

from . import roles
from .dedupe import Ledger, signature, unmet
from .recording import GiveUp, StartError
from .roles import Role
from .roles.assignor.targets import Target


@dataclass
class Divergence:
    property: str
    message: str
    scope_name: str
    scope: object
    path: list[int]
    mode: str                    # bfs | walks
    found_after: float           # seconds since the target's run began
    raw_length: int = 0          # a walk's length before shrinking
    signature: str = ""          # what sets this failure of the claim apart (dedupe.signature)
    count: int = 1               # scope searches that met it (the run's distinct divergences)


@dataclass
class ScopeRun:
    name: str
    scope: object
    reports: list = field(default_factory=list)       # checker.Report, in order
    not_run: str = ""                                   # why the scope did not run
    not_judged: str = ""                                # a claim left unjudged (info answers)
    info: str = ""                                      # why info answers ended the scope early
    info_steps: int = 0                                 # steps left untaken by an info answer
    divergences: list[Divergence] = field(default_factory=list)     # every one met in this scope
    known: set = field(default_factory=set)             # their (claim, signature)

    @property
    def cut(self) -> str | None:
        return next((r.cut for r in self.reports if r.cut is not None), None)

    @property
    def checked(self) -> set[str]:
        return {p for r in self.reports for p in r.checked}


@dataclass
class TargetRun:
    target: Target
    recorder: object | None          # the role's Recorder
    scopes: list[ScopeRun] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    role: Role | None = None         # None: the assignor role
    ledger: Ledger = field(default_factory=Ledger)

    @property
    def divergences(self) -> list[Divergence]:
        """The distinct divergences, by (claim, signature), each with its shortest path and count."""
        return [m.found for m in self.ledger]

    def meet(self, sr: ScopeRun, d: Divergence) -> None:
        """Record one divergence met in scope ``sr``; the run's ledger keeps it once."""
        sr.divergences.append(d)
        sr.known.add((d.property, d.signature))
        self.ledger.meet(d.property, d.signature, d, len(d.path))
        kept = self.ledger.met[(d.property, d.signature)]
        kept.found.count = kept.count


@dataclass(frozen=True)
class Settings:
    walks: int = 100
    walk_length: int = 60
    seed: int = 0
    symmetry: bool = True
    progress_every: float = 10.0
    only: tuple[str, ...] = ()           # run only these scope names (empty: all)
    bfs: bool = True                     # False: walks only (benchmarks of walks and shrinking)
    hypothesis: int = 0                  # test cases of the Hypothesis state machine per scope (0: none)
    max_distinct: int = 12               # distinct divergences searched for per scope (then the scope stops)


def shrink(model, scope, path: list[int], prop: str, sig: str | None = None) -> list[int]:
    """A shorter path along which ``prop`` is still the first claim violated (with the
    signature ``sig``, when given: the same divergence, not another of the claim): greedy
    removal of chunks of actions (halves down to single actions), replaying by the
    actions' values (an action no longer enabled where it was makes a candidate
    invalid). BFS counterexamples are already shortest; this is for walks."""
    first, steps = replay(model, scope, path)
    actions = [s.action for s in steps]

    def as_path(candidate) -> list[int] | None:
        inits = model.init_states(scope)
        state, out = inits[path[0]], [path[0]]
        for a in candidate:
            enabled = model.actions(scope, state)
            if a not in enabled:
                return None
            out.append(enabled.index(a))
            state, _ = model.step(scope, state, a)
        return out

    def violates(candidate) -> list[int] | None:
        p = as_path(candidate)
        if p is None:
            return None
        f, s = replay(model, scope, p)
        found = first_violation(model, scope, f, s)
        same = found is not None and found[0] == prop and (sig is None or signature(found[1]) == sig)
        return p if same else None

    best = violates(actions) and actions
    if not best:
        return path
    size = max(1, len(best) // 2)
    while size >= 1:
        i, changed = 0, False
        while i < len(best):
            candidate = best[:i] + best[i + size:]
            if violates(candidate):
                best, changed = candidate, True
            else:
                i += size
        if not changed:
            size //= 2
    # cut the tail after the violation
    return violates(best)


def _search(run: TargetRun, sr: ScopeRun, mode: str, settings: Settings, limits: Limits, excluded: set[str],
            started: float) -> None:
    """BFS or walks over one scope, again after each divergence with the divergences met
    so far quieted (``dedupe.unmet``), until nothing new is found or a limit stops it."""
    rec = run.recorder
    label = f"{run.target.name}/{sr.name}"
    role = run.role or roles.get("assignor")
    while len(sr.known) < settings.max_distinct:
        model = unmet(role.conform_model(rec, frozenset(excluded)), sr.known)
        if mode == "bfs":
            with Ticker(f"{label} bfs", "states", settings.progress_every) as tick:
                report = checker.bfs(model, sr.scope, symmetry=settings.symmetry, max_states=limits.max_states,
                                     progress=tick, budget=limits.budget)
        else:
            with Ticker(f"{label} walks", "walks", settings.progress_every, total=settings.walks) as tick:
                report = checker.walks(model, sr.scope, seed=settings.seed, count=settings.walks,
                                       length=settings.walk_length, progress=tick, budget=limits.budget)
        sr.reports.append(report)
        v = report.violation
        if v is None or v.property in role.excluded(sr.name, run.target):
            return                 # (a checker claim in a scope that does not judge it)
        if v.property in CHECKER_ONLY and any(c.outcome.type == "info" for c in rec.calls.values()):
            # an info answer left steps untaken: whether the group could settle is unknown
            sr.not_judged = f"{v.property} not judged: the target answered info (steps not taken)"
            return
        sig = signature(v.message)
        path, raw = v.path, len(v.path) - 1
        if mode == "walks" and v.property not in CHECKER_ONLY:
            path = shrink(model, sr.scope, v.path, v.property, sig) or v.path
        run.meet(sr, Divergence(property=v.property, message=v.message, scope_name=sr.name, scope=sr.scope,
                                path=path, mode=mode, found_after=time.monotonic() - started, raw_length=raw,
                                signature=sig))
        if v.property in CHECKER_ONLY or limits.budget.spent() is not None:
            return
    sr.not_judged = sr.not_judged or f"searched no further after {settings.max_distinct} distinct divergences"


def _hypothesis(run: TargetRun, sr: ScopeRun, settings: Settings, excluded: set[str], started: float) -> None:
    """The project's Hypothesis state machine (``properties/stateful.py``) over the same
    model and actions(); its counterexample comes shrunk by Hypothesis."""
    from groupcheck.properties.stateful import hunt
    model = unmet((run.role or roles.get("assignor")).conform_model(run.recorder, frozenset(excluded)), sr.known)
    found = hunt(model, sr.scope, seed=settings.seed, max_examples=settings.hypothesis, steps=settings.walk_length)
    sr.reports.append(checker.Report(model.name, "hypothesis", states=found.cases, seconds=found.seconds,
                                     checked=[p.name for p in model.properties if p.kind != "sometimes"]))
    if found.property is not None and found.property not in CHECKER_ONLY:
        run.meet(sr, Divergence(property=found.property, message=found.message, scope_name=sr.name, scope=sr.scope,
                                path=found.path, mode="hypothesis", found_after=time.monotonic() - started,
                                raw_length=len(found.path) - 1, signature=signature(found.message)))


# the checker's own claims: they cannot be quieted by leaving a property out, so a search
# that found one stops there
CHECKER_ONLY = tuple(checker.CHECKER_CLAIMS)


def _explore(run: TargetRun, sr: ScopeRun, settings: Settings, limits: Limits, excluded: set[str],
             started: float) -> None:
    """BFS, walks and Hypothesis over one scope. A target that answers only ``info`` for a
    while (``GiveUp``), or gives no answer while a stable group forms (``StartError``),
    ends the scope unjudged (``sr.info``); the run goes on with the next scope."""
    rec = run.recorder
    rec.given_up, rec.info_in_a_row = "", 0
    before = rec.info_steps
    try:
        if settings.bfs:
            _search(run, sr, "bfs", settings, limits, excluded, started)
        stopped = any(d.property in CHECKER_ONLY for d in sr.divergences)
        if settings.walks and limits.budget.spent() is None and not stopped:
            _search(run, sr, "walks", settings, limits, excluded, started)
        if settings.hypothesis and limits.budget.spent() is None:
            _hypothesis(run, sr, settings, excluded, started)
    except GiveUp as e:
        sr.info = f"stopped, not judged further: {e}"
    except StartError as e:
        if e.outcome == "fail":      # a definite error on a valid input: the scope cannot start
            sr.not_run = f"the model could not start the scope with {run.target.name}: {e}"
        else:
            sr.info = f"not judged: {e}"
    except ValueError as e:          # start: stable, and the group never settles with the target
        sr.not_run = f"the model could not start the scope with {run.target.name}: {e}"
    finally:
        sr.info_steps = rec.info_steps - before


def run_target(target: Target, settings: Settings, limits: Limits) -> TargetRun:
    started = time.monotonic()
    role = roles.of(target)
    run = TargetRun(target, role.recorder(target), role=role)
    try:
        for name, scope in role.scopes(target).items():
            if settings.only and name not in settings.only:
                continue
            sr = ScopeRun(name, scope)
            run.scopes.append(sr)
            why = role.configurable(scope)
            if why is not None:
                refuses = getattr(target, "refuses", "")           # the implementation's own words, if any
                sr.not_run = f"not configurable: {why}" + (f"; {refuses}" if refuses else "")
                continue
            spent = limits.budget.spent()
            if spent is not None:
                sr.not_run = f"{limits.value(spent)} came first"
                continue
            _explore(run, sr, settings, limits, set(role.excluded(name, target)), started)
    finally:
        run.recorder.close()
        run.seconds = time.monotonic() - started
    return run

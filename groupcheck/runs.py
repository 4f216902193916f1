"""Running ``groupcheck check``'s jobs within the command's limits, and judging each.

A job is a scope and what it must show (``protocols.Job``). Its verdict:

    held         BFS explored the whole scope, nothing was violated, and the scope is
                 not weak (below)                                              exit 0
    caught       a known bug's job: BFS found a violation of exactly the
                 expected property ("caught (expected)")                       exit 0
    weak         nothing violated, but the scope proves little: a witness in
                 its reach was not reached, or BFS saw fewer than TINY states  exit 3
    incomplete   a limit (--max-states, --max-seconds, --max-memory) cut the
                 search before anything was violated: not a proof              exit 3
    not run      a limit of the whole command (or a signal) came before the job
                 began                                                         exit 3 (130/143)
    violated     a property was violated                                       exit 1
    missed       a known bug's job found no violation of the expected property
                 (or found another one first)                                  exit 1
    interrupted  SIGINT (Ctrl-C) or SIGTERM stopped the search           exit 130 or 143
"""
from __future__ import annotations

from dataclasses import dataclass

from groupcheck.model.core import NotSettled

from . import checker
from .console import FAILED, NOT_PROVED, PASSED, Limits, Ticker, stop_code
from .protocols import Job

TINY = 100      # a BFS that sees fewer distinct states than this proves little ("weak")


@dataclass(frozen=True)
class Settings:
    """How each job is searched (the ``check`` options other than scope and limits)."""

    symmetry: bool = True
    walks: int = 200
    walk_length: int = 80
    seed: int = 0
    progress_every: float = 10.0
    exact: bool = False          # BFS keeps whole states, not 64-bit fingerprints
    engine: str = "local"        # BFS in this process, or "spark" (groupcheck.sparkbfs)
    master: str = "local[*]"     # the Spark master (engine "spark")
    spark_partitions: int | None = None    # of the frontier and the visited set (None: Spark's parallelism)
    fairness: bool = False       # also settles_under_fairness (BFS without symmetry reduction)


@dataclass
class Outcome:
    job: Job
    reports: list[checker.Report]     # BFS, then the walks if they ran; none if not run
    verdict: str
    detail: str = ""                  # one sentence for the summary

    @property
    def label(self) -> str:
        return f"{self.job.protocol.name}/{self.job.name}"

    @property
    def violation(self) -> checker.Violation | None:
        return next((r.violation for r in self.reports if r.violation is not None), None)


def run(jobs: list[Job], settings: Settings, limits: Limits) -> list[Outcome]:
    """Every job in order; once a signal or a limit of the whole command stops one, the
    rest are not run."""
    outcomes = []
    for job in jobs:
        spent = limits.budget.spent()
        if spent is not None:
            outcomes.append(Outcome(job, [], "not run", f"{limits.value(spent)} stopped the command before it began"))
            continue
        outcomes.append(run_job(job, settings, limits))
    return outcomes


def run_job(job: Job, settings: Settings, limits: Limits) -> Outcome:
    """BFS; then, when BFS explored everything and found nothing, the random walks."""
    model, label = job.protocol.model, f"{job.protocol.name}/{job.name}"
    with Ticker(f"{label} bfs", "states", settings.progress_every) as tick:
        try:
            if settings.engine == "spark":
                from . import sparkbfs
                report = sparkbfs.spark_bfs(job.protocol.name, model.view.scope_to_dict(job.scope),
                                            master=settings.master, partitions=settings.spark_partitions,
                                            max_states=limits.max_states, budget=limits.budget, progress=tick,
                                            symmetry=settings.symmetry)
            else:
                report = checker.bfs(model, job.scope, symmetry=settings.symmetry, max_states=limits.max_states,
                                     progress=tick, budget=limits.budget, exact=settings.exact,
                                     fairness=settings.fairness)
        except NotSettled as e:     # no state to start from: can_settle fails before the search
            report = checker.Report(model.name, "bfs", complete=False,
                                    violation=checker.Violation("can_settle", str(e), [], "liveness"))
    reports = [report]
    if report.complete and job.expect is None and settings.walks:
        with Ticker(f"{label} walks", "walks", settings.progress_every, total=settings.walks) as tick:
            reports.append(checker.walks(model, job.scope, seed=settings.seed, count=settings.walks,
                                         length=settings.walk_length, progress=tick, budget=limits.budget))
    return Outcome(job, reports, *judge(job, reports, limits))


def cut_text(report: checker.Report, limits: Limits) -> str:
    """What a limit left of a search: the partial result, in one sentence."""
    what = (f"{report.states:,} states (depth {report.depth}, {report.transitions:,} transitions)"
            if report.mode == "bfs" else f"{report.walks} walks ({report.states:,} steps)")
    inside = f" (while {report.cut_in} ran)" if report.cut_in else ""
    return (f"{limits.value(report.cut)} stopped {report.mode}{inside} after {what}; none of its "
            f"{len(report.checked)} properties violated so far: incomplete, not a proof")


def weakness(job: Job, bfs: checker.Report) -> list[str]:
    """Why a clean, complete BFS of ``job`` proves little (empty: it does not)."""
    far = job.protocol.out_of_reach(job.scope)
    reasons = [f"witness {name} not reached" for name, hit in bfs.witnessed.items() if not hit and name not in far]
    if bfs.states < TINY:
        reasons.append(f"only {bfs.states:,} state{'s' if bfs.states != 1 else ''} (fewer than {TINY})")
    return reasons


def judge(job: Job, reports: list[checker.Report], limits: Limits) -> tuple[str, str]:
    """(verdict, one sentence for the summary) of a job that ran."""
    bfs = reports[0]
    v = next((r.violation for r in reports if r.violation is not None), None)
    cut = next((r for r in reports if r.cut is not None), None)
    if job.expect is not None and v is not None:
        if v.property == job.expect:
            return "caught", ""
        return "missed", f"expected {job.name} to violate {job.expect}; BFS found {v.property} first"
    if v is not None:
        return "violated", f"{v.property}: {v.message}"
    if cut is not None:
        verdict = "interrupted" if cut.cut == "interrupted" else "incomplete"
        expected = f"expected {job.name} to violate {job.expect}, not found yet: " if job.expect else ""
        return verdict, expected + cut_text(cut, limits)
    if job.expect is not None:
        return "missed", (f"expected {job.name} to violate {job.expect}; "
                          f"BFS explored {bfs.states:,} states and found none")
    reasons = weakness(job, bfs)
    if reasons:
        return "weak", f"nothing violated, but {'; '.join(reasons)}: the pass says little"
    return "held", ""


def exit_code(outcomes: list[Outcome], limits: Limits) -> int:
    verdicts = {o.verdict for o in outcomes}
    if limits.budget.interrupted or "interrupted" in verdicts:
        return stop_code(limits.budget)
    if verdicts & {"violated", "missed"}:
        return FAILED
    if verdicts & {"weak", "incomplete", "not run"}:
        return NOT_PROVED
    return PASSED

"""``python -m mutation.run``: run the catalog's mutants through the main job, the
properties and the tests, and write the report after every mutant.

Each mutant gets a fresh copy of the base's tracked files (``git ls-files``) with its
one replacement applied; stages run in order and stop at the first that kills it
(``--full`` runs them all). Ctrl-C / SIGTERM ends the running stage's process group,
writes the report of what was done and exits 130.
"""
from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import report
from .catalog import MUTANTS
from .mutant import FAMILIES, Mutant, MutantNotApplicable, apply
from .report import Record
from .stages import STAGES, Runner, StageResult, protocols_of

REPO = Path(__file__).resolve().parent.parent
ORDER = {m.name: i for i, m in enumerate(MUTANTS)}


class Interrupted(Exception):
    pass


def tracked_files(base: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(base), "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def copy_tree(base: Path, files: list[str], dest: Path) -> None:
    for rel in files:
        src = base / rel
        target = dest / rel
        if src.is_symlink():       # groupcheck/model -> ../model: the copy links to its own model/
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(src.readlink())
            continue
        if not src.is_file():      # deleted in the work tree, or a submodule
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def applicable(base: Path, m: Mutant) -> bool:
    path = base / m.path
    return path.is_file() and path.read_text().count(m.old) == 1


def select(only: list[str], family: str | None) -> list[Mutant]:
    chosen = list(MUTANTS)
    if only:
        names = {m.name for m in MUTANTS}
        unknown = [n for n in only if n not in names]
        if unknown:
            raise SystemExit(f"unknown mutant(s): {', '.join(unknown)} (see --list)")
        chosen = [m for m in chosen if m.name in only]
    if family:
        if family not in FAMILIES:
            raise SystemExit(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")
        chosen = [m for m in chosen if m.family == family]
    return chosen


def interleaved(mutants: list[Mutant]) -> list[Mutant]:
    """Round-robin over the families, each family in catalog order."""
    queues: dict[str, list[Mutant]] = {}
    for m in mutants:
        queues.setdefault(m.family, []).append(m)
    out: list[Mutant] = []
    while any(queues.values()):
        for q in queues.values():
            if q:
                out.append(q.pop(0))
    return out


def run_stages(runner: Runner, workdir: Path, stages: list[str], full: bool, label: str,
               done: list[StageResult] = ()) -> list[StageResult]:
    """Run ``stages`` in order, reusing the results in ``done`` (from a resumed report)."""
    results = []
    reuse = {r.stage: r for r in done}
    for stage in stages:
        r = reuse.get(stage) or runner.run(stage, workdir, label)
        results.append(r)
        if r.outcome == "interrupted":
            raise Interrupted()
        if r.outcome == "killed" and not full:
            break
    return results


def verdict_of(m: Mutant, results: list[StageResult]) -> Record:
    seconds = sum(r.seconds for r in results)
    stages = [r.__dict__.copy() for r in results]
    kill = next((r for r in results if r.outcome == "killed"), None)
    if kill is not None:
        return Record.of(m, "killed", stage=kill.stage, killer=kill.killer, kind=kill.kind,
                         seconds=seconds, stages=stages)
    limit = next((r for r in results if r.outcome == "limit"), None)
    if limit is not None:
        return Record.of(m, "limit", stage=limit.stage, killer=limit.killer, seconds=seconds, stages=stages)
    return Record.of(m, "survived", seconds=seconds, stages=stages)


def run_one(m: Mutant, base: Path, files: list[str], runner: Runner, stages: list[str], full: bool,
            done: list[StageResult] = ()) -> Record:
    if m.equivalent:
        return Record.of(m, "equivalent", note=m.equivalent)
    if not applicable(base, m):
        return Record.of(m, "n/a", note=f"`old` not found exactly once in {m.path} at the base")
    with tempfile.TemporaryDirectory(prefix=f"mut-{m.name}-") as tmp:
        work = Path(tmp)
        try:
            copy_tree(base, files, work)
            apply(work, m)
        except (OSError, MutantNotApplicable) as e:
            return Record.of(m, "error", note=str(e))
        runner.protocols = protocols_of(m.path) if runner.main_affected else ()
        return verdict_of(m, run_stages(runner, work, stages, full, m.name, done))


def baseline(base: Path, files: list[str], runner: Runner, stages: list[str]) -> list[StageResult]:
    with tempfile.TemporaryDirectory(prefix="mut-baseline-") as tmp:
        copy_tree(base, files, Path(tmp))
        return [runner.run(stage, Path(tmp), "baseline") for stage in stages]


def base_commit(base: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(base), "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m mutation.run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", action="append", default=[], metavar="NAME", help="run this mutant (repeatable)")
    p.add_argument("--family", help=f"run one family: {', '.join(FAMILIES)}")
    p.add_argument("--out", type=Path, default=REPO / "mutation" / "out", help="report directory")
    p.add_argument("--stages", default=",".join(STAGES), help="comma-separated, in order (default: all)")
    p.add_argument("--full", action="store_true", help="run every stage even after a kill")
    p.add_argument("--max-seconds-per-stage", type=float, default=600.0, help="0: no limit")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--base", type=Path, default=REPO, help="the checkout to mutate (default: this one)")
    p.add_argument("--resume", action="store_true",
                   help="skip mutants already in the report (same name, old and new) whose stages cover these")
    p.add_argument("--skip-baseline", action="store_true", help="trust that the unmutated base passes")
    p.add_argument("--python", default=sys.executable, help="the interpreter the stages run with")
    p.add_argument("--logs", action="store_true", help="keep every stage's output under OUT/logs")
    p.add_argument("--main-protocols", choices=("affected", "all"), default="affected",
                   help="main stage: the main job's jobs of the mutated file's protocol only (default; the "
                        "other protocol's jobs never run the mutated code), or of every protocol")
    p.add_argument("--interleave", action="store_true",
                   help="run the families round-robin, so a partial campaign samples every family")
    args = p.parse_args(argv)
    args.stages = [s for s in args.stages.split(",") if s]
    bad = [s for s in args.stages if s not in STAGES]
    if bad or not args.stages:
        p.error(f"--stages: unknown {', '.join(bad) or '(empty)'}; known: {', '.join(STAGES)}")
    return args


def covered(r: Record, m: Mutant, stages: list[str]) -> bool:
    """A recorded verdict answers for these stages: decided (killed, n/a, equivalent),
    or every requested stage already ran."""
    if (r.verdict == "equivalent") != bool(m.equivalent):
        return False                   # the catalog's equivalence argument changed since
    if r.verdict in ("killed", "n/a", "equivalent"):
        return True
    ran = {s["stage"] for s in r.stages}
    return set(stages) <= ran


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    chosen = select(args.only, args.family)
    if args.interleave and not args.list:
        chosen = interleaved(chosen)
    if args.list:
        for m in MUTANTS:
            if m in chosen:
                eq = "  [equivalent]" if m.equivalent else ""
                print(f"{m.name:45} {m.family:22} {m.path}{eq}\n    {m.why}")
        print(f"{len(chosen)} mutants")
        return 0
    base = args.base.resolve()
    files = tracked_files(base)
    runner = Runner(args.python, args.max_seconds_per_stage, args.out / "logs" if args.logs else None)
    runner.main_affected = args.main_protocols == "affected"
    previous = {r.name: r for r in report.load(args.out)} if args.resume else {}
    records: list[Record] = [r for r in previous.values()]
    meta = {"base": str(base), "commit": base_commit(base), "stages": args.stages, "full": args.full,
            "max_seconds_per_stage": args.max_seconds_per_stage, "main_protocols": args.main_protocols,
            "status": "running"}

    def stop(signum, frame):
        runner.kill()
        raise Interrupted()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        if not args.skip_baseline:
            t0 = time.monotonic()
            base_results = baseline(base, files, runner, args.stages)
            meta["baseline"] = [r.__dict__ for r in base_results]
            failed = [r for r in base_results if r.outcome != "passed"]
            if failed:
                f = failed[0]
                print(f"baseline FAILED: stage {f.stage} is {f.outcome} (exit {f.exit_code}): {f.killer}; "
                      "fix the base before mutating it", file=sys.stderr)
                return 2
            print(f"baseline passed ({', '.join(args.stages)}) in {time.monotonic() - t0:.0f}s", flush=True)
        for i, m in enumerate(chosen, 1):
            old = previous.get(m.name)
            if old is not None and old.same_mutant(m) and covered(old, m, args.stages):
                continue
            done = [StageResult(**s) for s in old.stages] if old is not None and old.same_mutant(m) else []
            rec = run_one(m, base, files, runner, args.stages, args.full, done)
            records = sorted([r for r in records if r.name != m.name] + [rec], key=lambda r: ORDER.get(r.name, 999))
            report.write(args.out, records, meta)
            t = report.totals(records)
            print(f"[{i}/{len(chosen)}] {m.name}: {rec.verdict}"
                  f"{' by ' + rec.stage if rec.stage else ''}{': ' + rec.killer if rec.killer else ''}"
                  f" ({rec.seconds:.0f}s)  score: main {t['killed_by_main']}/{t['applicable']}, "
                  f"property {t['killed_by_property']}, any {t['killed']}, survived {t['survived']}",
                  flush=True)
        meta["status"] = "complete"
    except Interrupted:
        meta["status"] = "interrupted"
        report.write(args.out, records, meta)
        print("interrupted: report written", file=sys.stderr)
        return 130
    report.write(args.out, records, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())

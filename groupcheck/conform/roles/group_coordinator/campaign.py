"""A group-coordinator campaign: every scenario against every chosen target, divergences
shrunk and written, one verdict per target. ``main`` is what the CLI calls.

A divergence does not end the run: each scenario ends at its own first divergent step
(``runner``), and the next scenario is judged again. Every claim violated at that step
is met as (claim, signature) (``dedupe``); the first meeting of each is shrunk and
written, later ones only counted, so the verdict lists every distinct divergence once
with how many scenarios met it."""
from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path

from ....console import BAD_INPUT, FAILED, INTERRUPTED, NOT_PROVED, PASSED, signal_code
from ....outputs import atomic_write_text
from ...adapter import AdapterError
from ... import campaign
from ...dedupe import Ledger
from . import compare_848, compare_1071, report, repro, repro_1071, static, targets
from .runner import focus, keys, run_scenario, shrink
from .scenarios import scenarios



@dataclass
class Options:
    scenarios: int = 40
    seed: int = 0
    max_seconds: float = 600.0
    shrink_tries: int = 40
    shrink_seconds: float = 30.0      # wall time one divergence's shrinking may take (replays on a broker are slow)
    max_divergences: int = 20         # distinct (claim, signature) shrunk and written per target; more: listed
    named: bool = True                # the static-member named scenarios on a broker (False: the paths only)
    out: Path = Path("groupcheck-out")


def config_of(target) -> dict:
    return getattr(target, "config", {})


def run_target(target, key: str, opts: Options, progress, deadline: float) -> report.Verdict:
    hello = target.open()
    targets.check_hello(hello, f"target {key}")
    v = report.Verdict(key, getattr(target, "note", ""))
    if hasattr(target, "not_run"):          # a broker: the group protocols ApiVersions did not let run
        v.not_run = target.not_run(key)
        for line in v.not_run:
            progress(line)
    if hello.extra.get("kip394") is False:
        v.bridged = ("the target predates KIP-394: the driver answers a JoinGroup without member id with "
                     "MEMBER_ID_REQUIRED for it (claim member_id_required judged by one probe)")
        probe = target.probe_member_id_required() if hasattr(target, "probe_member_id_required") else None
        if probe:
            v.judged["member_id_required"] += 1
            v.violated["member_id_required"] += 1
            v.divergences.append({"claim": "member_id_required", "message": probe, "scope": "probe", "steps": 1,
                                  "raw_steps": 1, "signature": "probe", "count": 1, "shrunk": True, "story": "m0 JoinGroup(-) on a new group, v4+"})
    groups = (f"gc-{key.replace(':', '-')}-{opts.seed}-{n}" for n in itertools.count())
    start = time.monotonic()
    ledger = Ledger()
    last = [start]

    def record(r) -> None:
        v.add(r)
        if r.stopped == "time limit":
            v.cut = "time limit"
        if r.violation and v.first_divergence_s is None:
            v.first_divergence_s = round(time.monotonic() - start, 3)

    def after(n: int, r) -> None:
        if time.monotonic() - last[0] > 5 or n == 0:
            last[0] = time.monotonic()
            progress(f"[{key}] {n + 1}/{opts.scenarios} scenarios, {v.requests} calls, "
                     f"{sum(v.violated.values())} divergent, {len(ledger)} distinct, "
                     f"{time.monotonic() - start:.1f} s")

    def diverged(sig_key, r, item) -> dict:
        found = _divergence(target, hello, r, sig_key, opts, groups, key, len(ledger), deadline)
        v.divergences.append(found)
        return found

    hooks = campaign.Hooks(
        run=lambda item, dl: run_scenario(target, hello, item[0], item[1], next(groups), config_of(target), dl),
        divergences=lambda r: [(claim, sig) for claim, sig, _ in keys(r)], diverged=diverged, record=record,
        after=after)
    try:
        if opts.named:          # a few fixed scenarios first: a time limit cuts the paths
            _named(target, key, v, deadline, progress, opts.out)
        if compare_848.advertises(target):              # the KIP-848 comparison over TCP (no API 68: ``not_run``)
            v.kip848, cut = compare_848.run_all(target, deadline=deadline)
            v.cut = cut or v.cut
            progress(f"[{key}] KIP-848 over TCP: {len(v.kip848)} scenarios, "
                     f"{sum(r['divergence'] for r in v.kip848)} diverge")
        if v.cut != "interrupted" and getattr(target, "speaks_kip1071", None) and target.speaks_kip1071():
            v.kip1071 = compare_1071.run(target, key)                # else ``not_run`` says so
            repro_1071.write(v.kip1071, key, target, opts.out)      # a standalone script per divergence
            progress(f"[{key}] KIP-1071 over TCP: {len(v.kip1071)} scenarios, "
                     f"{sum(r['divergence'] for r in v.kip1071)} diverge")
        if v.cut != "interrupted":                      # Ctrl-C during a comparison ends the run
            v.cut = campaign.run(scenarios(opts.scenarios, opts.seed), hooks, deadline, ledger) or v.cut
    finally:
        for met in ledger:
            if met.found is not None:
                met.found["count"] = met.count
        v.seconds = time.monotonic() - start
        try:
            target.close()
        except Exception:  # noqa: BLE001
            pass
    return v


def _named(target, key: str, v: report.Verdict, deadline: float, progress, where: Path) -> None:
    """The static-member named scenarios (``coordinator/static.py``) on a broker
    target; a broker too old for group.instance.id gets a NOT RUN line."""
    if not hasattr(target, "versions"):
        return
    why = static.unsupported(target)
    if why:
        v.not_run.append(f"{key}: the static-member scenarios were not run: {why}")
        return
    for name in static.SCENARIOS:
        if time.monotonic() > deadline:
            v.cut = "time limit"
            return
        v.named.append(static.run(target, name, f"gc-{key.replace(':', '-')}-{name}-{time.monotonic_ns()}"))
        bad = v.named[-1]["violation"]
        if bad:                  # its standalone script, next to the verdict
            where.mkdir(parents=True, exist_ok=True)
            path = where / f"repro_{report.slug(key)}_{name.replace('-', '_')}.py"
            atomic_write_text(path, static.repro_source(name, key, repro.run_of(target), bad), force=True)
            v.named[-1]["repro"] = str(path)
        progress(f"[{key}] named scenario {name}: " + (f"diverges at step {bad['step']}" if bad else "held"))


def _divergence(target, hello, r, sig_key: tuple[str, str], opts: Options, groups, key: str, number: int,
                deadline: float) -> dict:
    """A newly met divergence as the verdict lists it: shrunk (until the run's deadline)
    and written (its trace and regression test) while fewer than ``opts.max_divergences``
    were; after that as met, unshrunk."""
    claim, sig = sig_key
    shrunk = number <= opts.max_divergences
    if shrunk:
        small = shrink(target, hello, r, config_of(target), groups, opts.shrink_tries, sig_key,
                       min(deadline, time.monotonic() + opts.shrink_seconds))
        message = small.violation[1]
    else:
        small = focus(r, sig_key)
        message = small.violation[1]
    d = {"claim": claim, "signature": sig, "message": message, "scope": small.scope,
         "steps": len(small.path) - 1 if shrunk else small.violation[2], "raw_steps": len(r.path) - 1,
         "path": small.path[:small.violation[2] + 1], "story": report.story(small), "shrunk": shrunk, "count": 1}

    from ...judgements import judgement
    d.update(judgement(key, claim, sig))         # judgements.json: bug, documented choice, model, or not yet judged
    if shrunk:
        d.update(report.write_divergence(opts.out, key, small, number - 1, target, judged=d))
    return d


def code_of(v: report.Verdict) -> int:
    if v.cut == "interrupted":
        return INTERRUPTED
    if any(v.violated.values()) or any(n["violation"] for n in v.named) or any(r["divergence"] for r in v.kip848 + v.kip1071):
        return FAILED
    if v.cut or v.info or not v.requests or v.not_run:
        return NOT_PROVED
    return PASSED


def choose(names: list[str], adapter: str | None, coordinator: str | None, timeout: float) -> list[tuple[str, object]]:
    """(key, target) pairs; raises targets.UnknownTarget / AdapterError on bad input."""
    chosen = []
    for name in names:
        for n in (targets.BUILTIN if name == "all" else (name,)):
            chosen.append((n, targets.builtin(n)))
    if coordinator:
        chosen.append((f"python:{coordinator}", targets.python_class(coordinator)))
    if adapter:
        chosen.append((f"adapter:{adapter.split()[0]}", targets.external(adapter, timeout)))
    if not chosen:
        raise targets.UnknownTarget("--role group-coordinator: give --target reference|librdkafka-mock|all "
                                    "(or broken:<name>), --coordinator pkg.module:Class or --adapter 'COMMAND ...'")
    return chosen


def main(names, adapter, coordinator, opts: Options, timeout: float, progress, say) -> int:
    """Run the campaign; print each verdict with ``say``; return the exit code."""
    try:
        chosen = choose(names, adapter, coordinator, timeout)
    except (targets.UnknownTarget, AdapterError) as e:
        progress(f"error: {e}")
        return BAD_INPUT
    deadline = time.monotonic() + (opts.max_seconds or 600.0)
    codes = []
    # Ctrl-C or SIGTERM: KeyboardInterrupt, which run_target turns into a written verdict cut
    # "interrupted" (the CLI's own handler, for interrupts before a search begins, would report nothing)
    with campaign.signals_interrupt() as stopped:
        try:
            return _run_all(chosen, opts, deadline, codes, progress, say, stopped)
        except KeyboardInterrupt:
            code = signal_code(stopped[0]) if stopped else INTERRUPTED
            say(f"INTERRUPTED: what was found is written (exit {code})")
            return code


def _run_all(chosen, opts: Options, deadline: float, codes: list, progress, say, stopped: list[int]) -> int:
    broken = []
    for key, target in chosen:
        if time.monotonic() > deadline:
            say(f"target {key}: not run (time limit came first)")
            codes.append(NOT_PROVED)
            continue
        where = opts.out / "conform" / "group-coordinator" / report.slug(key)
        if hasattr(target, "log_dir"):       # a broker groupcheck starts keeps its log with the verdict
            target.log_dir = where
        try:
            v = run_target(target, key, Options(**{**opts.__dict__, "out": where}), progress, deadline)
        except AdapterError as e:
            progress(f"error: {e}")
            try:
                target.close()
            except Exception:  # noqa: BLE001
                pass
            codes.append(BAD_INPUT)
            continue
        path = report.write(v, where)
        transcript = getattr(target, "transcript", None)        # an external program: the messages exchanged
        if transcript is not None:
            atomic_write_text(where / "adapter-transcript.jsonl", "".join(
                json.dumps({"dir": d, "message": m}) + "\n" for d, m in transcript[-5000:]), force=True)
        say(v.text() + f"  verdict: {path}")
        codes.append(code_of(v))
        broken.append(v.broken)
        if codes[-1] == INTERRUPTED:
            break
    code = next((c for c in (INTERRUPTED, BAD_INPUT, FAILED, NOT_PROVED) if c in codes), PASSED)
    if code == NOT_PROVED and broken and all(broken):
        say("NOT PROVED: the target never gave an answer that could be judged (it hung, exited or answered "
            "garbage: every scenario ended in info) (exit 3)")
        return code
    say({PASSED: "PASSED: every claim held (exit 0)", FAILED: "FAILED: divergences found (see above) (exit 1)",
         BAD_INPUT: "ERROR: bad input or an adapter broke the protocol (exit 2)",
         NOT_PROVED: "NOT PROVED: a limit cut the run or an answer was info (exit 3)",
         INTERRUPTED: "INTERRUPTED: what was found is written"}[code]
        + ("" if code != INTERRUPTED else f" (exit {signal_code(stopped[0]) if stopped else INTERRUPTED})"))
    return signal_code(stopped[0]) if code == INTERRUPTED and stopped else code


def replay_claim(target_key: str, scope: str, path: list[int], claim: str | None = None):
    """For regression tests: (claim, message, path step) of the first violation (of
    ``claim``, when given, among the claims violated at the divergent step), or None."""
    target = targets.builtin(target_key)
    hello = target.open()
    try:
        r = run_scenario(target, hello, scope, path, f"gc-regression-{time.monotonic_ns()}", config_of(target))
    finally:
        target.close()
    found = next((f for f in r.found if claim in (None, f[0])), None)
    return None if found is None else found[:3]

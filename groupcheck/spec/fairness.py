"""Liveness under fairness on both sides of a spec folder.

A *liveness config* is a TLC model (``MC*.cfg``) whose PROPERTY is the spec's liveness
claim: ``FairSettles`` (``Fairness => []<>GroupConverged``) at a pinned scope, or a known
bug's ``FairSettles<KEY>`` (a manifest variant whose ``property`` is
``settles_under_fairness``). TLC checks the formula (``groupcheck spec tlc``); the model's
side is ``groupcheck check --fairness`` at the manifest's scope of that config:
``checker.bfs(fairness=True)``, no symmetry reduction, over the model with no claim of its
own (the config checks the PROPERTY and TypeOK only, and the model's states are typed by
Python), so a safety claim the bug also breaks does not stop the search before the lasso.
A base config holds on both sides; a variant's gives a lasso on both, which
``liveness.judge_lasso`` confirms is a fair cycle that never converges."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from groupcheck.model.core import Model, replay

from ..checker import Report, bfs
from ..liveness import judge_lasso
from .link import read_cfg
from .manifest import LIVENESS, Bundle, ManifestError, Variant

CLAIM = LIVENESS                       # the checker's claim a liveness config states
PREFIX = "FairSettles"                 # the PROPERTY of a liveness config: FairSettles, FairSettles<KEY>


@dataclass(frozen=True)
class LivenessConfig:
    """One liveness config of a spec folder and the scope the manifest gives it."""

    cfg: Path
    claim: str                       # its PROPERTY, e.g. FairSettlesKAFKA20870
    scope: Any
    variant: Variant | None          # the known bug (both sides find a lasso); None: a base config (holds)
    distinct_states: int | None      # TLC's distinct states, as the manifest pins them

    @property
    def name(self) -> str:
        return self.cfg.stem


def fair_claim(cfg: Path) -> str | None:
    """The PROPERTY of ``cfg`` that states liveness under fairness (FairSettles*), if any."""
    return next((p for p in read_cfg(cfg).get("PROPERTY", []) if p.startswith(PREFIX)), None)


def configs(bundle: Bundle) -> list[LivenessConfig]:
    """Every liveness config of ``bundle``'s folder, with its manifest scope; a liveness
    config the manifest names neither as a pinned config nor as a variant's ``mc`` is a
    ManifestError (its scope is unknown)."""
    out = []
    for cfg in sorted(bundle.folder.glob("MC*.cfg")):
        claim = fair_claim(cfg)
        if claim is None:
            continue
        variant = next((v for v in bundle.variants if v.tlc_model == cfg.stem), None)
        pinned = next((c for c in bundle.configs if c.name == cfg.stem), None)
        if variant is not None:
            if variant.property != CLAIM:
                raise ManifestError(f"{bundle.folder / 'manifest.json'}: {cfg.name} states {claim}, but its variant "
                                    f"{variant.key} claims {variant.property!r}, not {CLAIM!r}")
            out.append(LivenessConfig(cfg, claim, bundle.variant_scope(variant), variant, variant.distinct_states))
        elif pinned is not None:
            out.append(LivenessConfig(cfg, claim, pinned.scope, None, pinned.distinct_states))
        else:
            raise ManifestError(f"{bundle.folder / 'manifest.json'}: {cfg.name} states {claim}, but no config or "
                                "variant of the manifest names it (its scope is unknown)")
    return out


def write_model(bundle: Bundle, name: str, scope, into: Path) -> Path:
    """A liveness config of the base spec at ``scope`` written into the folder ``into`` (a copy
    of the spec folder): the module ``MCAt_<name>_Liveness`` EXTENDS the spec and TLC and defines
    each constant the protocol's mapping gives for ``scope`` (TLA+ text by ``values.show``), and
    its cfg states ``PROPERTY FairSettles`` with the command's ``-deadlock`` (a state with no
    step stutters, which FairSettles judges) and ``-fp 0 -lncheck final``. Returns the cfg.
    What the shipped ``MC<Module>Liveness`` configs are, at every pinned scope of a folder."""
    from .values import ModelValue, show
    stem = "MCAt_" + re.sub(r"\W", "_", name) + "_Liveness"        # never a shipped config's name
    constants = bundle.constants(scope)
    defined = {c: v for c, v in sorted(constants.items()) if not isinstance(v, ModelValue)}
    module = [f"---- MODULE {stem} ----", f"EXTENDS {bundle.module}, TLC"]
    module += [f"MC_{c} == {show(v)}" for c, v in defined.items()] + ["===="]
    cfg = [f"\\* TLC: java -cp tla2tools.jar tlc2.TLC -workers 1 -deadlock -fp 0 -lncheck final -config "
           f"{stem}.cfg {stem}.tla", "CONSTANTS"]
    cfg += [f"    {c} <- MC_{c}" for c in defined]
    cfg += [f"    {c} = {v.name}" for c, v in sorted(constants.items()) if isinstance(v, ModelValue)]
    cfg += ["INIT Init", "NEXT Next"] + ([f"CONSTRAINT {bundle.constraint}"] if bundle.constraint else [])
    cfg += ["PROPERTY FairSettles"]
    (into / f"{stem}.tla").write_text("\n".join(module) + "\n")
    (into / f"{stem}.cfg").write_text("\n".join(cfg) + "\n")
    return into / f"{stem}.cfg"


def liveness_only(model: Model) -> Model:
    """The model with no claim of its own: only the checker's claims judge the graph (deadlock,
    and the liveness claims), as a liveness config checks only its PROPERTY."""
    return replace(model, properties=())


def model_verdict(bundle: Bundle, scope, budget=None) -> Report:
    """``groupcheck check --fairness`` at ``scope`` over the model with no claim of its own:
    the whole graph without symmetry reduction, then settles_under_fairness."""
    return bfs(liveness_only(bundle.model), scope, fairness=True, budget=budget)


def judge_path(model: Model, scope, path: list[int], loop: int) -> str | None:
    """``liveness.judge_lasso`` on a model path whose cycle starts at state ``loop`` (and whose
    last state is that state again): why it is a fair cycle that never converges, or None."""
    first, steps = replay(model, scope, path)
    return judge_lasso(model, scope, [first] + [s.next for s in steps], [s.action for s in steps], loop)


def check(bundle: Bundle, lc: LivenessConfig, report=None):
    """The model's side of one liveness config (``crosscheck.Report``): the BFS with fairness
    at its scope holds (a base config) or finds a lasso (a variant) that ``judge_lasso``
    confirms and whose every step, the step back included, is a step of the variant's next.
    The formula itself is TLC's to check (``groupcheck spec tlc``). ``same_as``: the check
    the config's row so far (``crosscheck.same_scope``'s, when another check compared the
    reachable states at this scope), added to."""
    import time

    from . import crosscheck
    started = time.perf_counter()
    report = report or crosscheck.Report(f"{bundle.protocol.name} {lc.name}")
    found = model_verdict(bundle, lc.scope)
    report.figures["model states (fairness, no symmetry)"] = found.states
    v = found.violation
    if found.cut is not None:
        report.problems.append(f"the model's search with fairness stopped ({found.cut})")
    elif lc.variant is None:
        if v is not None:
            report.problems.append(f"the model breaks {v.property} at {lc.name}'s scope ({v.message}); "
                                   f"{lc.claim} must hold there")
    elif v is None or v.property != CLAIM or v.loop is None:
        got = f"{v.property} ({v.message})" if v else "no lasso"
        report.problems.append(f"the model's search with fairness under {lc.variant.key} finds {got}, not a "
                               f"{CLAIM} lasso")
    else:
        report.figures["model lasso"] = f"{len(v.path) - 1} steps back to state {v.loop}"
        if judge_path(bundle.model, lc.scope, v.path, v.loop) is None:
            report.problems.append("judge_lasso does not confirm the model's lasso (not a fair cycle that never converges)")
        spec = crosscheck.load_spec(bundle, lc.scope, lc.variant.module, lc.variant.next)
        steps, problems = crosscheck.validate_path(bundle, lc.scope, v.path, spec, named=False)
        report.add("lasso steps that are not the spec's", [f"the model's lasso: {p}" for p in problems])
    report.figures["spec side"] = f"TLC's: `groupcheck spec tlc {_shown(lc.cfg)}` checks {lc.claim}"
    report.seconds += time.perf_counter() - started
    return report


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)

"""The names a spec shares with the model, checked in both directions.

Every action of the spec's Next is a model action kind (``LoseResponse`` is
``lose_response``), every invariant of the MC config is an always/within property, every
witness (the definitions after the spec's ``\\* Witnesses`` comment) a sometimes
property, every known-bug variant module a variant of the model; and every model
name is in the spec or in the manifest's ``leaves_out`` with a reason. A name left out
that the spec has after all is a mistake too: the list must stay true."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..files import SPEC_BYTES, read_text
from ..checker import liveness_claims
from .manifest import Bundle

CFG_KEYWORDS = ("CONSTANTS", "CONSTANT", "INIT", "NEXT", "SPECIFICATION", "INVARIANTS", "INVARIANT",
                "PROPERTIES", "PROPERTY", "CONSTRAINTS", "CONSTRAINT", "ACTION_CONSTRAINTS",
                "ACTION_CONSTRAINT", "SYMMETRY", "VIEW", "CHECK_DEADLOCK", "POSTCONDITION", "ALIAS")


def camel(kind: str) -> str:
    """The spec's name of a model action kind: ``lose_response`` -> ``LoseResponse``."""
    return "".join(part[:1].upper() + part[1:] for part in kind.split("_"))


def read_cfg(path: Path) -> dict[str, list[str]]:
    """A TLC config as {keyword: the words after it}, plural keywords folded into singular
    (INVARIANTS -> INVARIANT); ``\\*`` comments dropped."""
    out: dict[str, list[str]] = {}
    key = None
    for line in read_text(path, "a TLC config", SPEC_BYTES).splitlines():
        line = line.split("\\*", 1)[0]
        for word in re.findall(r"<-|[^\s=]+|=", line):
            if word in CFG_KEYWORDS:
                key = word.rstrip("S") if word.endswith("S") and word != "ALIAS" else word
                out.setdefault(key, [])
            elif key is not None:
                out[key].append(word)
    return out


def section(source: str, title: str) -> list[str]:
    """The names defined after the spec's ``\\* <title>`` comment line, up to the next
    such section (``Witnesses``, ``Step claims``, ``For TLC``) or the end."""
    names: list[str] = []
    inside = False
    for line in source.splitlines():
        header = re.match(r"\s*\\\*\s*(Witnesses|Step claims|For TLC)\s*$", line)
        if header:
            inside = header.group(1) == title
            continue
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*==", line)
        if inside and m:
            names.append(m.group(1))
    return names


def witnesses(source: str) -> list[str]:
    """The names defined after the spec's ``\\* Witnesses`` comment line."""
    return section(source, "Witnesses")


def step_claims(source: str) -> list[str]:
    """The names defined after the spec's ``\\* Step claims`` comment line: claims on a
    step (primed and unprimed variables), as the model's ``on="step"`` properties."""
    return section(source, "Step claims")


@dataclass
class Names:
    """What each side names, and every mismatch as a sentence."""

    actions: list[str]          # model kinds the spec has
    properties: list[str]       # model properties the spec has
    variants: list[str]
    problems: list[str]


def _compare(what: str, section: str, model: list[str], spec: list[str], left_out: dict[str, str],
             show=str) -> tuple[list[str], list[str]]:
    """Model names against spec names, with ``leaves_out.<section>``: the names both have,
    and every mismatch as a sentence."""
    problems = []
    for name in model:
        if name not in spec and name not in left_out:
            problems.append(f"{what} {show(name)} of the model is not in the spec and not in leaves_out.{section}")
        if name in spec and name in left_out:
            problems.append(f"{what} {show(name)} is in the spec but listed in leaves_out.{section}")
    for name in spec:
        if name not in model:
            problems.append(f"{what} {show(name)} of the spec is not one of the model's")
    for name in left_out:
        if name not in model:
            problems.append(f"leaves_out.{section} names {name!r}, which the model does not have")
    return [n for n in model if n in spec], problems


def check(bundle: Bundle, action_names: tuple[str, ...]) -> Names:
    """Compare the names of ``bundle``'s spec (its Next's ``action_names``, the MC
    config's invariants, the witnesses) with the model's."""
    model = bundle.model
    out = bundle.leaves_out
    problems: list[str] = []
    kinds = list(model.action_kinds)
    by_camel = {camel(k): k for k in kinds}
    spec_kinds = [by_camel.get(a, a) for a in action_names]
    actions, p = _compare("action", "actions", kinds, spec_kinds, out["actions"], show=lambda k: camel(k) if k in model.action_kinds else k)
    problems += p

    cfg_path = bundle.folder / f"MC{bundle.module}.cfg"
    # TypeOK is the spec's own (the model's states are typed by Python)
    invariants = [n for n in (read_cfg(cfg_path).get("INVARIANT", []) if cfg_path.is_file() else []) if n != "TypeOK"]
    if not cfg_path.is_file():
        problems.append(f"{cfg_path.name} is missing (the MC config lists the invariants)")
    source = bundle.path.read_text()
    seen = witnesses(source)
    steps = step_claims(source)
    kinds_of = {p.name: p.kind for p in model.properties}
    on = {p.name: p.on for p in model.properties}
    for name in invariants:
        if on.get(name) == "step":
            problems.append(f"invariant {name} of {cfg_path.name} is a claim on steps in the model (list it under "
                            "the spec's \\* Step claims)")
    for name in steps:
        if name in on and on[name] != "step":
            problems.append(f"step claim {name} is a claim on states in the model (an invariant)")
    for name in invariants:
        if kinds_of.get(name) == "sometimes":
            problems.append(f"invariant {name} of {cfg_path.name} is a sometimes claim of the model (a witness)")
    for name in seen:
        if name in kinds_of and kinds_of[name] != "sometimes":
            problems.append(f"witness {name} is an {kinds_of[name]} claim of the model (an invariant)")
    properties, p = _compare("property", "properties", list(kinds_of), invariants + steps + seen, out["properties"])
    problems += p

    keys = [v.key for v in bundle.protocol.variants]
    variants, p = _compare("variant", "variants", keys, [v.key for v in bundle.variants], out["variants"])
    problems += p
    for v in bundle.variants:
        if not (bundle.folder / f"{v.module}.tla").is_file():
            problems.append(f"variant {v.key}: no module file {v.module}.tla")
        if v.property not in kinds_of and v.property not in liveness_claims(model):
            problems.append(f"variant {v.key}: property {v.property!r} is not one of the model's")
    return Names(actions, properties, variants, problems)

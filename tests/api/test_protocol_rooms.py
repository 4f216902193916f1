"""Every registered protocol has a complete room (CONTRIBUTING.md, "Add a protocol").

``room_problem`` checks one ``Protocol`` piece by piece, in the checklist's order, and
names the first piece missing or malformed in one line: the protocol, the piece, what is
wrong, where it goes. The last tests register rooms that lack a piece and check the
message names it.
"""
from __future__ import annotations

import importlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from groupcheck.checker import CHECKER_CLAIMS, walk
from groupcheck.model.core import Model, replay
from groupcheck.properties.known_bugs import Variant
from groupcheck.protocols import PROTOCOLS, Fleet, Protocol, get
from groupcheck.spec import manifest
from groupcheck.tracecheck.observe import observation

ROOT = Path(__file__).resolve().parents[2]
# the pieces a protocol may truly not have (None, said where its room builds it)
OPTIONAL = ("plan_stage", "reference", "fleet", "spec_mapping")


def _model(p: Protocol) -> str | None:
    if not isinstance(p.model, Model) or not p.model.properties:
        return "not a Model with properties"
    if not (ROOT / "model" / p.package / "__init__.py").is_file():
        return f"no package model/{p.package}/ (Protocol.package)"
    own = importlib.import_module(f"groupcheck.model.{p.package}").MODEL
    return None if own.name == p.model.name else f"model/{p.package}'s MODEL is {own.name!r}, not {p.model.name!r}"


def _scopes(p: Protocol) -> str | None:
    scopes = p.default_scopes()
    if not isinstance(scopes, dict) or not scopes:
        return "no reference scope (default_scopes() gives none)"
    kind = type(p.model.view.default_scope())
    wrong = [name for name, s in scopes.items() if type(s) is not kind]
    return f"{', '.join(wrong)} not a {kind.__name__}" if wrong else None


def _profiles(p: Protocol) -> str | None:
    if not p.profiles or not all(isinstance(x, str) for x in p.profiles):
        return "no profiles"
    scope = p.model.view.default_scope()
    wrong = [x for x in p.profiles if p.with_profile(scope, x).profile != x]
    return f"with_profile does not set {', '.join(wrong)}" if wrong else None


def _scope_text(p: Protocol) -> str | None:
    blank = [name for name, s in p.default_scopes().items() if not p.scope_text(s)]
    return f"no text for {', '.join(blank)}" if blank else None


def _flags(p: Protocol) -> str | None:
    fields = p.model.view.scope_to_dict(p.model.view.default_scope())
    unknown = [f for f in p.flags if f not in fields]
    if unknown:
        return f"{', '.join(unknown)} not a field of the scope's JSON"
    if ("plan" in p.flags) != (p.plan_stage is not None):
        return "plan_stage must be given exactly when 'plan' is a flag"
    return None


def _reference(p: Protocol) -> str | None:
    for title, columns, rows in p.reference() if p.reference is not None else []:
        if any(len(row) != len(columns) for row in rows):
            return f"table {title!r}: a row without {len(columns)} columns"
    return None


def _variants(p: Protocol) -> str | None:
    claims = {prop.name for prop in p.model.properties} | set(CHECKER_CLAIMS)
    keys = [v.key for v in p.variants]
    if len(set(keys)) != len(keys):
        return "two variants share a key"
    for v in p.variants:
        if not isinstance(v, Variant):
            return f"{v!r} is not a known_bugs.Variant"
        unknown = [c for c in v.caught_by if c not in claims]
        if unknown:
            return f"{v.key} expects {', '.join(unknown)}, which {p.model.name} does not claim"
        if type(v.buggy_scope()) is not type(v.reference_scope()):
            return f"{v.key}: its buggy and reference scopes differ in kind"
    module = ROOT / "properties" / "known_bugs" / f"{p.package}.py"
    if p.variants and not module.is_file():
        return f"no {module.relative_to(ROOT)}"
    return None


def _out_of_reach(p: Protocol) -> str | None:
    witnesses = {prop.name for prop in p.model.properties if prop.kind == "sometimes"}
    for name, s in p.default_scopes().items():
        unknown = set(p.out_of_reach(s)) - witnesses
        if unknown:
            return f"{name}: {', '.join(sorted(unknown))} not a sometimes-claim"
    return None


def _observer(p: Protocol) -> str | None:
    """Walks of every reference scope, observed: each observation is of a kind ``observed``
    declares (``observation`` raises UnknownKind naming it), and the walks show some."""
    if not p.observed or not all(isinstance(f, tuple) for f in p.observed.values()):
        return "observed: no kinds, or a kind without its tuple of fields"
    seen = 0
    for scope in p.default_scopes().values():
        observe = p.observer(p.model, scope)
        for seed in range(3):
            path, _, _ = walk(p.model, scope, seed, 60)
            for s in replay(p.model, scope, path)[1]:
                for o in observe(s.prev, s.action, s.next, s.events):
                    observation(p, o)
                    seen += 1
    return None if seen else "its walks observed nothing"


def _fleet(p: Protocol) -> str | None:
    if p.fleet is None:
        return None
    if not isinstance(p.fleet, Fleet) or p.fleet.scope not in p.default_scopes():
        return "fleet.scope: not one of its reference scopes"
    unknown = set(p.fleet.bugs) - {v.key for v in p.variants}
    return f"fleet.bugs: {', '.join(sorted(unknown))} not its variants" if unknown else None


def _spec(p: Protocol) -> str | None:
    folder = manifest.folders().get(p.name)
    if p.spec_mapping is None:
        return None if folder is None else f"None, but {folder.name}/manifest.json names {p.name!r}"
    mapping = importlib.import_module(p.spec_mapping)
    if not (callable(getattr(mapping, "constants", None)) and callable(getattr(mapping, "variables", None))):
        return f"{p.spec_mapping} has no constants() and variables()"
    if folder is None:
        return f"no specs/<package>/manifest.json naming protocol {p.name!r}"
    named = json.loads((folder / "manifest.json").read_text())["mapping"]
    return None if named == p.spec_mapping else f"{folder.name}/manifest.json names {named!r}"


def _files(p: Protocol) -> str | None:
    page = ROOT / "docs" / "protocols" / f"{p.name}.md"
    if not page.is_file():
        return f"no docs page {page.relative_to(ROOT)}"
    if f"protocols/{p.name}.md" not in (ROOT / "mkdocs.yml").read_text():
        return f"docs/protocols/{p.name}.md not in mkdocs.yml's nav"
    if not list((ROOT / "tests" / "model" / p.package).glob("test_*.py")):
        return f"no tests in tests/model/{p.package}/"
    room = importlib.import_module(f"groupcheck.protocols.{p.package}")
    if getattr(room, "PROTOCOL", None) is not PROTOCOLS.get(p.name):
        return f"groupcheck/protocols/{p.package}.py's PROTOCOL is not the one registered"
    return None


CHECKS = (("model", _model), ("default_scopes", _scopes), ("profiles", _profiles), ("scope_text", _scope_text),
          ("flags", _flags), ("reference", _reference), ("variants", _variants), ("out_of_reach", _out_of_reach),
          ("observer", _observer), ("fleet", _fleet), ("spec_mapping", _spec), ("files", _files))


def room_problem(p: Protocol) -> str | None:
    """The first piece of ``p``'s room missing or malformed, as one line; None: complete."""
    where = f"groupcheck/protocols/{p.package}.py"
    for name, value in vars(p).items():
        if value is None and name not in OPTIONAL:
            return f"protocol {p.name!r}: {name} is missing (None); give it in {where}"
    for piece, check in CHECKS:
        try:
            why = check(p)
        except Exception as e:          # the piece is there but does not work
            why = f"{type(e).__name__}: {e}"
        if why is not None:
            return f"protocol {p.name!r}: {piece}: {why} ({where})"
    return None


@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_every_registered_protocol_has_a_complete_room(name):
    p = PROTOCOLS[name]
    assert p.name == name
    problem = room_problem(p)
    assert problem is None, problem


def _registered_problems() -> list[str]:
    return [problem for p in PROTOCOLS.values() if (problem := room_problem(p)) is not None]


def test_a_registered_protocol_without_an_observer_is_named(monkeypatch):
    monkeypatch.setitem(PROTOCOLS, "consumer-group", replace(get("consumer-group"), observer=None))
    assert _registered_problems() == ["protocol 'consumer-group': observer is missing (None); "
                                      "give it in groupcheck/protocols/consumer_group.py"]


@pytest.mark.parametrize("change, message", [
    ({"default_scopes": dict}, "default_scopes: no reference scope (default_scopes() gives none)"),
    ({"observed": {"assigned": ("client", "partitions")}},
     "observer: UnknownKind: unknown event kind \"revoked\" for consumer; known kinds: assigned"),
    ({"flags": ("members", "plan"), "plan_stage": None}, "flags: plan_stage must be given exactly when 'plan' is a flag"),
    ({"fleet": Fleet(scope="cooperative", bugs=("KAFKA-0",))}, "fleet: fleet.bugs: KAFKA-0 not its variants"),
    ({"spec_mapping": "groupcheck.spec.mapping.streams_group"}, "spec_mapping: consumer/manifest.json names "
                                                                "'groupcheck.spec.mapping.consumer'"),
    ({"package": "consumer_v2"}, "model: no package model/consumer_v2/ (Protocol.package)"),
    ({"spec_mapping": None}, "spec_mapping: None, but consumer/manifest.json names 'consumer'"),
])
def test_a_room_with_a_broken_piece_is_named(change, message):
    broken = replace(get("consumer"), **change)
    problem = room_problem(broken)
    assert problem.startswith(f"protocol 'consumer': {message}"), problem


def test_a_variant_expecting_a_claim_the_model_lacks_is_named():
    p = get("streams-group")
    bad = replace(p.variants[0], also=("no_such_claim",))
    problem = room_problem(replace(p, variants=(bad,) + p.variants[1:]))
    assert problem == (f"protocol 'streams-group': variants: {bad.key} expects no_such_claim, which streams-group "
                       "does not claim (groupcheck/protocols/streams_group.py)")

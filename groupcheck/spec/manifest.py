"""A protocol's TLA+ spec folder (``specs/<package>/``) as the cross-checks read it.

``manifest.json`` ties the spec to the model: the spec module, the Python mapping of a
model state onto the spec's variables, the pinned tiny scopes whose reachable states are
compared (``configs``), the scopes whose walks are validated, the known-bug variants the
spec has a module for, and what the spec leaves out (each with its reason)."""
from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from groupcheck.model.scopes import shorten

from ..files import InputError, read_text
from ..protocols import PROTOCOLS, Protocol, get

SPECS = Path(__file__).resolve().parents[2] / "specs"
# the modules a manifest's "mapping" may name: groupcheck's own, as the protocols' rooms register
# them (``Protocol.spec_mapping``), never a module the folder names
MAPPINGS = tuple(sorted(p.spec_mapping for p in PROTOCOLS.values() if p.spec_mapping is not None))


LIVENESS = "settles_under_fairness"     # the checker's liveness claim a variant's TLC model may state


class ManifestError(ValueError):
    """A spec folder that cannot be used; the message names the file and the field."""


class OutsideSpec(ValueError):
    """A scope or model state that uses something the spec does not state; the mapping
    that refused it (``groupcheck/spec/mapping/<protocol>.py``) says what."""


@dataclass(frozen=True)
class Config:
    name: str                 # the MC module whose constants it fixes, e.g. MCConsumer
    scope: Any                # the model's scope
    distinct_states: int      # reachable states, the same on both sides (no symmetry)
    witnesses: tuple | None = None   # the witnesses both sides reach there (None: not pinned)
    broken: tuple | None = None      # the claims both sides find broken there (None: not pinned)


@dataclass(frozen=True)
class Variant:
    key: str                  # the known bug, e.g. KAFKA-13419
    module: str               # the module that EXTENDS the base and replaces one action
    next: str                 # its next-state operator
    property: str             # the claim its counterexample breaks, on both sides
    # the bug's rule switched on at the spec's profile, where the model's own scope for the
    # bug needs a profile the spec does not state (None: the model's scope)
    scope: Any = None
    distinct_states: int | None = None   # the variant's reachable states at that scope, if compared
    mc: str = ""              # its TLC model (MC module and cfg); default MC<module>

    @property
    def tlc_model(self) -> str:
        return self.mc or f"MC{self.module}"


@dataclass(frozen=True)
class Bundle:
    """One protocol's spec and everything needed to hold it against the model."""

    protocol: Protocol
    folder: Path
    module: str
    constants: Callable[[Any], dict]            # scope -> {constant: value}
    variables: Callable[[Any, Any], dict]       # (scope, model state) -> {variable: value}
    configs: tuple[Config, ...]
    walk_scopes: tuple[Any, ...]
    variants: tuple[Variant, ...]
    leaves_out: dict[str, dict[str, str]] = field(default_factory=dict)
    constraint: str | None = None

    @property
    def path(self) -> Path:
        return self.folder / f"{self.module}.tla"

    @property
    def model(self):
        return self.protocol.model

    def variant_scope(self, variant: Variant):
        """The scope a variant is checked at: the manifest's, else the model's own for the bug."""
        if variant.scope is not None:
            return variant.scope
        return next(v for v in self.protocol.variants if v.key == variant.key).buggy_scope()


def folders() -> dict[str, Path]:
    """protocol name -> its spec folder, for every folder with a manifest."""
    out = {}
    for manifest in sorted(SPECS.glob("*/manifest.json")):
        try:
            name = json.loads(manifest.read_text())["protocol"]
        except (ValueError, KeyError):
            continue
        out[name] = manifest.parent
    return out


def _need(data: dict, key: str, kind: type, where: str):
    if key not in data:
        raise ManifestError(f"{where}: no {key!r}")
    if not isinstance(data[key], kind):
        raise ManifestError(f"{where}.{key}: expected {kind.__name__}, got {type(data[key]).__name__}")
    return data[key]


def _scope(protocol: Protocol, value: Any, where: str):
    if not isinstance(value, dict):
        raise ManifestError(f"{where}: expected a scope object")
    base = protocol.model.view.scope_to_dict(protocol.model.view.default_scope())
    try:
        return protocol.model.view.scope_from_dict({**base, **value})
    except ValueError as e:
        raise ManifestError(f"{where}: {e}") from None


def _liveness_variant(protocol: Protocol, variant: Variant, where: str) -> None:
    """A variant whose property is one of the checker's own claims must claim liveness
    under fairness (the one such claim TLA+ states: ``FairSettles<KEY>``), the protocol's
    model must have it (``checker.liveness_claims``), and its TLC model must be named
    (``mc``: the default ``MC<module>`` is the bug's safety config)."""
    from ..checker import CHECKER_CLAIMS, liveness_claims
    if variant.property not in CHECKER_CLAIMS:
        return
    has = liveness_claims(protocol.model)
    if variant.property != LIVENESS or LIVENESS not in has:
        raise ManifestError(f"{where}.property: {variant.property!r} is not a liveness claim the {protocol.name} "
                            f"model has for TLC to state (it has: {', '.join(c for c in has if c == LIVENESS) or 'none'})")
    if not variant.mc:
        raise ManifestError(f"{where}: a {LIVENESS} variant needs \"mc\", its TLC model whose PROPERTY is "
                            f"FairSettles{variant.key.replace('-', '')}")


def load(protocol_name: str, folder: Path | None = None) -> Bundle:
    """Read ``specs/<package>/manifest.json`` of ``protocol_name`` (or ``folder``)."""
    if folder is None:
        known = folders()
        if protocol_name not in known:
            have = ", ".join(known) or "none"
            raise ManifestError(f"no TLA+ spec for protocol {protocol_name!r} under {SPECS}; specs exist for: {have}")
        folder = known[protocol_name]
    where = f"{folder / 'manifest.json'}"
    try:
        data = json.loads(read_text(folder / "manifest.json"))
    except InputError as e:
        raise ManifestError(str(e)) from None
    except ValueError as e:
        raise ManifestError(f"{where}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{where}: expected a JSON object")
    try:
        protocol = get(_need(data, "protocol", str, where))
    except ValueError as e:
        raise ManifestError(f"{where}: {e}") from None
    module = _need(data, "module", str, where)
    if not (folder / f"{module}.tla").is_file():
        raise ManifestError(f"{where}: module {module!r} has no file {module}.tla in {folder}")
    name = _need(data, "mapping", str, where)
    if name not in MAPPINGS:      # a spec folder is input: it names one of ours, it imports nothing else
        raise ManifestError(f"{where}.mapping: {shorten(repr(name))} is not one of groupcheck's mappings "
                            f"({', '.join(MAPPINGS)})")
    mapping = importlib.import_module(name)
    configs = tuple(
        Config(_need(c, "name", str, f"{where}.configs[{i}]"),
               _scope(protocol, c.get("scope"), f"{where}.configs[{i}].scope"),
               _need(c, "distinct_states", int, f"{where}.configs[{i}]"),
               *(tuple(_need(c, k, list, f"{where}.configs[{i}]")) if k in c else None for k in ("witnesses", "broken")))
        for i, c in enumerate(_need(data, "configs", list, where)))
    walks = tuple(_scope(protocol, s, f"{where}.walk_scopes[{i}]")
                  for i, s in enumerate(data.get("walk_scopes", [])))
    variants = tuple(
        Variant(*(_need(v, k, str, f"{where}.variants[{i}]") for k in ("variant", "module", "next", "property")),
                _scope(protocol, v["scope"], f"{where}.variants[{i}].scope") if "scope" in v else None,
                v.get("distinct_states"), v.get("mc", ""))
        for i, v in enumerate(data.get("variants", [])))
    for i, v in enumerate(variants):
        _liveness_variant(protocol, v, f"{where}.variants[{i}]")
    leaves_out = data.get("leaves_out", {})
    for kind in ("actions", "properties", "variants"):
        leaves_out.setdefault(kind, {})
    return Bundle(protocol, folder, module, mapping.constants, mapping.variables, configs, walks, variants,
                  leaves_out, data.get("constraint"))

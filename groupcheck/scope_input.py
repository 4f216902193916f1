"""What `groupcheck check` reads as a scope: --scope JSON (inline or @file), the scope
flags (--members, --partitions, ...) and --profile, turned into scopes or a clear error
(exit 2). Nothing is coerced: an empty item in a list flag, NaN or 1e400 in the JSON,
a string where a number belongs are all errors naming the field."""
from __future__ import annotations

import json
import re
from pathlib import Path

from groupcheck.model.core import NotSettled
from groupcheck.model.itf import JsonError, parse_json
from groupcheck.model.scopes import shorten, shown_repr

from .api.custom import plan_assignor_names, trust, trust_only
from .console import err, fail
from .files import InputError, read_text
from .protocols import PROTOCOLS, Protocol


ASSIGNOR_HELP = ("your own assignor (import path package.module:Class, or an installed entry point) that the "
                 "scopes of this run may load; repeat for more. A file naming one not given here is refused")


def trust_assignors(names: list[str] | None) -> None:
    """--assignor NAME ...: the user code the scopes of this command may load (and no other)."""
    trust_only(names or ())


def csv_items(flag: str, text: str) -> list[str]:
    """``'a, b'`` as ``['a', 'b']``; a blank text is no items; an empty item is an error."""
    if not text.strip():
        return []
    items = [x.strip() for x in text.split(",")]
    if "" in items:
        raise fail(f"{flag}: {shown_repr(text)} has an empty item; separate the items by single commas")
    return items


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def scope_json(given: str) -> dict:
    """--scope's JSON object, given inline or as @file."""
    where, text = "--scope", given
    if given.startswith("@"):
        if not given[1:]:
            raise fail("--scope @: give a file name after @, e.g. --scope @scope.json")
        try:
            text = read_text(Path(given[1:]))
        except InputError as e:
            raise fail(f"--scope: {e}") from None
        where = f"--scope {given}"
    if not text.strip():
        raise fail("--scope: empty; give a JSON object, e.g. '{\"members\": 3}', or @file.json")
    try:
        d = parse_json(text)
    except JsonError as e:
        raise fail(f"{where}: {e}") from None
    if not isinstance(d, dict):
        raise fail(f"{where}: give a JSON object, e.g. '{{\"members\": 3}}'")
    return d


def _flag_value(protocol: Protocol, name: str, value):
    """A scope flag's value in the scope's JSON form."""
    if name == "partitions":
        counts = csv_items("--partitions", value)
        if not all(re.fullmatch(r"[0-9]+", x) for x in counts):
            raise fail(f"--partitions: {shown_repr(value)} is not a comma-separated list of counts, e.g. 2,1")
        big = next((x for x in counts if len(x.lstrip("0")) > 15), None)
        if big is not None:      # the scope's own check gives the range; this spares int() a huge text
            raise fail(f"--partitions: {shorten(big)} is out of range (at most 2**53; the scope's own limits are "
                       "far lower), e.g. 2,1")
        return [int(x) for x in counts]
    if name in ("faults", "operations"):
        return csv_items(_flag(name), value)
    if name == "plan":
        try:
            stages = [protocol.plan_stage(stage) for stage in value.split("|")]
        except ValueError as e:
            raise fail(f"--plan: {e}") from None
        trust(name for _, name in plan_assignor_names({"plan": stages}))   # named on the command line
        return stages
    return value


def overrides(protocol: Protocol, scope: str | None, flags: dict) -> dict:
    """The scope fields set by --scope and by the flags the protocol takes; a flag it
    does not take is an error naming the ones it does."""
    d = scope_json(scope) if scope is not None else {}
    if scope is not None and not d:
        raise fail("--scope: {} sets no field; give the fields to change, e.g. '{\"members\": 3}', or drop --scope "
                   "to check the reference scopes")
    for name, value in flags.items():
        if value is None:
            continue
        if name not in protocol.flags:
            takes = ", ".join(_flag(f) for f in protocol.flags)
            raise fail(f"{_flag(name)} does not apply to {protocol.name}; its scope flags are {takes} "
                       "(any other scope field: --scope JSON)")
        new = _flag_value(protocol, name, value)
        if name in d and d[name] != new:
            err.print(f"note: {_flag(name)} overrides the --scope field {name} "
                      f"({shorten(json.dumps(d[name]), 60)} -> {shorten(json.dumps(new), 60)})",
                      markup=False, highlight=False, soft_wrap=True)
        d[name] = new
    return d


def build_scopes(protocol: Protocol, profile: str | None, given: dict) -> dict[str, object]:
    """The scopes to check: the protocol's defaults (under ``profile``), or one "custom"
    scope, the default scope with the ``given`` fields (its behaviour is the profile's,
    with the fields ``given["behaviour"]`` names overridden)."""
    model = protocol.model
    try:
        if given:
            base = model.view.scope_to_dict(model.view.default_scope())
            base.pop("behaviour", None)    # a field of some scopes (the consumer's), a property of others
            base.update(given)
            if profile is not None:
                base["profile"] = profile
            scopes = {"custom": model.view.scope_from_dict(base)}
        else:
            scopes = protocol.default_scopes()
            if profile is not None:
                scopes = {name: protocol.with_profile(s, profile) for name, s in scopes.items()}
        for s in scopes.values():
            try:
                model.init_states(s)    # a scope whose start cannot be built fails here, not in BFS
            except NotSettled:
                pass                    # the rules' failure, not the input's: BFS reports can_settle
        return scopes
    except ValueError as e:
        raise fail(str(e)) from None


def one_protocol_options(protocols: list[Protocol], flags: dict, scope: str | None, profile: str | None) -> None:
    """Checking every protocol: scope options and profiles belong to one, so refuse them."""
    named = [k for k, v in flags.items() if v is not None]
    if named or scope:
        owner = next((p.name for p in protocols if set(named) <= set(p.flags)), protocols[0].name)
        given = " ".join([_flag(k) for k in named] + (["--scope"] if scope else []))
        raise fail(f"{given}: scope options apply to one protocol; name it, "
                   f"e.g. groupcheck check {owner} {given} ... (protocols: {', '.join(PROTOCOLS)})")
    if profile is not None:
        owners = [p.name for p in protocols if profile in p.profiles]
        hint = (f"{profile} is a profile of {owners[0]}: groupcheck check {owners[0]} --profile {profile}"
                if owners else "; ".join(f"{p.name}: {', '.join(p.profiles)}" for p in protocols))
        raise fail(f"--profile needs a protocol, the profiles differ ({hint})")

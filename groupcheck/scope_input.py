"""What `groupcheck check` reads as a scope: --scope JSON (inline or @file), the scope
flags (--members, --partitions, ...) and --profile, turned into scopes or a clear error."""
from __future__ import annotations

import json
from pathlib import Path

from .console import fail
from .protocols import PROTOCOLS, Protocol


def csv_items(text: str | None) -> list[str] | None:
    return None if text is None else [x.strip() for x in text.split(",") if x.strip()]


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def scope_json(text: str) -> dict:
    raw = text
    if raw.startswith("@"):
        try:
            raw = Path(raw[1:]).read_text()
        except OSError as e:
            raise fail(f"--scope: cannot read {raw[1:]}: {e.strerror}") from None
    try:
        d = json.loads(raw)
    except json.JSONDecodeError as e:
        raise fail(f"--scope: not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(d, dict):
        raise fail("--scope: give a JSON object, e.g. '{\"members\": 3}'")
    return d


def overrides(protocol: Protocol, scope: str | None, flags: dict) -> dict:
    """The scope fields set by --scope and by the flags the protocol takes; a flag it
    does not take is an error naming the ones it does."""
    d = scope_json(scope) if scope else {}
    for name, value in flags.items():
        if value is None:
            continue
        if name not in protocol.flags:
            takes = ", ".join(_flag(f) for f in protocol.flags)
            raise fail(f"{_flag(name)} does not apply to {protocol.name}; its scope flags are {takes} "
                       "(any other scope field: --scope JSON)")
        if name == "partitions":
            try:
                d["partitions"] = [int(x) for x in csv_items(value)]
            except ValueError:
                raise fail(f"--partitions: {value!r} is not a comma-separated list of counts") from None
        elif name in ("faults", "operations"):
            d[name] = csv_items(value)
        elif name == "plan":
            try:
                d["plan"] = [protocol.plan_stage(stage) for stage in value.split("|")]
            except ValueError as e:
                raise fail(f"--plan: {e}") from None
        else:
            d[name] = value
    return d


def build_scopes(protocol: Protocol, profile: str | None, given: dict) -> dict[str, object]:
    model = protocol.model
    try:
        if given:
            base = model.scope_to_dict(model.default_scope())
            base.update(given)
            if profile is not None:
                base["profile"] = profile
            if (profile is not None or "profile" in given) and "behaviour" not in given:
                base.pop("behaviour", None)     # the profile's behaviour, not the default's
            scopes = {"custom": model.scope_from_dict(base)}
        else:
            scopes = protocol.default_scopes()
            if profile is not None:
                scopes = {name: protocol.with_profile(s, profile) for name, s in scopes.items()}
        for s in scopes.values():
            model.init_states(s)        # a scope whose start cannot be built fails here, not in BFS
        return scopes
    except ValueError as e:
        raise fail(str(e)) from None
    except TypeError as e:       # e.g. a JSON list where the scope wants a name
        raise fail(f"scope: malformed value ({e})") from None


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

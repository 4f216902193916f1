"""What every protocol's scope module shares: the error type, profiles, strict JSON
conversion and the label of the behaviour a scope follows.

Scopes come from JSON (``--scope``, a trace's ``#meta.scope``). Nothing is coerced:
``"12"`` is not a list of partition counts, ``3.7`` and ``true`` are not integers,
``"no"`` is not a boolean, and a misspelled key is an error. A converter takes the
JSON value and its field path (``scope.plan[1].version``) and returns the Python value
or raises ScopeError naming that path.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, fields, replace
from typing import Any, Callable, TypeVar

S = TypeVar("S")
Convert = Callable[[Any, str], Any]     # (JSON value, its field path) -> Python value

LARGEST = 2 ** 53                       # integers beyond JSON's safe range are rejected


class ScopeError(ValueError):
    """A scope that cannot be explored; the message names the field and the fix."""


SHOWN = 200                             # characters of an input value a message shows at most


def shorten(value: Any, limit: int = SHOWN) -> str:
    """``value`` (a string, or any value's repr) cut to ``limit`` characters for a message:
    an input may hold a 20 MB string, and a message is one line."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit - 30]}... ({len(text):,} characters)"


def shown_repr(value: Any, limit: int = SHOWN) -> str:
    """``repr(value)``, shortened: a repr of input for a message."""
    return shorten(repr(value), limit)


def one_line(message: str, limit: int = 10 * SHOWN) -> str:
    """``message`` as one line: line breaks as spaces, each run of more than SHOWN
    characters without a space (an input value quoted whole) shortened, the whole cut
    to ``limit``."""
    words = re.sub(r"\s", " ", message).split(" ")
    return shorten(" ".join(shorten(w) for w in words), limit)


def with_profile(scope: S, profile: str, profiles: dict[str, Any]) -> S:
    """``scope`` following the named behaviour profile."""
    if profile not in profiles:
        raise ScopeError(f"unknown profile {shown_repr(profile)}; known: {', '.join(profiles)}")
    return replace(scope, profile=profile, behaviour=profiles[profile])


# ---------------------------------------------------------------- strict converters

def check_names(field: str, values: tuple[str, ...], known: tuple[str, ...], what: str) -> None:
    """Each of ``values`` (a scope's faults or operations) is one of ``known`` and listed
    once: a repeated name is an error, not silently the same list."""
    for v in values:
        if v not in known:
            raise ScopeError(f"scope.{field}: unknown {what} {shown_repr(v)}; known: {', '.join(known)}")
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise ScopeError(f"scope.{field}: {', '.join(map(repr, repeated))} listed more than once; list each {what} once")


def _shown(value: Any) -> str:
    """A JSON value as the user wrote it, briefly: containers by their kind."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    text = json.dumps(value) if isinstance(value, (str, bool, float)) or value is None else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _expected(path: str, want: str, value: Any) -> ScopeError:
    return ScopeError(f"{path}: expected {want}, got {_shown(value)}")


def integer(value: Any, path: str) -> int:
    if type(value) is not int:          # bool is an int in Python, 3.7 and "3" are not
        raise _expected(path, "an integer", value)
    if not -LARGEST < value < LARGEST:
        raise ScopeError(f"{path}: {_shown(value)} is out of range (at most 2**53 in magnitude)")
    return value


def boolean(value: Any, path: str) -> bool:
    if type(value) is not bool:
        raise _expected(path, "true or false", value)
    return value


def string(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise _expected(path, "a string", value)
    return value


def optional(convert: Convert) -> Convert:
    """``convert``, or None for JSON null."""
    return lambda value, path: None if value is None else convert(value, path)


def list_of(item: Convert) -> Convert:
    """A JSON list, each item converted (its path ends in ``[i]``), as a tuple."""
    def convert(value: Any, path: str) -> tuple:
        if not isinstance(value, (list, tuple)):
            raise _expected(path, "a list", value)
        return tuple(item(x, f"{path}[{i}]") for i, x in enumerate(value))
    return convert


# converters by the annotation a dataclass field is declared with
SIMPLE: dict[str, Convert] = {
    "int": integer, "bool": boolean, "str": string, "str | None": optional(string),
    "int | None": optional(integer), "tuple[int, ...]": list_of(integer), "tuple[str, ...]": list_of(string),
}


def fields_of(cls: type, special: dict[str, Convert] | None = None, required: tuple[str, ...] = ()) -> Convert:
    """A JSON object whose keys are fields of the dataclass ``cls``, as a dict of
    converted values: a field declared ``int``, ``bool``, ``str``, ``str | None``, ...
    by its annotation (``SIMPLE``), any other by ``special``."""
    table = {f.name: (special or {}).get(f.name) or SIMPLE[f.type] for f in fields(cls)}

    def convert(value: Any, path: str) -> dict:
        if not isinstance(value, dict):
            raise _expected(path, "an object", value)
        unknown = [k for k in value if k not in table]
        if unknown:
            keys = shorten(", ".join(shown_repr(k, 60) for k in unknown))
            raise ScopeError(f"{path}: unknown key{'s' if len(unknown) > 1 else ''} {keys}; "
                             f"known: {', '.join(table)}")
        for key in required:
            if key not in value:
                raise ScopeError(f"{path}: missing {shown_repr(key)}")
        return {k: table[k](v, f"{path}.{k}") for k, v in value.items()}
    return convert


def record(cls: type, special: dict[str, Convert] | None = None, required: tuple[str, ...] = ()) -> Convert:
    """A JSON object as an instance of the dataclass ``cls`` (see ``fields_of``)."""
    kw = fields_of(cls, special, required)
    return lambda value, path: cls(**kw(value, path))


def scope_reader(cls: type[S], profiles: dict[str, Any], special: dict[str, Convert]) -> Callable[[Any], S]:
    """JSON as a scope of ``cls`` (not yet validated). ``behaviour`` may give some
    fields only: they override the named profile's behaviour (the default behaviour
    for a profile not in ``profiles``, such as "custom")."""
    default = cls()
    behaviour = fields_of(type(default.behaviour))
    convert = fields_of(cls, {**special, "behaviour": behaviour})

    def read(d: Any) -> S:
        kw = convert(d, "scope")
        base = profiles.get(kw.get("profile", default.profile), default.behaviour)
        kw["behaviour"] = replace(base, **kw.get("behaviour", {}))
        return cls(**kw)
    return read


def to_dict(scope: Any) -> dict:
    """A scope as JSON-shaped data (tuples as lists); ``scope_reader`` reads it back."""
    def plain(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value
    return plain(asdict(scope))


# ---------------------------------------------------------------- behaviour labels

def _value(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def behaviour_diff(base: Any, behaviour: Any) -> list[str]:
    """``field=value`` for every field in which ``behaviour`` differs from ``base``."""
    return [f"{f.name}={_value(getattr(behaviour, f.name))}" for f in fields(behaviour)
            if getattr(behaviour, f.name) != getattr(base, f.name)]


def profile_label(scope: Any) -> str:
    """The behaviour ``scope`` follows, never passing an override off as a profile:
    the profile's name when its behaviour is the profile's (``kafka-3.5+``), else the
    profile plus every field that differs (``kafka-3.5+ + withhold=false``). A profile
    that names none of the protocol's (``custom``) is shown as the nearest one (fewest
    fields differ; the first on a tie) plus its differences."""
    profiles = scope.known_profiles
    if scope.profile in profiles:
        base = scope.profile
    else:
        base = min(profiles, key=lambda name: len(behaviour_diff(profiles[name], scope.behaviour)))
    return " + ".join([base, *behaviour_diff(profiles[base], scope.behaviour)])

"""What every protocol's scope module shares: the error type, profiles, JSON keys."""
from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, Callable, TypeVar

S = TypeVar("S")


class ScopeError(ValueError):
    """A scope that cannot be explored; the message names the field and the fix."""


def with_profile(scope: S, profile: str, profiles: dict[str, Any]) -> S:
    """``scope`` following the named behaviour profile."""
    if profile not in profiles:
        raise ScopeError(f"unknown profile {profile!r}; known: {', '.join(profiles)}")
    return replace(scope, profile=profile, behaviour=profiles[profile])


def checked_keys(d: object, cls: type) -> dict:
    """A copy of JSON-like ``d`` once every key names a field of the scope class ``cls``."""
    if not isinstance(d, dict):
        raise ScopeError(f"scope must be an object, got {type(d).__name__}")
    known = {f.name for f in fields(cls)}
    extra = set(d) - known
    if extra:
        raise ScopeError(f"scope: unknown key(s) {', '.join(sorted(extra))}; known: {', '.join(sorted(known))}")
    return dict(d)


def profile_behaviour(kw: dict, profiles: dict[str, Any]) -> dict:
    """A named profile without an explicit behaviour brings its own behaviour."""
    if "profile" in kw and "behaviour" not in kw and kw["profile"] in profiles:
        kw["behaviour"] = profiles[kw["profile"]]
    return kw


def convert(kw: dict, table: dict[str, Callable[[Any], Any]]) -> dict:
    """Convert JSON values in place, per key; a bad one raises ScopeError naming its key."""
    for key, fn in table.items():
        if key in kw:
            try:
                kw[key] = fn(kw[key])
            except (TypeError, ValueError, KeyError, AttributeError) as e:
                raise ScopeError(f"scope.{key}: malformed value {kw[key]!r} ({e})") from None
    return kw

"""Shared encoding of a Kafka Streams version mix (KIP-268) for the two streams queries.

A *mix* is the N subscriptions of one round; member 0 is the leader (the leader's
``assign`` is symmetric in the other members, so which slot leads does not matter).
Member i runs a release whose LATEST_SUPPORTED_VERSION is ``latest_i`` and sends
usedVersion ``used_i`` in 1..latest_i; its subscription's latestSupportedVersion is
``latest_i``, except that v1/v2 subscriptions do not carry it (``Subscription.latest``
= used, as ``member.subscribe`` builds it). A member's probing rules (its *family*) follow
``scope.family``: pre-probing for a release before 2.0, else the release's own family
under the ``release`` profile, or the profile's family under ``kip-268``/``kafka-2.6+``.
The release table (latest version -> family) is read from ``releases.RELEASES`` at
call time, so the encoding follows the model's release facts. Two releases share a
LATEST and differ in one rule the leader follows: 2.6.1 and 2.7 (v8) answer a future
subscription next to a v1/v2 one differently (``Release.assignment_error``), so the
leader's ``assignment_error`` fact is a name of its own, constrained to the (LATEST,
fact) pairs ``RELEASES`` has (``leader_classes``).

The leader's view of the mix (``leader.assign``): a subscription is *future* when its
usedVersion is above the leader's LATEST; ``min_received`` is the lowest usedVersion of
the others (the leader's own is never future), ``min_supported`` the lowest
latestSupportedVersion of all. ``View`` holds these either as z3 terms (``view``) or as
Python values (``py_view``); guards written against ``Ops`` evaluate on both.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import z3

from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.scope import PROFILES

from ._common import value

FAMILIES = (rel.PRE_PROBING, rel.KIP_268, rel.KAFKA_26)    # encoded as their index
PRE, KIP, K26 = range(3)
PROFILE_NAMES = tuple(PROFILES)                           # "release", "kip-268", "kafka-2.6+"
PROBEABLE = rel.EARLIEST_PROBEABLE_VERSION
USED_DOMAINS = ("any", "startup")


def release_families() -> dict[int, int]:
    """LATEST_SUPPORTED_VERSION -> family index over ``RELEASES`` (must be a function)."""
    out: dict[int, int] = {}
    for r in rel.RELEASES.values():
        fam = FAMILIES.index(r.family)
        if out.setdefault(r.latest, fam) != fam:
            raise ValueError(f"releases with latest v{r.latest} belong to two families")
    return out


def family_ranges() -> list[tuple[int, int, int]]:
    """``release_families`` as runs (lo, hi, family) of consecutive LATEST values."""
    out: list[tuple[int, int, int]] = []
    for v, fam in sorted(release_families().items()):
        if out and out[-1][2] == fam and out[-1][1] == v - 1:
            out[-1] = (out[-1][0], v, fam)
        else:
            out.append((v, v, fam))
    return out


def leader_classes() -> dict[tuple[int, bool], str]:
    """(LATEST, assignment_error) -> the first release with them, over ``RELEASES``."""
    out: dict[tuple[int, bool], str] = {}
    for r in rel.RELEASES.values():
        out.setdefault((r.latest, r.assignment_error), r.name)
    return out


def max_version() -> int:
    return max(r.latest for r in rel.RELEASES.values())


def py_family(latest: int, profile: str) -> str:
    """``scope.family`` for a release with this LATEST under ``profile``."""
    own = FAMILIES[release_families()[latest]]
    probing = PROFILES[profile].probing
    return own if own == rel.PRE_PROBING or probing == "release" else probing


class Mix(NamedTuple):
    latest: list[z3.ArithRef]       # each member's release LATEST
    used: list[z3.ArithRef]         # usedVersion it sends
    sub_latest: list[z3.ArithRef]   # latestSupportedVersion in its subscription
    family: list[z3.ArithRef]       # its probing rules (index into FAMILIES)
    profile: z3.ArithRef            # index into PROFILE_NAMES
    leader_error: z3.BoolRef        # the leader's release has Release.assignment_error (2.7+)
    defs: list[z3.BoolRef]          # what defines sub_latest and family (premises)


def mix(n: int) -> Mix:
    """Fresh names for N members; derived names are defined by constraints (``defs``),
    which z3 handles much faster than nested ``If`` terms."""
    latest = [z3.Int(f"latest_{i}") for i in range(n)]
    used = [z3.Int(f"used_{i}") for i in range(n)]
    sub_latest = [z3.Int(f"sub_latest_{i}") for i in range(n)]
    family = [z3.Int(f"family_{i}") for i in range(n)]
    profile = z3.Int("profile")
    leader_error = z3.Bool("leader_assignment_error")

    def rule(own: int) -> z3.ArithRef:     # scope.family: PROFILES[p].probing overrides 2.0+
        out = z3.IntVal(own)
        for p, name in enumerate(PROFILE_NAMES):
            probing = PROFILES[name].probing
            if own != PRE and probing != "release":
                out = z3.If(profile == p, z3.IntVal(FAMILIES.index(probing)), out)
        return out

    rules = [(lo, hi, rule(own)) for lo, hi, own in family_ranges()]
    defs = []
    for lat, u, sub, fam in zip(latest, used, sub_latest, family):
        defs.append(sub == z3.If(u >= PROBEABLE, lat, u))
        defs += [z3.Implies(z3.And(lat >= lo, lat <= hi), fam == rule) for lo, hi, rule in rules]
    defs.append(z3.Or([z3.And(latest[0] == lat, leader_error == err) for lat, err in leader_classes()]))
    return Mix(latest, used, sub_latest, family, profile, leader_error, defs)


def profile_probing(m: Mix, probing: str) -> z3.BoolRef:
    """The scope's ``behaviour.probing`` is ``probing`` ("release", or a family's name)
    under the mix's profile, per ``PROFILES``."""
    return z3.Or([m.profile == p for p, name in enumerate(PROFILE_NAMES) if PROFILES[name].probing == probing]
                 or [z3.BoolVal(False)])


def domain(m: Mix, used: str = "any") -> list[z3.BoolRef]:
    """The bound plus ``m.defs``. ``any``: usedVersion anywhere in 1..latest (startup
    versions and every version a downgrade leaves); ``startup``: latest, or 1/2 as
    ``upgrade.from`` caps it."""
    if used not in USED_DOMAINS:
        raise ValueError(f"unknown used-version domain {used!r}; known: {', '.join(USED_DOMAINS)}")
    versions = sorted(release_families())
    contiguous = versions == list(range(versions[0], versions[-1] + 1))
    out = [m.profile >= 0, m.profile < len(PROFILE_NAMES)]
    for lat, u in zip(m.latest, m.used):
        out.append(z3.And(lat >= versions[0], lat <= versions[-1]) if contiguous
                   else z3.Or([lat == v for v in versions]))
        out.append(z3.And(u >= 1, u <= lat))
        if used == "startup":
            out.append(z3.Or(u == lat, u == 1, u == 2))
    return out + m.defs


class View(NamedTuple):
    future: list[Any]        # per member: usedVersion > the leader's LATEST
    any_future: Any
    min_received: Any
    min_supported: Any
    leader_latest: Any
    leader_family: Any       # index into FAMILIES
    leader_errors: Any       # a kafka-2.6+ leader answers with ASSIGNMENT_ERROR (2.7+, or the profile)
    defs: list[Any]          # what defines min_received/min_supported (z3 premises)


def view(m: Mix) -> View:
    top = m.latest[0]
    future = [u > top for u in m.used]
    received, supported = z3.Int("min_received"), z3.Int("min_supported")
    defs = [z3.And([z3.Implies(z3.Not(f), received <= u) for u, f in zip(m.used, future)]),
            z3.Or([z3.And(z3.Not(f), received == u) for u, f in zip(m.used, future)]),
            z3.And([supported <= x for x in m.sub_latest]),
            z3.Or([supported == x for x in m.sub_latest])]
    errors = z3.Or(m.leader_error, profile_probing(m, rel.KAFKA_26))     # leader.answers_with_error
    return View(future, z3.Or(future), received, supported, top, m.family[0], errors, defs)


def py_view(used: Sequence[int], sub_latest: Sequence[int], leader_latest: int, leader_family: str,
            leader_errors: bool = False) -> View:
    """The same quantities for concrete subscriptions (member 0 need not be the leader
    here: ``leader_latest``/``leader_family``/``leader_errors`` are the leader's)."""
    future = [u > leader_latest for u in used]
    return View(future, any(future), min(u for u, f in zip(used, future) if not f), min(sub_latest),
                leader_latest, FAMILIES.index(leader_family), leader_errors, [])


class Ops(NamedTuple):
    And: Callable[..., Any]
    Or: Callable[..., Any]
    Not: Callable[[Any], Any]


Z3 = Ops(z3.And, z3.Or, z3.Not)
PY = Ops(lambda *a: all(a), lambda *a: any(a), lambda a: not a)


def describe_mix(model: z3.ModelRef, m: Mix) -> dict[str, Any]:
    return {
        "profile": PROFILE_NAMES[value(model, m.profile)],
        "latest": [value(model, x) for x in m.latest],
        "used": [value(model, x) for x in m.used],
        "families": [FAMILIES[value(model, x)] for x in m.family],
        "leader_assignment_error": value(model, m.leader_error),
    }

"""A user's own partition assignor, on Kafka's terms, run by the model's leader.

Write a class with Kafka's ConsumerPartitionAssignor surface (subclass
``PartitionAssignor`` or just give the attributes):

    name                     the protocol name the consumer lists in JoinGroup
    supported_protocols      ("EAGER",), ("COOPERATIVE",) or both (supportedProtocols())
    reads_owned_partitions   whether assign() looks at ownedPartitions / generation
                             (False: it is handed none)
    assign(cluster, subscriptions) -> {member id: [TopicPartition, ...]}

``cluster`` maps each topic the group subscribes to (that exists) to its partition
count; ``subscriptions`` maps member ids to ``Subscription`` values with the members'
raw ownedPartitions and generations, unresolved: as Kafka's ConsumerCoordinator hands
them to a non-built-in assignor (the KIP-792 resolution is the assignor's own job;
``groupcheck.api.resolve_claims`` does Kafka's). Topics are called t0, t1, ... and
member ids consumer-001, consumer-002, ... (in the model's member order). The leader
then treats it as Kafka treats any non-built-in assignor: no adjustAssignment, and
validateCooperativeAssignment when the group runs COOPERATIVE.

``assign`` must be a pure function of its arguments: groupcheck caches its answers,
and a path must replay to the same states. A member left out gets no partitions.
"""
from __future__ import annotations

import importlib
import os
import sys
import traceback
from functools import lru_cache
from importlib import metadata
from typing import Any, Iterable, Mapping, Sequence

from groupcheck.model import assignors as registry
from groupcheck.model.assignors import COOPERATIVE, EAGER, Assignor, Member
from groupcheck.model.partitions import bits
from groupcheck.model.scopes import ScopeError, shorten

from ..stopping import user_code
from .layout import Layout, checked_assignment
from .values import ApiError, Subscription, TopicPartition

ENTRY_POINT_GROUP = "groupcheck.assignors"


class PartitionAssignor:
    """ConsumerPartitionAssignor for groupcheck; subclass it and override ``assign``."""

    name: str = ""
    supported_protocols: tuple[str, ...] = (EAGER,)
    reads_owned_partitions: bool = False

    def assign(self, cluster: Mapping[str, int],
               subscriptions: Mapping[str, Subscription]) -> Mapping[str, Sequence[TopicPartition]]:
        raise NotImplementedError(f"{type(self).__name__}.assign")


class AssignorLoadError(ApiError):
    """An assignor named by import path or entry point could not be loaded or is unusable."""


class UntrustedAssignor(ScopeError):
    """A scope (from a file, a request, --scope) names user code the command line did not
    name: refused before anything is imported."""


class InvalidAssignment(ApiError):
    """A user's assignor returned something that is not an assignment, or raised."""


def _where(error: BaseException) -> str:
    """`` (file:line)`` of the innermost frame that raised ``error``."""
    frames = traceback.extract_tb(error.__traceback__)
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def _checked(user: Any, key: str) -> tuple[str, ...]:
    """The user's supported protocols, once its attributes make an assignor."""
    if not callable(getattr(user, "assign", None)):
        raise AssignorLoadError(f"{key}: has no assign(cluster, subscriptions) method")
    protocols = getattr(user, "supported_protocols", None)
    if not isinstance(protocols, (list, tuple)) or not protocols or set(protocols) - {EAGER, COOPERATIVE}:
        raise AssignorLoadError(f"{key}.supported_protocols: {protocols!r}; give a non-empty list of "
                                f"{EAGER!r} and {COOPERATIVE!r}")
    if not isinstance(getattr(user, "reads_owned_partitions", False), bool):
        raise AssignorLoadError(f"{key}.reads_owned_partitions: expected True or False")
    return tuple(protocols)


def adapt(user: Any, key: str) -> Assignor:
    """The model's Assignor running ``user`` (registered under ``key``): a non-built-in
    assignor whose plan translates the model's members to Kafka's terms and back."""
    protocols = _checked(user, key)
    reads = getattr(user, "reads_owned_partitions", False)
    return Assignor(name=key, supported_protocols=protocols, builtin=False, claims_from="owned" if reads else None,
                    withholds=False, plan=_plan(user, key))


def _plan(user: Any, key: str):
    @lru_cache(maxsize=8192)
    def cached(members: tuple[Member, ...], stride: int) -> tuple[tuple[int, int], ...]:
        lay, cluster, ids = _kafka_view(members, stride)
        subscriptions = {ids[m.member_id]: Subscription(
            topics=tuple(lay.topics[t] for t in bits(m.topics)), owned_partitions=lay.partitions(m.owned),
            generation=m.generation) for m in members}
        try:
            with user_code(f"assignor {key}"):     # --max-seconds and signals reach a user.assign that hangs
                result = user.assign(dict(cluster), subscriptions)
        except Exception as e:     # the user's code: report it, do not crash the checker
            raise InvalidAssignment(f"assignor {key}: assign() raised {type(e).__name__}: {e}{_where(e)}") from None
        return _from_kafka(result, key, lay, cluster, {v: k for k, v in ids.items()})

    def plan(members: tuple[Member, ...], stride: int) -> dict[int, int]:
        return dict(cached(tuple(members), stride))

    return plan


def _kafka_view(members: tuple[Member, ...], stride: int) -> tuple[Layout, dict[str, int], dict[int, str]]:
    """Topic names t0, t1, ...; the cluster (subscribed topics that exist); member ids."""
    every = owned = topics = 0
    for m in members:
        every, owned, topics = every | m.eligible, owned | m.owned, topics | m.topics
    count = max(topics.bit_length(), ((every | owned).bit_length() + stride - 1) // stride)
    lay = Layout(tuple(f"t{t}" for t in range(count)), stride)
    cluster: dict[str, int] = {}
    for b in bits(every):
        name = lay.topics[b // stride]
        cluster[name] = max(cluster.get(name, 0), b % stride + 1)
    return lay, cluster, {m.member_id: f"consumer-{m.member_id:03d}" for m in members}


def _from_kafka(result: Any, key: str, lay: Layout, cluster: dict[str, int],
                ids: dict[str, int]) -> tuple[tuple[int, int], ...]:
    """The user's assignment as (model member id, partition mask), every member present."""
    try:
        given = checked_assignment(result, f"assignor {key}: assign() returned")
    except ApiError as e:
        raise InvalidAssignment(str(e)) from None
    out = {mid: 0 for mid in ids.values()}
    for member, tps in given.items():
        if member not in ids:
            raise InvalidAssignment(f"assignor {key}: assign() returned partitions for {member!r}, which is not "
                                    f"a member of the group (members: {', '.join(sorted(ids))})")
        for tp in tps:
            if tp.partition >= cluster.get(tp.topic, 0):
                raise InvalidAssignment(f"assignor {key}: assign() gave {member!r} partition {tp}, which does not "
                                        f"exist (cluster: {cluster})")
        out[ids[member]] = lay.mask(tps)
    return tuple(sorted(out.items()))


def _cwd_on_path() -> None:
    """Import paths resolve against the current directory too, as ``python -m`` does."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def load(spec: str) -> Any:
    """The object an import path ``package.module:attr`` names (a class is instantiated)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise AssignorLoadError(f"{spec!r}: give an import path package.module:attribute, e.g. mypkg.assign:MyAssignor")
    _cwd_on_path()
    try:
        obj = importlib.import_module(module_name)
    except Exception as e:
        raise AssignorLoadError(f"{spec}: cannot import {module_name!r}: {type(e).__name__}: {e}") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AssignorLoadError(f"{spec}: {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return _instance(obj, spec)


def _instance(obj: Any, key: str) -> Any:
    if not isinstance(obj, type):
        return obj
    try:
        return obj()
    except Exception as e:
        raise AssignorLoadError(f"{key}: {obj.__name__}() raised {type(e).__name__}: {e}") from None


def entry_points() -> dict[str, metadata.EntryPoint]:
    """The assignors installed packages declare in the ``groupcheck.assignors`` group."""
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def register_assignor(assignor: Any, name: str | None = None) -> str:
    """Register a user's assignor with the model; return the name to list in a Config.

    ``assignor`` is an import path (``mypkg.assign:MyAssignor``, registered under that
    path, so traces name it), an entry-point name of the ``groupcheck.assignors``
    group, or an assignor object (registered under ``name`` or its ``name``)."""
    if isinstance(assignor, str):
        if assignor in registry.ASSIGNORS:
            return assignor
        key, user = assignor, _resolve(assignor)
    else:
        key, user = name or getattr(assignor, "name", ""), _instance(assignor, repr(assignor))
        if not isinstance(key, str) or not key:
            raise AssignorLoadError(f"{assignor!r}: give the assignor a name (its name attribute, or name=)")
    try:
        registry.register(adapt(user, key))
    except registry.AssignorConfigError as e:
        raise AssignorLoadError(str(e)) from None
    return key


def _resolve(name: str) -> Any:
    if ":" in name:
        return load(name)
    points = entry_points()
    if name not in points:
        raise AssignorLoadError(
            f"unknown assignor(s): {name}; known: {', '.join(list(registry.ASSIGNORS) + list(points))}; "
            f"your own assignor: its import path (package.module:Class) or an entry point in {ENTRY_POINT_GROUP}")
    try:
        obj = points[name].load()
    except Exception as e:
        raise AssignorLoadError(f"entry point {name!r} ({points[name].value}): {type(e).__name__}: {e}") from None
    return _instance(obj, name)


# The assignors the person running this command named on its command line (--assignor,
# --plan): the only user code a scope may make groupcheck import. A trace, a history, a
# scope file is data: naming an assignor there does not load it.
_TRUSTED: set[str] = set()


def trust(names: Iterable[str]) -> None:
    """Allow scopes to load the assignors ``names`` (named on the command line)."""
    _TRUSTED.update(n.strip() for n in names if isinstance(n, str) and n.strip())


def trust_only(names: Iterable[str]) -> None:
    """Trust exactly ``names``: a command starting (in-process runs share the module)."""
    _TRUSTED.clear()
    trust(names)


def trusted() -> frozenset[str]:
    return frozenset(_TRUSTED)


def plan_assignor_names(scope: Any, registered: bool = False) -> list[tuple[int, str]]:
    """(stage index, name) of every assignor a scope's JSON ``plan`` names that the model
    does not know yet (``registered``: or knows as a user's, not a packaged one); a
    malformed plan names none (its validation is the scope's)."""
    plan = scope.get("plan") if isinstance(scope, dict) else None
    found = []
    for i, stage in enumerate(plan if isinstance(plan, list) else ()):
        names = stage.get("assignors") if isinstance(stage, dict) else None
        for name in names if isinstance(names, list) else ():
            if isinstance(name, str) and (name not in registry.ASSIGNORS
                                          or registered and not registry.ASSIGNORS[name].builtin):
                found.append((i, name))
    return found


def trust_scope(scope: Any) -> None:
    """Trust what a scope this run built itself names (a Spark worker handed the driver's
    scope, which the driver checked)."""
    trust(name for _, name in plan_assignor_names(scope))


def register_plan_assignors(scope: Any) -> Any:
    """Register every assignor a consumer scope's JSON ``plan`` names that the model does
    not know yet and the command line trusted; return the scope unchanged. An import path
    or an installed entry point the command line did not name raises ScopeError giving
    the flag that trusts it (nothing is imported); a name that cannot be resolved raises
    ScopeError naming its place in the plan; a malformed plan is left to the scope's
    own validation."""
    for i, name in plan_assignor_names(scope):
        if name not in _TRUSTED:
            if ":" in name or name in entry_points():
                raise UntrustedAssignor(f"scope.plan[{i}].assignors names assignor {shorten(name)}, which this command "
                                 f"line did not load; add --assignor {shorten(name)} to trust it")
            continue              # not user code: the scope's validation names the unknown assignor
        try:
            register_assignor(name)
        except AssignorLoadError as e:
            raise ScopeError(f"scope.plan[{i}].assignors: {e}") from None
    return scope

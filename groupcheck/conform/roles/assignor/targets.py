"""The built-in conformance targets, and the targets a user names.

A ``Target`` is an implementation of the assignor role reached through an adapter,
with what the driver must know to judge it: the rebalance protocols it supports
(COOPERATIVE only for cooperative-sticky), where it reads previous ownership
(``owned``: ownedPartitions and generation, KIP-429/792; ``user_data``: KIP-54's
userData; None), and what its contract says about balance (``always``: within 1 with
equal subscriptions; ``complete``: so when a round withholds nothing; None: no claim).

    reference:<assignor>            the model's own assignors (the self-check: must pass)
    kafka-python:<assignor>         kafka-python's range, roundrobin, sticky, cooperative-sticky
    aiokafka:<assignor>             aiokafka's range, roundrobin, sticky
    librdkafka:<assignor>           librdkafka's range, roundrobin, cooperative-sticky, run by a
                                    real consumer elected leader on the mock cluster (targets/librdkafka/leader.py)
    python:<pkg.module:Class>       your own assignor, in process (--assignor)
    adapter:<command>               an external program speaking PROTOCOL.md (--adapter)

Targets of the other roles are listed by their own packages (``roles/<role>/targets.py``).
"""
from __future__ import annotations

import importlib
import shlex
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Callable

from ...adapter import Adapter, AdapterError, UnknownTarget
from ...targets.inprocess.assignor import InProcessAdapter, style, uses_user_data

EAGER, COOPERATIVE = "EAGER", "COOPERATIVE"


@dataclass(frozen=True)
class Target:
    name: str
    make: Callable[[], Adapter]     # a fresh adapter, not yet opened
    assignor: str                   # the name setup selects (one of the hello's assignors)
    protocols: tuple[str, ...]
    claims_from: str | None
    balanced: str | None = None
    note: str = ""
    spec: str = ""                  # what ``resolve`` takes to build it again (default: name)
    refuses: str = ""               # what the implementation itself says of a scope the model cannot configure

    @property
    def key(self) -> str:
        return self.spec or self.name


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cls(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _reference(name: str) -> Target:
    from groupcheck.model.assignors import ASSIGNORS

    class Reference:
        """The model's own assignor (groupcheck.api.assign, Kafka 3.5+ rules)."""
        supported_protocols = ASSIGNORS[name].supported_protocols
        reads_owned_partitions = True

        def assign(self, cluster, subscriptions):
            from groupcheck.api import assign
            return assign(name, cluster, subscriptions)

    Reference.name = name
    claims = ASSIGNORS[name].claims_from
    balanced = {"roundrobin": "always", "sticky": "always", "cooperative-sticky": "complete"}.get(name)
    return Target(f"reference:{name}", lambda: InProcessAdapter(f"reference:{name}", Reference, "model"), name,
                  ASSIGNORS[name].supported_protocols, claims, balanced, "the model itself: must always pass")


KAFKA_PYTHON = {
    "range": ("kafka.coordinator.assignors.range:RangePartitionAssignor", None),
    "roundrobin": ("kafka.coordinator.assignors.roundrobin:RoundRobinPartitionAssignor", "always"),
    "sticky": ("kafka.coordinator.assignors.sticky.sticky_assignor:StickyPartitionAssignor", "always"),
    "cooperative-sticky": ("kafka.coordinator.assignors.cooperative_sticky:CooperativeStickyAssignor", "complete"),
}
AIOKAFKA = {
    "range": ("aiokafka.coordinator.assignors.range:RangePartitionAssignor", None),
    "roundrobin": ("aiokafka.coordinator.assignors.roundrobin:RoundRobinPartitionAssignor", "always"),
    "sticky": ("aiokafka.coordinator.assignors.sticky.sticky_assignor:StickyPartitionAssignor", "always"),
}


# librdkafka's assignors: (protocols, where it reads previous ownership, balance promised)
LIBRDKAFKA = {
    "range": ((EAGER,), None, None),
    "roundrobin": ((EAGER,), None, "always"),
    "cooperative-sticky": ((COOPERATIVE,), "owned", "complete"),
}


# librdkafka refuses a consumer configured with assignors of two protocols (rd_kafka_assignors_init):
# KIP-429's two-bounce upgrade (range -> [cooperative-sticky, range]) cannot be configured in librdkafka
MIXED_PROTOCOLS = ("librdkafka itself refuses such a consumer: \"All partition.assignment.strategy "
                   "(cooperative-sticky,range) assignors must have the same protocol type, online migration between "
                   "assignors with different protocol types is not supported\"")


def _librdkafka(name: str) -> Target:
    from ...targets.librdkafka.leader import LeaderAdapter
    protocols, claims, balanced = LIBRDKAFKA[name]
    return Target(f"librdkafka:{name}", lambda: LeaderAdapter(name), name, protocols, claims, balanced,
                  f"librdkafka {_version('confluent-kafka')} (confluent-kafka), a real consumer elected leader "
                  "on the mock cluster, the other members crafted over TCP",
                  refuses=MIXED_PROTOCOLS if COOPERATIVE in protocols else "")


def _library(package: str, name: str, path: str, balanced: str | None) -> Target:
    cls = _cls(path)
    reset = None
    if package == "aiokafka" and name == "sticky":
        def reset() -> None:
            # aiokafka's StickyPartitionAssignor keeps state in class attributes, shared by
            # every consumer of the process: clear them before every call
            cls.member_assignment, cls.generation, cls._latest_partition_movements = None, -1, None
    make = lambda: InProcessAdapter(f"{package}:{name}", cls, _version(package), per_call=True, reset=reset)  # noqa: E731
    probe = make()
    claims = "user_data" if uses_user_data(probe) else ("owned" if COOPERATIVE in probe.protocols else None)
    return Target(f"{package}:{name}", make, probe.assignor_name, probe.protocols, claims, balanced,
                  f"{package} {_version(package)}, called directly")


def builtin_names() -> list[str]:
    from groupcheck.model.assignors import PACKAGED
    refs = [f"reference:{n}" for n in ("range", "roundrobin", "sticky", "cooperative-sticky") if n in PACKAGED]
    return (refs + [f"kafka-python:{n}" for n in KAFKA_PYTHON] + [f"aiokafka:{n}" for n in AIOKAFKA]
            + [f"librdkafka:{n}" for n in LIBRDKAFKA])


def all_names() -> list[str]:
    """What ``--target all`` runs: every built-in target but librdkafka's. Each of their
    ``assign`` calls is a real rebalance on the mock cluster (about 0.3 s), so one librdkafka
    target at the default scopes takes 4-10 minutes: name it on its own."""
    return [n for n in builtin_names() if not n.startswith("librdkafka:")]


def builtin(name: str) -> Target:
    kind, _, which = name.partition(":")
    if kind == "reference" and f"reference:{which}" in builtin_names():
        return _reference(which)
    if kind == "kafka-python" and which in KAFKA_PYTHON:
        return _library("kafka-python", which, *KAFKA_PYTHON[which])
    if kind == "aiokafka" and which in AIOKAFKA:
        return _library("aiokafka", which, *AIOKAFKA[which])
    if kind == "librdkafka" and which in LIBRDKAFKA:
        return _librdkafka(which)
    raise UnknownTarget(f"unknown target {name!r}; known: {', '.join(builtin_names())}, all")


def python_assignor(spec: str) -> Target:
    """``--assignor pkg.mod:Class``: a kafka-python-style or groupcheck assignor, in process."""
    from groupcheck.api.custom import AssignorLoadError, load
    try:
        obj = load(spec)
    except AssignorLoadError as e:
        raise UnknownTarget(str(e)) from None
    try:
        kind = style(obj)
    except AdapterError as e:
        raise UnknownTarget(f"--assignor {spec}: {e}") from None
    factory = type(obj)
    make = lambda: InProcessAdapter(f"python:{spec}", factory, kind, per_call=True)  # noqa: E731
    probe = make()
    if not probe.protocols or set(probe.protocols) - {EAGER, COOPERATIVE}:
        raise UnknownTarget(f"--assignor {spec}: supported protocols {list(probe.protocols)}; "
                            f"give a non-empty list of {EAGER} and {COOPERATIVE}")
    reads = getattr(obj, "reads_owned_partitions", COOPERATIVE in probe.protocols)
    claims = "user_data" if uses_user_data(probe) else ("owned" if reads else None)
    return Target(f"python:{spec}", make, probe.assignor_name, probe.protocols, claims, None, f"{kind}-style, in process")


def probe_hello(command: str, timeout: float, role: str) -> tuple[list[str], Any]:
    """Start the adapter program ``command`` (no shell), read its hello, stop it; the
    program's argv and hello. UnknownTarget when it cannot be split or does not play ``role``."""
    from ...targets.adapter.process import ProcessAdapter
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UnknownTarget(f"--adapter: {e}") from None
    if not argv:
        raise UnknownTarget("--adapter: give a program and its arguments")
    probe = ProcessAdapter(argv, timeout)
    try:
        hello = probe.open()
    finally:
        probe.kill()
    if role not in hello.roles:
        raise UnknownTarget(f"adapter {hello.name}: its hello lists roles {list(hello.roles)}, not {role}")
    return argv, hello


def adapter_targets(command: str, timeout: float, protocols: dict[str, tuple[str, ...]] | None = None) -> list[Target]:
    """``--adapter CMD``: one target per assignor the program's hello lists. An assignor's
    protocols are COOPERATIVE when its name says cooperative, else EAGER (the hello may
    say otherwise with ``"protocols": {"name": ["COOPERATIVE"]}``)."""
    from ...targets.adapter.process import ProcessAdapter
    argv, hello = probe_hello(command, timeout, "assignor")
    declared = hello.extra.get("protocols") if isinstance(hello.extra.get("protocols"), dict) else {}
    out = []
    for name in hello.assignors or ():
        given = declared.get(name) or ((COOPERATIVE,) if "cooperative" in name else (EAGER,))
        claims = "owned" if COOPERATIVE in given else ("user_data" if name == "sticky" else None)
        balanced = {"roundrobin": "always", "sticky": "always", "cooperative-sticky": "complete"}.get(name)
        out.append(Target(f"{hello.name}:{name}", lambda: ProcessAdapter(argv, timeout), name, tuple(given), claims,
                          balanced, f"{hello.name} {hello.version} via {command}", f"adapter:{command}#{name}"))
    if not out:
        raise UnknownTarget(f"adapter {hello.name}: its hello lists no assignors")
    return out


def resolve(spec: str, timeout: float = 10.0) -> Target:
    """The target ``spec`` names: a built-in name, ``python:pkg.mod:Class`` or
    ``adapter:COMMAND#assignor`` (what a written regression test holds)."""
    if spec.startswith("python:"):
        return python_assignor(spec[len("python:"):])
    if spec.startswith("adapter:"):
        command, _, assignor = spec[len("adapter:"):].rpartition("#")
        for t in adapter_targets(command, timeout):
            if t.assignor == assignor:
                return t
        raise UnknownTarget(f"{spec}: the adapter no longer lists assignor {assignor!r}")
    return builtin(spec)

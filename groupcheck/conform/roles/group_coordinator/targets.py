"""The targets of role group-coordinator: ``reference``, ``librdkafka-mock``, ``tansu``
(started by groupcheck), any broker (``kafka:HOST:PORT``), the built-in broken
coordinators (``broken:<name>``), a Python class by import path, an external program."""
from __future__ import annotations

import shlex

from ...adapter import AdapterError, UnknownTarget
from ...targets.adapter.process import ProcessAdapter
from ...targets.inprocess.coordinator import ROLE, ReferenceCoordinator

BUILTIN = ("reference", "librdkafka-mock", "tansu")
# the KIP-848 coordinator of librdkafka's mock: its ConsumerGroupHeartbeat answers against the model's (compare_848)
CONSUMER_PROTOCOL_COORDINATORS = ("librdkafka-mock-consumer-protocol",)


def builtin(name: str):
    if name == "reference":
        return ReferenceCoordinator()
    if name == "librdkafka-mock":
        from ...targets.librdkafka.mock_coordinator import MockCoordinator
        return MockCoordinator()
    if name == "tansu":
        from ...targets.broker.broker import BrokerError
        from ...targets.broker.tansu import TansuCoordinator
        try:
            return TansuCoordinator()
        except BrokerError as e:
            raise UnknownTarget(str(e)) from None
    if name.startswith("kafka:"):
        from ...targets.broker.broker import BrokerCoordinator
        try:
            return BrokerCoordinator(name[6:])
        except ValueError as e:
            raise UnknownTarget(f"--target {name}: {e}; give kafka:HOST:PORT (a broker of the cluster)") from None
    if name.startswith("broken:"):
        from ...targets.broken.coordinators import BROKEN
        if name[7:] not in BROKEN:
            raise UnknownTarget(f"--target {name}: unknown broken coordinator; known: {', '.join(BROKEN)}")
        return BROKEN[name[7:]]()
    raise UnknownTarget(f"--target {name!r}: unknown for role {ROLE}; known: {', '.join(BUILTIN)}, all, "
                        "kafka:HOST:PORT, broken:<name> (groupcheck/conform/targets/broken/coordinators.py)")


def python_class(spec: str):
    """``pkg.module:Class``: a class with the adapter interface (e.g. a ReferenceCoordinator subclass)."""
    return _load(spec, "--coordinator")


def _load(spec: str, who: str):
    """What ``spec`` names (a class is instantiated), resolved against the current directory
    too, as ``python -m`` does (``groupcheck.api.custom.load``)."""
    from groupcheck.api.custom import AssignorLoadError, load
    try:
        return load(spec)
    except AssignorLoadError as e:
        raise UnknownTarget(f"{who} {e}") from None


def external(command: str, timeout: float) -> ProcessAdapter:
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UnknownTarget(f"--adapter {command!r}: {e}") from None
    if not argv:
        raise UnknownTarget("--adapter: give a program and its arguments")
    adapter = ProcessAdapter(argv, timeout=timeout)
    adapter.note = f"external program {command!r}"
    return adapter


def check_hello(hello, who: str) -> None:
    if ROLE not in hello.roles:
        raise AdapterError(f"{who}: its hello lists roles {list(hello.roles)}, not {ROLE}")

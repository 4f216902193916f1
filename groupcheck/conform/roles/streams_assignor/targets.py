"""The streams-assignor targets: the model's own placement, and the ones a user names.

    reference:streams-sticky       the model's sticky placement (model/assignors/streams_tasks.py)
                                   behind the JSON protocol: the self-check, must always pass
    python:<pkg.module:Class>      your own task assignor, in process (--assignor)
    adapter:<command>#<name>       an external program whose hello lists role streams-assignor

An in-process task assignor is any class (instantiated once, without arguments) with

    assign(application_state: dict) -> dict

taking the ``assign`` argument of ``schema/streams-assignor.schema.json`` (tasks with ids
like "0_1" and ``stateful``, clients with ``process_id``, ``threads``, ``consumers``,
``previous_active``, ``previous_standby``, ``owned``, ``caught_up``, ``leaving``, and
``configs.num_standby_replicas``) and answering its result, ``{"assignment": [{"process_id":
..., "tasks": [{"id": "0_1", "type": "ACTIVE"}], "followup_rebalance": false}, ...]}``.
Optional attributes: ``name`` and ``contracts`` (a tuple of ``"balanced"``: active task
counts within one across clients of equal threads, ``"leaving"``: a leaving client gets no
task, so it can shut down). An exception from ``assign`` is a ``fail`` outcome.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ...adapter import Adapter, UnknownTarget
from ...targets.inprocess.streams_assignor import ROLE, InProcess, ReferenceSticky
CONTRACTS = ("balanced", "leaving")


@dataclass(frozen=True)
class StreamsTarget:
    name: str
    make: Callable[[], Adapter]          # a fresh adapter, not yet opened
    assignor: str                        # the name setup selects
    contracts: frozenset = frozenset()   # what the target states beyond Kafka's checks
    note: str = ""
    spec: str = ""
    role: str = ROLE
    protocols: tuple[str, ...] = ("EAGER", "COOPERATIVE")   # rounds it is asked in (the leader's)

    @property
    def key(self) -> str:
        return self.spec or self.name


BUILTIN = {"reference:streams-sticky": ReferenceSticky}


def builtin_names() -> list[str]:
    return list(BUILTIN)


def _contracts(given: Any, who: str) -> frozenset:
    given = tuple(given or ())
    unknown = [c for c in given if c not in CONTRACTS]
    if unknown:
        raise UnknownTarget(f"{who}: unknown contract(s) {unknown}; known: {', '.join(CONTRACTS)}")
    return frozenset(given)


def builtin(name: str) -> StreamsTarget:
    cls = BUILTIN.get(name)
    if cls is None:
        raise UnknownTarget(f"unknown streams-assignor target {name!r}; known: {', '.join(BUILTIN)}, all")
    return StreamsTarget(name, lambda: InProcess(name, cls(), "model"), cls.name, frozenset(cls.contracts),
                         "the model itself: must always pass")


def python_assignor(spec: str) -> StreamsTarget:
    """``--assignor pkg.mod:Class``: a Python task assignor, in process."""
    from groupcheck.api.custom import AssignorLoadError, load
    try:
        obj = load(spec)           # resolves against the current directory too, as python -m does
    except AssignorLoadError as e:
        raise UnknownTarget(f"--assignor {e}") from None
    attr = spec.partition(":")[2]
    if not callable(getattr(obj, "assign", None)):
        raise UnknownTarget(f"--assignor {spec}: not a task assignor: give a class with "
                            "assign(application_state: dict) -> dict (see groupcheck/conform/roles/streams_assignor/targets.py)")
    contracts = _contracts(getattr(obj, "contracts", ()), f"--assignor {spec}")
    factory = type(obj)            # a fresh instance per run, as the assignor role makes
    def make():
        return InProcess(f"python:{spec}", factory(), "in process")
    return StreamsTarget(f"python:{spec}", make, str(getattr(obj, "name", "") or attr), contracts, "in process")


def adapter_targets(command: str, timeout: float) -> list[StreamsTarget]:
    """``--adapter CMD``: one target per task assignor the program's hello lists
    (``assignors``); ``"contracts": {"name": ["balanced", ...]}`` in the hello states more."""
    from ...targets.adapter.process import ProcessAdapter
    from ..assignor.targets import probe_hello
    argv, hello = probe_hello(command, timeout, ROLE)
    declared = hello.extra.get("contracts") if isinstance(hello.extra.get("contracts"), dict) else {}
    out = [StreamsTarget(f"{hello.name}:{name}", lambda: ProcessAdapter(argv, timeout), name,
                         _contracts(declared.get(name), f"adapter {hello.name}"),
                         f"{hello.name} {hello.version} via {command}", f"adapter:{command}#{name}")
           for name in hello.assignors or ()]
    if not out:
        raise UnknownTarget(f"adapter {hello.name}: its hello lists no task assignors (assignors: [...])")
    return out


def resolve(spec: str, timeout: float = 10.0) -> StreamsTarget:
    """The target ``spec`` names (what a written regression test holds)."""
    if spec.startswith("python:"):
        return python_assignor(spec[len("python:"):])
    if spec.startswith("adapter:"):
        command, _, name = spec[len("adapter:"):].rpartition("#")
        for t in adapter_targets(command, timeout):
            if t.assignor == name:
                return t
        raise UnknownTarget(f"{spec}: the adapter no longer lists task assignor {name!r}")
    return builtin(spec)

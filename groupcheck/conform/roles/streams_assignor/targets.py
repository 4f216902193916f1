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

import copy
from dataclasses import dataclass
from typing import Any, Callable

from ...adapter import Adapter, Hello, Outcome
from ...targets.inprocess.assignor import _error
from ..assignor.targets import UnknownTarget

ROLE = "streams-assignor"
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


class InProcess:
    """A Python task assignor object behind the adapter interface."""

    def __init__(self, name: str, obj: Any, version: str = ""):
        self.name, self.obj, self.version = name, obj, version
        self.assignor_name = str(getattr(obj, "name", "") or name)

    def open(self) -> Hello:
        return Hello(self.name, self.version, (ROLE,), (self.assignor_name,))

    def setup(self, role: str, config: dict) -> Outcome:
        return Outcome("ok") if role == ROLE else Outcome("fail", error=f"role {role}: only {ROLE} is served")

    def invoke(self, role: str, f: str, value: Any) -> Outcome:
        if role != ROLE or f != "assign":
            return Outcome("fail", error=f"{role}.{f}: not served in process")
        try:
            return Outcome("ok", self.obj.assign(copy.deepcopy(value)))
        except Exception as e:        # the implementation's own error: a definite failure
            return Outcome("fail", error=_error(e))

    def teardown(self) -> None:
        pass

    def close(self) -> None:
        pass


class ReferenceSticky:
    """The model's sticky task placement (``model.assignors.streams_tasks.sticky``), read
    from and answered in the protocol's JSON; standbys only for stateful tasks, as
    Kafka's StickyTaskAssignor places them."""

    name = "streams-sticky"
    contracts = ("balanced", "leaving")

    def assign(self, app: dict) -> dict:
        from groupcheck.model.assignors import streams_tasks as st
        index = {t["id"]: i for i, t in enumerate(app["tasks"])}
        stateless = sum(1 << index[t["id"]] for t in app["tasks"] if not t["stateful"])

        def mask(ids: list) -> int:
            return sum(1 << index[t] for t in ids)

        clients = [st.Client(instance=i, prev=mask(c["previous_active"]), owned=mask(c["owned"]),
                             standby=mask(c["previous_standby"]), learning=0, ready=mask(c["caught_up"]),
                             leaving=c["leaving"], new=False) for i, c in enumerate(app["clients"])]
        placed = st.sticky(clients, (1 << len(index)) - 1, app["configs"]["num_standby_replicas"])
        ids = [t["id"] for t in app["tasks"]]
        out = []
        for c, client in enumerate(app["clients"]):
            tasks = [{"id": ids[t], "type": "ACTIVE"} for t in range(len(ids)) if placed.active[c] >> t & 1]
            tasks += [{"id": ids[t], "type": "STANDBY"} for t in range(len(ids))
                      if (placed.standby[c] & ~stateless) >> t & 1]
            out.append({"process_id": client["process_id"], "tasks": tasks})
        return {"assignment": out}


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

"""In-process targets of role streams-assignor: a Python task assignor object behind the
adapter interface (``InProcess``), and the model's own sticky placement read from and
answered in the protocol's JSON (``ReferenceSticky``, target ``reference:streams-sticky``).
The names a user gives are resolved by ``roles/streams_assignor/targets.py``."""
from __future__ import annotations

import copy
from typing import Any

from ...adapter import Hello, Outcome
from .assignor import _error

ROLE = "streams-assignor"


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

"""Deliberately broken Kafka Streams task assignors (KIP-924's TaskAssignor, on the JSON
terms of ``groupcheck conform --role streams-assignor``), each flagged with the claim or
property it should be found by, and one that makes a legitimate choice.

    groupcheck conform --role streams-assignor --assignor groupcheck.conform.targets.broken.streams_assignors:X

    AssumesOneSubtopology   no_unknown_task_id                      names tasks 0_0..0_n-1 itself
    ActiveOnTwoClients      no_active_task_assigned_multiple_times  hands task 0 to two clients
    StandbyForEveryTask     no_invalid_standby_task                 a standby of the stateless task
    ListsOnlyBusyClients    no_missing_process_id                   a client with no task left out
    CountsOneTooMany        no_unknown_process_id                   an empty assignment for process-(n+1)
    StandbyWithItsActive    standby_not_with_active (model)         the standby on the active's client
    DropsLastTask           every_task_active                       range(len(tasks) - 1)
    ShufflesClients         deterministic                           the client order rotates per call
    IgnoresPreviousOwners   a choice: nothing flagged               round-robin, no stickiness; Kafka's
                                                                    cooperative withholding keeps every
                                                                    task on one thread (revoke_before_reassign)

Every one is a plain class with ``assign(application_state: dict) -> dict``.
"""
from __future__ import annotations



def _answer(app: dict, placed: dict[str, list[tuple[str, str]]]) -> dict:
    return {"assignment": [{"process_id": pid, "tasks": [{"id": t, "type": k} for t, k in tasks]}
                           for pid, tasks in placed.items()]}


class _RoundRobin:
    """Actives round-robin over the clients in the order given; standbys on the next clients."""

    name = "round-robin"

    def order(self, app: dict) -> list[str]:
        return [c["process_id"] for c in app["clients"]]

    def task_ids(self, app: dict) -> list[str]:
        return [t["id"] for t in app["tasks"]]

    def standby_tasks(self, app: dict) -> list[str]:
        return [t["id"] for t in app["tasks"] if t["stateful"]]

    def assign(self, app: dict) -> dict:
        clients = self.order(app)
        placed: dict[str, list] = {pid: [] for pid in clients}
        tasks = self.task_ids(app)
        for i, t in enumerate(tasks):
            placed[clients[i % len(clients)]].append((t, "ACTIVE"))
        for i, t in enumerate(tasks):
            if t not in self.standby_tasks(app):
                continue
            for r in range(1, min(app["configs"]["num_standby_replicas"], len(clients) - 1) + 1):
                placed[clients[(i + r) % len(clients)]].append((t, "STANDBY"))
        return _answer(app, placed)


class IgnoresPreviousOwners(_RoundRobin):
    """A choice: round-robin by client order, ignoring previous and owned tasks. Not sticky,
    not flagged: Kafka withholds a task another client still owns (KIP-429), so it never
    runs twice."""


class AssumesOneSubtopology(_RoundRobin):
    """Names the tasks 0_0..0_{n-1} itself, as if the topology had one subtopology."""

    def task_ids(self, app: dict) -> list[str]:
        return [f"0_{i}" for i in range(len(app["tasks"]))]


class ActiveOnTwoClients(_RoundRobin):
    """Gives the first task to the first two clients as active (a 'hot spare' done wrong)."""

    def assign(self, app: dict) -> dict:
        answer = super().assign(app)
        first = app["tasks"][0]["id"]
        if len(answer["assignment"]) > 1:
            second = answer["assignment"][1]["tasks"]
            answer["assignment"][1]["tasks"] = [t for t in second if t["id"] != first] + [{"id": first, "type": "ACTIVE"}]
        return answer


class StandbyForEveryTask(_RoundRobin):
    """Places standbys for stateless tasks too (ignores TaskInfo#isStateful)."""

    def standby_tasks(self, app: dict) -> list[str]:
        return [t["id"] for t in app["tasks"]]


class ListsOnlyBusyClients(_RoundRobin):
    """Sticky to previous owners, and lists only the clients that got a task."""

    def assign(self, app: dict) -> dict:
        owners = {t: c["process_id"] for c in app["clients"] for t in c["previous_active"]}
        clients = [c["process_id"] for c in app["clients"]]
        placed: dict[str, list] = {}
        for i, t in enumerate(t["id"] for t in app["tasks"]):
            placed.setdefault(owners.get(t, clients[i % len(clients)]), []).append((t, "ACTIVE"))
        return _answer(app, placed)


class CountsOneTooMany(_RoundRobin):
    """An off-by-one in a loop over clients: an (empty) assignment for one client too many."""

    def assign(self, app: dict) -> dict:
        answer = super().assign(app)
        answer["assignment"].append({"process_id": f"process-{len(app['clients']) + 1}", "tasks": []})
        return answer


class StandbyWithItsActive(_RoundRobin):
    """Puts each stateful task's standby on the client running it active (replica offset 0)."""

    def assign(self, app: dict) -> dict:
        clients = self.order(app)
        placed: dict[str, list] = {pid: [] for pid in clients}
        for i, t in enumerate(app["tasks"]):
            placed[clients[i % len(clients)]].append((t["id"], "ACTIVE"))
            if t["stateful"] and app["configs"]["num_standby_replicas"]:
                placed[clients[i % len(clients)]].append((t["id"], "STANDBY"))
        return _answer(app, placed)


class DropsLastTask(_RoundRobin):
    """An off-by-one: places tasks[0 .. n-2] and forgets the last."""

    def task_ids(self, app: dict) -> list[str]:
        return [t["id"] for t in app["tasks"]][:-1]


class ShufflesClients(_RoundRobin):
    """Places in an order that changes from call to call (a HashSet's order across
    rebalances, say): not a function of its input. The order rotates by one each call, so
    the same input asked twice is always answered differently (a random shuffle could
    repeat itself and make the finding depend on luck)."""

    def __init__(self) -> None:
        self.calls = 0

    def order(self, app: dict) -> list[str]:
        clients = [c["process_id"] for c in app["clients"]]
        self.calls += 1
        k = self.calls % len(clients) if clients else 0
        return clients[k:] + clients[:k]

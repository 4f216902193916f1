"""A KIP-1071 streams-group model state (``model/streams_group``) as the variables of
``specs/streams_group/StreamsGroup.tla``.

Tasks (bitmasks over the group's task index, per role) become records [active, standby,
warmup] of sets of task numbers; member ids ``m<slot>.<incarnation>`` become
``<<slot, incarnation>>``; topics ``t<i>`` / ``app-<i>-changelog`` become ``<<"source", i>>``
/ ``<<"changelog", i>>``; a topology [epoch, stateful]; a heartbeat request keeps the
client's ``Request`` fields (``unsent`` as a set of roles), a response [error, epoch, tasks,
statuses]. Fields the spec leaves out (instance, rack and client tags, endpoints, static
members, classic members, failover's uncommitted write, the classic group's record) must
keep their starting values, and the fields the spec derives (a member's process id from its
slot, its rebalance timeout, the task index) must be what it derives: ``variables`` refuses
a state where one is not, naming it."""
from __future__ import annotations

from functools import lru_cache

from groupcheck.model.streams_group import MAX_PARTITIONS, Group, K, State

from ..manifest import OutsideSpec
from ..values import ModelValue, fcn, mask_set, rec, tset

NONE = ModelValue("NoValue")     # the specs' None: the config's model value NoValue
ROLES = ("active", "standby", "warmup")
STATUS = {"down": "DOWN", "joining": "JOINING", "member": "MEMBER", "leaving": "LEAVING", "stopped": "STOPPED",
          "failed": "FAILED"}
STATUS_NAMES = {0: "STALE_TOPOLOGY", 1: "MISSING_SOURCE_TOPICS", 2: "INCORRECTLY_PARTITIONED_TOPICS",
                3: "MISSING_INTERNAL_TOPICS", 4: "SHUTDOWN_APPLICATION"}
OPERATIONS = ("topology_update", "topic_change", "shutdown_request", "roll", "redeploy", "poll_timeout", "shutdown_leave")
MARKS = {1: "WARMUP_PROMOTED", 2: "BECAME_READY"}



def _tasks(tasks) -> object:
    return rec(**{r: mask_set(m) for r, m in zip(ROLES, tasks)})


def _id(member_id: str) -> tuple:
    slot, inc = member_id[1:].split(".")
    return (int(slot), int(inc))


def _topic(name: str) -> tuple:
    if name.startswith("t") and name[1:].isdigit():
        return ("source", int(name[1:]))
    if name.startswith("app-") and name.endswith("-changelog"):
        return ("changelog", int(name[4:-len("-changelog")]))
    raise OutsideSpec(f"topic {name!r} is outside the spec")


def _topics(pairs) -> object:
    return fcn({_topic(n): p for n, p in pairs})


def constants(scope) -> dict:
    if scope.static or scope.classic:
        raise OutsideSpec("static and classic members are outside the spec")
    outside = set(scope.operations) - set(OPERATIONS)
    if outside:
        raise OutsideSpec(f"operations {sorted(outside)} are outside the spec")
    return {"Slots": tset(range(scope.members)), "MembersPerProcess": scope.members_per_process,
            "Partitions": tuple(scope.partitions), "Stateful": scope.stateful, "Standbys": scope.standbys,
            "Warmups": scope.warmups, "Profile": scope.profile, "Faults": tset(scope.faults),
            "Operations": tset(scope.operations), "Budget": scope.budget, "MaxEpoch": scope.max_epoch, "K": K,
            "MaxPartitions": MAX_PARTITIONS, "NoValue": NONE}


def _topology(t) -> object:
    if t is None:
        return NONE
    changelogs = {bool(s.state_changelog_topics) for s in t.subtopologies}
    if len(changelogs) != 1:
        raise OutsideSpec("a topology with stateful and stateless subtopologies is outside the spec")
    return rec(epoch=t.epoch, stateful=changelogs.pop())


def _member(scope, m) -> object:
    slot, _ = _id(m.member_id)
    if (m.instance_id is not None or m.rack_id is not None or m.client_tags or m.user_endpoint is not None
            or m.process_id != f"p{slot // scope.members_per_process}" or m.rebalance_timeout_ms != 1000):
        raise OutsideSpec(f"member {m.member_id}: static, rack, tags, endpoint, process or rebalance timeout "
                          "outside the spec")
    return rec(topologyEpoch=m.topology_epoch, state=m.state, epoch=m.epoch, previousEpoch=m.previous_epoch,
               assigned=_tasks(m.assigned), pendingRevocation=_tasks(m.pending_revocation),
               revocationEpoch=m.revocation_epoch)


def _configs(configs) -> object:
    if not configs:
        return NONE
    d = dict(configs)
    return rec(standbys=int(d["num.standby.replicas"]), warmups=int(d["num.warmup.replicas"]),
               lag=int(d["acceptable.recovery.lag"]))


@lru_cache(maxsize=1 << 14)   # one group meets many client states
def _group(scope, g) -> object:
    from groupcheck.model.streams_group import scope_task_index as index
    if not isinstance(g, Group):
        raise OutsideSpec("a classic or migrating group is outside the spec")
    if g.task_index != index(scope):
        raise OutsideSpec("the group's task index is not the scope's")
    return rec(dead=g.dead, epoch=g.group_epoch, assignmentEpoch=g.target_assignment_epoch,
               topology=_topology(g.topology), validatedEpoch=g.validated_topology_epoch,
               metadata=_topics(g.partition_metadata), configs=_configs(g.assignment_configs),
               members=fcn({_id(m.member_id): _member(scope, m) for m in g.members}),
               target=fcn({_id(mid): _tasks(t) for mid, t in g.target_assignment}))


def _request(r) -> object:
    if r is None:
        return NONE
    return rec(epoch=r.epoch, owned=_tasks(r.owned), topologyEpoch=r.topology_epoch, shutdown=r.shutdown,
               caught=mask_set(r.caught), joining=r.joining, unsent=tset(ROLES[i] for i in range(3) if r.unsent >> i & 1),
               redeployed=r.redeployed)


def _reply(r) -> object:
    if r is None:
        return NONE
    return rec(error=r.error, epoch=r.epoch, tasks=NONE if r.tasks is None else _tasks(r.tasks),
               statuses=tuple(STATUS_NAMES[x] for x in r.statuses))


@lru_cache(maxsize=1 << 14)
def _client(c) -> object:
    if c.classic or c.status not in STATUS:
        raise OutsideSpec(f"a classic client ({c.status}) is outside the spec")
    return rec(status=STATUS[c.status], incarnation=c.incarnation, epoch=c.epoch, owned=_tasks(c.owned),
               topologyEpoch=c.topology_epoch, caught=mask_set(c.caught), shutdown=c.shutdown,
               request=_request(c.request), reply=_reply(c.reply), redeployed=c.redeployed,
               sent=NONE if c.sent is None else _tasks(c.sent))


def variables(scope, state: State) -> dict:
    if state.uncommitted or state.classic_record is not None:
        raise OutsideSpec("failover's uncommitted write and the classic group's record are outside the spec")
    if state.marks & ~sum(MARKS):
        raise OutsideSpec(f"witness marks {state.marks:#x} are outside the spec")
    monitor = {name: tset(s for s in range(len(state.clients)) if getattr(state, name) >> s & 1)
               for name in ("beaten", "fresh", "wedged")}      # slot sets, as bitmasks in the model
    return {"group": _group(scope, state.group),
            "shutdown": NONE if state.shutdown is None else _id(state.shutdown),
            "topics": _topics(state.topics), "creating": _topics(state.creating),
            "clients": fcn({s: _client(c) for s, c in enumerate(state.clients)}),
            "budget": state.budget, "calm": state.calm, **monitor,
            "marks": tset(name for bit, name in MARKS.items() if state.marks & bit)}

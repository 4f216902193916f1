"""A classic consumer-group model state (``model/consumer``) as the variables of
``specs/consumer/Consumer.tla``.

Partition bitmasks of the one topic become sets of partition numbers; a subscription
becomes [owned, generation, userData, userGeneration] (its version and topics are the
scope's constants for the one config, of one assignor, the spec covers); requests and
responses become records
named by the request they belong to ("JoinGroup", "SyncGroup", "Heartbeat"). Fields the
spec leaves out must keep their starting values: ``variables`` refuses a state where one
does not, naming it."""
from __future__ import annotations

from groupcheck.model.consumer import CALM_CAP, State

from ..manifest import OutsideSpec
from ..values import fcn, mask_set, rec, tset
from .delivery import NONE, app_value, logs_value, records_constants

ASSIGNORS = ("range", "sticky", "cooperative-sticky")


def constants(scope) -> dict:
    if len(scope.partitions) != 1 or len(scope.plan) != 1 or len(scope.plan[0].assignors) != 1 \
            or scope.plan[0].assignors[0] not in ASSIGNORS or scope.plan[0].version != 3:
        raise OutsideSpec("the spec covers one topic and one config of one assignor (range, sticky or "
                          "cooperative-sticky; subscription v3)")
    return {"Slots": tset(range(scope.members)), "Partitions": tset(range(scope.partitions[0])),
            "Assignor": scope.plan[0].assignors[0], "Faults": tset(scope.faults), "Budget": scope.budget,
            "MaxGeneration": scope.max_generation, "CalmCap": CALM_CAP, "NoValue": NONE,
            **records_constants(scope)}


def _subscription(sub) -> object:
    if sub.version != 3:
        raise OutsideSpec("a subscription other than v3 is outside the spec")
    return rec(owned=mask_set(sub.owned), generation=sub.generation, userData=mask_set(sub.user_data),
               userGeneration=sub.user_generation)


def _request(r) -> object:
    if r.kind == "JoinGroup":
        return rec(kind="JoinGroup", memberId=r.member_id, subscription=_subscription(r.subscription))
    if r.kind == "SyncGroup":
        return rec(kind="SyncGroup", memberId=r.member_id, generation=r.generation,
                   assignments=fcn({mid: mask_set(mask) for mid, mask in r.assignments}))
    if r.kind == "Heartbeat":
        return rec(kind="Heartbeat", memberId=r.member_id, generation=r.generation)
    raise OutsideSpec(f"a {r.kind} request is outside the spec")


def _response(r) -> object:
    kind = r.kind.removesuffix("Response")
    if kind == "JoinGroup":
        return rec(kind=kind, to=r.to, error=r.error, generation=r.generation, memberId=r.member_id,
                   leader=r.leader, protocol=r.protocol,
                   members=fcn({mid: _subscription(sub) for mid, sub in r.members}))
    if kind == "SyncGroup":
        return rec(kind=kind, to=r.to, error=r.error, generation=r.generation, assignment=mask_set(r.assignment))
    return rec(kind=kind, to=r.to, error=r.error)


def _member(m) -> object:
    return rec(slot=m.slot, subscription=_subscription(m.subscription), joined=m.joined, syncing=m.syncing,
               assignment=mask_set(m.assignment))


def _consumer(c) -> object:
    if c.config or c.metadata or c.subscribed != c.joined:
        raise OutsideSpec("a bounced consumer, metadata or subscription changes: outside the spec")
    return rec(status=c.status, memberId=c.member_id, generation=c.generation, owned=mask_set(c.owned),
               userData=mask_set(c.user_data), paused=c.paused, snapshot=c.snapshot, awaiting=c.awaiting,
               outbox=tuple(_request(r) for r in c.outbox), inbox=tuple(_response(r) for r in c.inbox),
               needsJoinPrepare=c.needs_join_prepare)


def variables(scope, state: State) -> dict:
    g = state.group
    if g.status == "Dead" or state.metadata:
        raise OutsideSpec("a deleted group or a metadata change is outside the spec")
    return {
        "group": rec(status=g.status, generation=g.generation, protocol=g.protocol, leader=g.leader,
                     members=fcn({m.member_id: _member(m) for m in g.members}), pending=tuple(g.pending),
                     nextId=g.next_id),
        "consumers": fcn({s: _consumer(c) for s, c in enumerate(state.consumers)}),
        "budget": state.budget,
        "calm": state.calm,
        "calmFrom": state.calm_from,
        "logs": _logs(state),
        "apps": fcn({s: app_value(c.app) for s, c in enumerate(state.consumers)}),
    }


def _logs(state: State) -> object:
    """The logs of the topic's partitions: the model keeps one per partition bit a topic may
    ever have (``scope.stride``); those past the topic's partitions never change."""
    if state.logs is None:
        return NONE
    n = state.partitions[0]
    if any(log.end or log.committed != -1 or log.fetcher or log.done for log in state.logs[n:]):
        raise OutsideSpec("records of a partition the topic does not have are outside the spec")
    return logs_value(state.logs[:n])

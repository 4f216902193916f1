"""A KIP-848 consumer-group model state (``model/consumer_group``) as the variables of
``specs/consumer_group/ConsumerGroup.tla``.

Partitions (bitmasks over the group's partition index) become sets of partition numbers
of the one topic t0; member ids ``m<slot>.<incarnation>`` become ``<<slot, incarnation>>``;
a heartbeat request becomes [epoch, full, reports, owned] (which optional fields it
carried), a response [error, epoch, hasAssignment, assignment]; ``sent`` (the fields last
sent) [kind, owned]. Fields the spec leaves out (instance and rack ids, the subscription,
the server assignor, regexes, the rebalance timeout, stalls, classic members) must keep
their starting values: ``variables`` refuses a state where one does not, naming it."""
from __future__ import annotations

from model.consumer_group.world import State

from ..values import fcn, rec, tset

NONE = "none"


class OutsideSpec(ValueError):
    """A model state using a feature the spec leaves out."""


def _parts(mask: int) -> frozenset:
    return tset(i for i in range(mask.bit_length()) if mask >> i & 1)


def _id(member_id: str) -> tuple:
    slot, inc = member_id[1:].split(".")
    return (int(slot), int(inc))


def constants(scope) -> dict:
    if len(scope.partitions) != 1:
        raise OutsideSpec(f"the spec has one topic; the scope has {len(scope.partitions)}")
    return {"Slots": tset(range(scope.members)), "Partitions": tset(range(scope.partitions[0])),
            "Faults": tset(scope.faults), "Operations": tset(scope.operations), "Budget": scope.budget, "MaxEpoch": scope.max_epoch, "K": 5}


def _member(m) -> object:
    if m.instance_id is not None or m.subscribed_topic_regex is not None or m.rack_id is not None:
        raise OutsideSpec(f"member {m.member_id}: static, rack or regex members are outside the spec")
    return rec(state=m.state, epoch=m.epoch, previousEpoch=m.previous_epoch, assigned=_parts(m.assigned),
               pendingRevocation=_parts(m.pending_revocation))


def _group(g) -> object:
    if g.epoch_map_lost or g.resolved_regexes:
        raise OutsideSpec("the group holds KAFKA-16147's lost epochs or resolved regexes: outside the spec")
    return rec(dead=g.dead, epoch=g.group_epoch, assignmentEpoch=g.target_assignment_epoch,
               members=fcn({_id(m.member_id): _member(m) for m in g.members}),
               target=fcn({_id(mid): _parts(mask) for mid, mask in g.target_assignment}))


def _request(r) -> object:
    if r is None:
        return NONE
    if r.instance_id is not None or r.subscribed_topic_regex is not None or r.member_epoch < -1:
        raise OutsideSpec("a static or regex heartbeat is outside the spec")
    full = r.rebalance_timeout_ms != -1
    reports = r.topic_partitions is not None
    owned = frozenset(p for t in (r.topic_partitions or ()) for p in t.partitions)
    return rec(epoch=r.member_epoch, full=full, reports=reports, owned=owned)


def _reply(r) -> object:
    if r is None:
        return NONE
    return rec(error=r.error, epoch=r.epoch, hasAssignment=r.assignment is not None,
               assignment=_parts(r.assignment or 0))


def _sent(sent) -> object:
    if sent is None:
        return rec(kind="none", owned=frozenset())
    owned, _sub = sent
    if owned < 0:
        return rec(kind="changed", owned=frozenset())
    return rec(kind="owned", owned=_parts(owned))


def _client(c) -> object:
    closed = c.status in ("LEAVING", "UNSUBSCRIBED")
    if c.stalled or not isinstance(c.status, str) or c.status == "DOWN" or c.sub != (-1 if closed else 0):
        raise OutsideSpec(f"a client {c.status} / stalled / with a changed subscription is outside the spec")
    return rec(status=c.status, incarnation=c.incarnation, epoch=c.epoch, owned=_parts(c.owned),
               target=_parts(c.target), sent=_sent(c.sent), request=_request(c.request), reply=_reply(c.reply))


MARKS = {1: "REVOKED", 2: "LOST_RECOVERED"}


def variables(scope, state: State) -> dict:
    if state.classic is not None or state.downgrading:
        raise OutsideSpec("classic members are outside the spec")
    if state.marks & ~3:
        raise OutsideSpec(f"witness marks {state.marks:#x} are outside the spec")

    def slots(mask: int) -> frozenset:
        return tset(s for s in range(len(state.clients)) if mask >> s & 1)
    return {
        "group": _group(state.group),
        "clients": fcn({s: _client(c) for s, c in enumerate(state.clients)}),
        "budget": state.budget,
        "calm": state.calm,
        "beaten": slots(state.beaten),
        "fresh": slots(state.fresh),
        "wedged": slots(state.wedged),
        "marks": tset(name for bit, name in MARKS.items() if state.marks & bit),
    }

"""A KIP-848 consumer-group model state (``model/consumer_group``) as the variables of
``specs/consumer_group/ConsumerGroup.tla``.

Partitions (bitmasks over the group's partition index) become sets of partition numbers
of the one topic t0; member ids ``m<slot>.<incarnation>`` become ``<<slot, incarnation>>``;
a heartbeat request becomes [epoch, full, reports, owned] (which optional fields it
carried), a response [error, epoch, hasAssignment, assignment]; ``sent`` (the fields last
sent) [kind, owned]; a client's ``sub`` -1 (closed for good) becomes ``forGood``. Instance
ids are the slots' (``i<slot>``) when the scope is static, so the spec derives them from
the constant ``Static``. Fields the spec leaves out (rack ids, the subscription, the server
assignor, regexes, the rebalance timeout, classic members) must keep their starting values:
``variables`` refuses a state where one does not, naming it."""
from __future__ import annotations

from groupcheck.model.consumer_group import K, State

from ..manifest import OutsideSpec
from ..values import fcn, mask_set, rec, tset
from .delivery import NONE, app_value, logs_value, records_constants

def _id(member_id: str) -> tuple:
    slot, inc = member_id[1:].split(".")
    return (int(slot), int(inc))


def constants(scope) -> dict:
    if len(scope.partitions) != 1:
        raise OutsideSpec(f"the spec has one topic; the scope has {len(scope.partitions)}")
    if scope.profile != "kip-848" or scope.assignor != "uniform" or scope.regex or scope.joiners or scope.classic:
        raise OutsideSpec("the spec states the kip-848 profile, the uniform assignor, topic names, no joiner "
                          "slots and no classic members")
    return {"Slots": tset(range(scope.members)), "Partitions": tset(range(scope.partitions[0])),
            "Static": scope.static, "Faults": tset(scope.faults), "Operations": tset(scope.operations),
            "Budget": scope.budget, "MaxEpoch": scope.max_epoch, "K": K,
            "NoValue": NONE, **records_constants(scope)}


def _instance(scope, member_id: str):
    """The instance id a member or request of ``member_id`` carries in ``scope``."""
    return f"i{_id(member_id)[0]}" if scope.static else None


def _member(scope, m) -> object:
    if m.instance_id != _instance(scope, m.member_id) or m.subscribed_topic_regex is not None or m.rack_id is not None:
        raise OutsideSpec(f"member {m.member_id}: instance id {m.instance_id!r}, rack or regex outside the spec")
    if m.assignment_epochs:
        raise OutsideSpec(f"member {m.member_id}: KIP-1251's assignment epochs are outside the spec")
    return rec(state=m.state, epoch=m.epoch, previousEpoch=m.previous_epoch, assigned=mask_set(m.assigned),
               pendingRevocation=mask_set(m.pending_revocation), targetEpoch=m.target_member_epoch)


def _group(scope, g) -> object:
    if g.resolved_regexes:
        raise OutsideSpec("the group holds resolved regexes: outside the spec")
    return rec(dead=g.dead, epoch=g.group_epoch, assignmentEpoch=g.target_assignment_epoch,
               members=fcn({_id(m.member_id): _member(scope, m) for m in g.members}),
               target=fcn({_id(mid): mask_set(mask) for mid, mask in g.target_assignment}),
               lost=mask_set(g.epoch_map_lost))


def _request(scope, r) -> object:
    if r is None:
        return NONE
    if r.instance_id != _instance(scope, r.member_id) or r.subscribed_topic_regex is not None:
        raise OutsideSpec(f"a heartbeat with instance id {r.instance_id!r} or a regex is outside the spec")
    if r.member_epoch < (-2 if scope.static else -1):
        raise OutsideSpec(f"a heartbeat at epoch {r.member_epoch} is outside the spec")
    full = r.rebalance_timeout_ms != -1
    reports = r.topic_partitions is not None
    owned = frozenset(p for t in (r.topic_partitions or ()) for p in t.partitions)
    return rec(epoch=r.member_epoch, full=full, reports=reports, owned=owned)


def _reply(r) -> object:
    if r is None:
        return NONE
    return rec(error=r.error, epoch=r.epoch, hasAssignment=r.assignment is not None,
               assignment=mask_set(r.assignment or 0))


def _sent(sent) -> object:
    if sent is None:
        return rec(kind="none", owned=frozenset())
    owned, _sub = sent
    if owned < 0:
        return rec(kind="changed", owned=frozenset())
    return rec(kind="owned", owned=mask_set(owned))


def _client(scope, c) -> object:
    if not isinstance(c.status, str) or c.sub not in (0, -1) or c.incarnation < 0:
        raise OutsideSpec(f"a client {c.status} (incarnation {c.incarnation}) with a changed subscription, "
                          "a classic consumer or a joiner slot is outside the spec")
    return rec(status=c.status, incarnation=c.incarnation, epoch=c.epoch, owned=mask_set(c.owned),
               target=mask_set(c.target), sent=_sent(c.sent), request=_request(scope, c.request),
               reply=_reply(c.reply), stalled=c.stalled, forGood=c.sub == -1)


# the witness bits of model/consumer_group/world.py (32, 64, 128: the record layer's)
MARKS = {1: "REVOKED", 2: "LOST_RECOVERED", 4: "STATIC_KEPT", 32: "REDELIVERED", 64: "KILLED_BEFORE_COMMIT",
         128: "HANDOVER_CLEAN"}


def variables(scope, state: State) -> dict:
    if state.classic is not None or state.downgrading:
        raise OutsideSpec("classic members are outside the spec")
    if state.marks & ~sum(MARKS):
        raise OutsideSpec(f"witness marks {state.marks:#x} are outside the spec")

    def slots(mask: int) -> frozenset:
        return tset(s for s in range(len(state.clients)) if mask >> s & 1)
    return {
        "group": _group(scope, state.group),
        "clients": fcn({s: _client(scope, c) for s, c in enumerate(state.clients)}),
        "budget": state.budget,
        "calm": state.calm,
        "beaten": slots(state.beaten),
        "fresh": slots(state.fresh),
        "wedged": slots(state.wedged),
        "marks": tset(name for bit, name in MARKS.items() if state.marks & bit),
        "logs": logs_value(state.logs),
        "apps": fcn({s: app_value(c.app) for s, c in enumerate(state.clients)}),
    }

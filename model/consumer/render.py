"""Readable views of consumer-group states and actions: ITF values and one-line text."""
from __future__ import annotations

from .. import delivery
from ..itf import itf_map, itf_set
from ..partitions import existing, name as name_of, names, show
from .scope import ConsumerScope
from .state import Action, State


def _member(mid: int) -> str:
    return f"m{mid}" if mid else ""


def _message(scope: ConsumerScope, msg) -> dict:
    out = {}
    for field, value in msg._asdict().items():
        if field in ("assignment", "owned", "user_data"):
            out[field] = itf_set(names(value, scope.stride))
        elif field in ("member_id", "to", "leader"):
            out[field] = _member(value)
        elif field == "subscription" and value:
            out[field] = _message(scope, value)
        elif field == "topics":
            out[field] = itf_set(f"t{t}" for t in range(len(scope.partitions)) if value >> t & 1)
        elif field == "assignments":
            out[field] = itf_map((_member(m), itf_set(names(p, scope.stride))) for m, p in value)
        elif field == "members":
            out[field] = itf_map((_member(m), _message(scope, sub)) for m, sub in value)
        elif isinstance(value, tuple):
            out[field] = {"#tup": list(value)}
        else:
            out[field] = value
    return out


def state_to_itf(scope: ConsumerScope, state: State) -> dict:
    g = state.group
    group = {
        "status": g.status, "generation": g.generation, "protocol": g.protocol,
        "leader": _member(g.leader), "pending": itf_set(_member(p) for p in g.pending),
        "members": itf_map((_member(m.member_id), {
            "slot": m.slot, "protocols": {"#tup": list(m.protocols)},
            "subscription": _message(scope, m.subscription), "joined": m.joined, "syncing": m.syncing,
            "assignment": itf_set(names(m.assignment, scope.stride))}) for m in g.members),
    }
    consumers = []
    for c in state.consumers:
        record = {"app": delivery.app_itf(c.app, scope.stride)} if scope.records else {}
        consumers.append({**record,
            "status": c.status, "config": c.config, "member_id": _member(c.member_id),
            "generation": c.generation, "owned": itf_set(names(c.owned, scope.stride)),
            "subscribed": itf_set(f"t{t}" for t in range(len(scope.partitions)) if c.subscribed >> t & 1),
            "paused": c.paused, "metadata": c.metadata, "snapshot": c.snapshot, "awaiting": c.awaiting,
            "outbox": [_message(scope, m) for m in c.outbox],
            "inbox": [_message(scope, m) for m in c.inbox],
        })
    out = {"group": group, "consumers": consumers,
           "partitions": itf_map((f"t{t}", n) for t, n in enumerate(state.partitions)),
           "budget": state.budget, "calm": state.calm, "calm_from": state.calm_from}
    if scope.records:    # the record layer (model/delivery), only in records scopes
        out["logs"] = delivery.logs_itf(state.logs, scope.stride, existing(state.partitions, scope.stride))
    return out


def _brief(scope: ConsumerScope, msg) -> str:
    k = msg.kind
    if k == "JoinGroup":
        s = msg.subscription
        mid = _member(msg.member_id) or '""'
        return (f"JoinGroup({mid}, {list(msg.protocols)}, "
                f"owned={show(s.owned, scope.stride)}, generation={s.generation})")
    if k == "SyncGroup":
        plan = ", ".join(f"{_member(m)}:{show(p, scope.stride)}" for m, p in msg.assignments)
        return f"SyncGroup({_member(msg.member_id)}, gen {msg.generation}{', ' + plan if plan else ''})"
    if k == "Heartbeat":
        return f"Heartbeat({_member(msg.member_id)}, gen {msg.generation})"
    if k == "JoinGroupResponse":
        if msg.error != "NONE":
            return f"JoinGroupResponse({msg.error}{', id ' + _member(msg.member_id) if msg.member_id else ''})"
        return (f"JoinGroupResponse(gen {msg.generation}, leader {_member(msg.leader)}, "
                f"protocol {msg.protocol})")
    if k == "SyncGroupResponse":
        if msg.error != "NONE":
            return f"SyncGroupResponse({msg.error})"
        return f"SyncGroupResponse({show(msg.assignment, scope.stride)})"
    if k == "HeartbeatResponse":
        return f"HeartbeatResponse({msg.error})"
    return k


CALLBACKS = {"assigned": "onPartitionsAssigned", "revoked": "onPartitionsRevoked", "lost": "onPartitionsLost"}


def who(state: State, slot: int) -> str:
    """A consumer as every text names it: ``C1`` (slot + 1), with its member id, ``C1 (m3)``."""
    c = state.consumers[slot]
    return f"C{slot + 1}" + (f" ({_member(c.member_id)})" if c.member_id else "")


def describe_event(scope: ConsumerScope, event) -> str | None:
    """One line for a story: listener callbacks by their Kafka names, milestones as is."""
    if event.kind == "ignored":
        return None
    name = f"C{event.slot + 1} " if event.slot >= 0 else ""
    what = (show(event.partitions, scope.stride) if event.partitions else "") + " " + event.note
    return f"{name}{CALLBACKS.get(event.kind, event.kind)} {what.strip()}".rstrip()


def describe_action(scope: ConsumerScope, state: State, action: Action) -> str:
    k, s = action.kind, action.slot
    name = who(state, s) if s >= 0 else "coordinator"
    if k == "receive":
        return f"{name} receives {_brief(scope, state.consumers[s].inbox[0])}"
    if k == "deliver":
        return f"coordinator handles {_brief(scope, state.consumers[s].outbox[0])} from {name}"
    if k == "lose_response":
        return f"{_brief(scope, state.consumers[s].inbox[0])} to {name} is lost"
    if k == "session_timeout":
        return f"session of C{s + 1} ({_member(action.arg)}) times out"
    if k == "subscription_change":
        return f"{name} toggles its subscription to t{action.arg}"
    if k in ("add_partition", "delete_topic"):
        return f"{k.replace('_', ' ')} t{action.arg}"
    if k in ("poll", "process"):
        return f"{name}: {k} {name_of(action.arg, scope.stride)}"
    if k == "produce":
        return f"produce a record to {name_of(action.arg, scope.stride)}"
    if k == "bounce":
        cfg = scope.plan[state.consumers[s].config + 1]
        return f"{name} is bounced onto {list(cfg.assignors)}"
    return f"{name}: {k.replace('_', ' ')}" if s >= 0 else k.replace("_", " ")


def _consumer_line(scope: ConsumerScope, state: State, slot: int) -> str:
    c = state.consumers[slot]
    parts = [c.status + (", paused" if c.paused else ""), f"generation {c.generation}",
             f"owns {show(c.owned, scope.stride)}", f"awaits {c.awaiting or 'nothing'}"]
    if c.outbox:
        parts.append(f"sending {_brief(scope, c.outbox[0])}")
    parts.append("inbox " + (", ".join(_brief(scope, m) for m in c.inbox) or "empty"))
    if scope.records and c.app is not None:
        parts.append("app " + delivery.describe_app(c.app, scope.stride))
    return f"{who(state, slot)}: " + "; ".join(parts)


def describe_state(scope: ConsumerScope, state: State) -> str:
    """The group (status, generation, leader, protocol, each member's assignment) and
    one line per consumer: status, generation, owned partitions, what it awaits, its inbox."""
    g = state.group
    members = ", ".join(f"{_member(m.member_id)} {show(m.assignment, scope.stride)}" for m in g.members)
    group = (f"group {g.status}, generation {g.generation}, leader {_member(g.leader) or 'none'}, "
             f"protocol {g.protocol or 'none'}, members {members or 'none'}")
    lines = [group] + [_consumer_line(scope, state, s) for s in range(len(state.consumers))]
    if scope.records:
        alive = existing(state.partitions, scope.stride)
        lines += [delivery.describe_log(p, log, scope.stride) for p, log in enumerate(state.logs) if alive >> p & 1]
    return "\n".join(lines)


def owners(scope: ConsumerScope, state: State) -> dict[str, tuple[str, ...]]:
    """Who holds each existing partition (the explorer's ownership timeline): every consumer
    whose ownedPartitions has it, live, paused or left behind alike (``no_double_ownership``
    judges which of them count)."""
    out: dict[str, tuple[str, ...]] = {p: () for p in names(existing(state.partitions, scope.stride), scope.stride)}
    for slot, c in enumerate(state.consumers):
        for p in names(c.owned, scope.stride):
            out[p] = out.get(p, ()) + (f"C{slot + 1}",)
    return out


def offsets(scope: ConsumerScope, state: State) -> dict[str, dict]:
    """The explorer's offsets track (``delivery.offsets``): per existing partition its end, its
    committed offset and each consumer's ``[processed, position]``; {} without records."""
    holders = [(f"C{slot + 1}", c.app) for slot, c in enumerate(state.consumers)]
    return delivery.offsets(state.logs, holders, scope.stride, existing(state.partitions, scope.stride))

"""Readable views of consumer-group states and actions: ITF values and one-line text."""
from __future__ import annotations

from .. import delivery
from ..epochs.rounds import has_slot
from ..itf import itf_set
from .classic_clients import _mask
from .group import group_state
from .properties import _consuming
from .scope import ConsumerGroupScope
from .step import index, partition_names as _names
from .world import Action, State, member_id


def _parts(scope: ConsumerGroupScope, mask: int) -> list[str]:
    idx = index(scope)
    return [f"{t}-{p}" for i, (t, p) in enumerate(idx) if mask >> i & 1]


def _set(scope, mask: int) -> dict:
    return itf_set(_parts(scope, mask))


def _text(scope, mask: int) -> str:
    return "[" + ", ".join(_parts(scope, mask)) + "]"


def name(scope: ConsumerGroupScope, slot: int) -> str:
    return f"C{slot + 1}"


def state_to_itf(scope: ConsumerGroupScope, state: State) -> dict:
    g = state.group
    members = [{"member_id": m.member_id, "instance_id": m.instance_id or "", "state": m.state, "epoch": m.epoch,
                "previous_epoch": m.previous_epoch, "assigned": _set(scope, m.assigned),
                "pending_revocation": _set(scope, m.pending_revocation), "target": _set(scope, g.target_of(m.member_id))}
               for m in (() if g.dead else g.members)]
    clients = []
    for s, c in enumerate(state.clients):
        if is_classic(c):
            clients.append(_classic_client(scope, s, c))
            continue
        d = {"client": name(scope, s), "member_id": member_id(s, c.incarnation), "status": c.status,
             "epoch": c.epoch, "owned": _set(scope, c.owned), "target": _set(scope, c.target),
             "stalled": c.stalled}
        if c.request is not None:
            d["request"] = {"epoch": c.request.member_epoch, "full": c.sent is None}
        if c.reply is not None:
            d["reply"] = {"error": c.reply.error, "epoch": c.reply.epoch,
                          "assignment": "null" if c.reply.assignment is None else _text(scope, c.reply.assignment)}
        if scope.records:
            d["app"] = delivery.app_itf(c.app, _names(scope))
        clients.append(d)
    out = {
        "group": {"state": "DEAD" if g.dead else group_state(g), "group_epoch": g.group_epoch,
                  "assignment_epoch": g.target_assignment_epoch, "members": members},
        "topics": {"#map": [[t, p] for t, p in state.topics]},
        "clients": clients, "budget": state.budget, "calm": state.calm,
    }
    if state.classic is not None:
        out["classic"] = _classic_group(scope, state.classic)
    if state.logs is not None:
        out["logs"] = delivery.logs_itf(state.logs, _names(scope))
    return out


def _classic_client(scope, s: int, c) -> dict:
    d = {"client": name(scope, s), "protocol": "classic", "member_id": member_id(s, c.incarnation),
         "status": c.status, "generation": c.generation, "owned": _set(scope, c.owned)}
    if c.reply is not None:
        d["reply"] = {"kind": c.reply.kind, "error": c.reply.error}
    return d


def _classic_group(scope, held) -> dict:
    """What the coordinator holds besides the consumer group: a classic group, or the ids of a
    consumer group's classic members."""
    if not hasattr(held, "state"):     # a consumer group's classic members
        return {"classic_members": itf_set(mid for mid, _ in held)}
    st = held.state
    return {"state": st.status, "generation": st.generation,
            "members": [{"member_id": m.member_id, "assignment": _set(scope, _assigned(scope, m.assignment))}
                        for m in st.members]}


def _assigned(scope, assignment: bytes) -> int:
    return _mask(index(scope), assignment) if assignment else 0


def is_classic(c) -> bool:
    return hasattr(c, "generation")


def describe_action(scope: ConsumerGroupScope, state: State, action: Action) -> str:
    k, s = action.kind, action.slot
    who = name(scope, s)
    c = state.clients[s]
    if k == "send":
        epoch = {"JOINING": 0, "LEAVING": -2 if scope.static else -1}.get(c.status, c.epoch)
        return f"{who} sends ConsumerGroupHeartbeat (epoch {epoch}, owned {_text(scope, c.owned)})"
    if k == "handle":
        return f"the coordinator handles {who}'s heartbeat (epoch {c.request.member_epoch})"
    if k == "deliver":
        r = c.reply
        got = "" if r.assignment is None else f", assignment {_text(scope, r.assignment)}"
        return f"{who} reads the response ({r.error or 'epoch ' + str(r.epoch)}{got})"
    if k == "reconcile":
        return (f"{who} reconciles: commits, revokes {_text(scope, c.owned & ~c.target)}, "
                f"assigns {_text(scope, c.target & ~c.owned)}")
    if k == "expire":
        return f"the session of {member_id(s, action.arg)} ({who}'s old incarnation) times out"
    if k == "rebalance_timeout":
        return f"the rebalance timeout of {member_id(s, action.arg)} expires"
    if k == "topic_change":
        return "topic t0 gains a partition"
    if k == "resolve":
        return "the coordinator's regex resolution completes"
    if k == "failover":
        return "a new coordinator loads the log"
    if k == "roll":
        return f"{who} closes to restart (rolling bounce)"
    if k == "leave":
        return f"{who} closes for good"
    if k == "downgrade":
        return f"{who} closes to restart as a classic consumer (rolling downgrade)"
    if k == "upgrade":
        return f"{who} (classic) closes with LeaveGroup to restart on the consumer protocol (rolling upgrade)"
    if k == "restart" and has_slot(state.downgrading, s):
        return f"{who} restarts as a classic consumer"
    if k == "restart":
        return f"{who} restarts on the consumer protocol"
    if k in _RECORD_TEXT:
        return _RECORD_TEXT[k](scope, who, c, action)
    if k == "classic_send":
        kind = {"rejoining": "JoinGroup", "syncing": "SyncGroup"}.get(c.status, "Heartbeat")
        return f"{who} (classic, generation {c.generation}) sends {kind}"
    if k == "classic_deliver":
        return f"{who} (classic) reads the {c.reply.kind} ({c.reply.error})"
    if k == "classic_expire":
        return f"the session of classic member {member_id(s, action.arg)} times out"
    return f"{who} {k.replace('_', ' ')}"


_RECORD_TEXT = {
    "produce": lambda scope, who, c, a: f"a producer appends a record to {_text(scope, 1 << a.arg)[1:-1]}",
    "poll": lambda scope, who, c, a: f"{who}'s application polls {_text(scope, 1 << a.arg)[1:-1]}",
    "process": lambda scope, who, c, a: f"{who}'s application processes a record of {_text(scope, 1 << a.arg)[1:-1]}",
    "commit": lambda scope, who, c, a: f"{who}'s application commits what it processed (commitSync)",
    "auto_commit": lambda scope, who, c, a: f"{who}'s auto-commit sends the positions (OffsetCommit)",
    "commit_deliver": lambda scope, who, c, a: f"the coordinator handles {who}'s OffsetCommit (epoch {c.app.commit.generation})",
    "commit_read": lambda scope, who, c, a: f"{who} reads the OffsetCommit answer ({c.app.reply or 'accepted'})",
    "lose_commit_reply": lambda scope, who, c, a: f"{who}'s OffsetCommit answer is lost",
}


def describe_event(scope: ConsumerGroupScope, event) -> str | None:
    if event.kind in ("handle", "expire", "session_timeout", "rebalance_timeout"):
        return f"{name(scope, event.slot)}: {event.note}"
    if event.data and event.kind in ("deliver", "reconcile", "leave", "roll", "downgrade"):
        calls = "; ".join(f"{c.kind} {_text(scope, c.partitions)}"
                          + (f" epoch {c.epoch}: {c.error or 'ok'}" if c.kind == "commit" else "") for c in event.data)
        return f"{name(scope, event.slot)}: {calls}"
    return None


def describe_state(scope: ConsumerGroupScope, state: State) -> str:
    g = state.group
    lines = [f"group {'DEAD' if g.dead else group_state(g)}, group epoch {g.group_epoch}, "
             f"assignment epoch {g.target_assignment_epoch}, topics {dict(state.topics)}"]
    for m in () if g.dead else g.members:
        lines.append(f"  {m.member_id}: {m.state} epoch {m.epoch} (previous {m.previous_epoch}), assigned "
                     f"{_text(scope, m.assigned)}, pending {_text(scope, m.pending_revocation)}, "
                     f"target {_text(scope, g.target_of(m.member_id))}")
    if state.classic is not None:
        lines.append(f"  classic: {_classic_group(scope, state.classic)}")
    for s, c in enumerate(state.clients):
        if is_classic(c):
            lines.append(f"{name(scope, s)} [{member_id(s, c.incarnation)}]: classic {c.status}, generation "
                         f"{c.generation}, owns {_text(scope, c.owned)}")
            continue
        lines.append(f"{name(scope, s)} [{member_id(s, c.incarnation)}]: {c.status}, epoch {c.epoch}, owns "
                     f"{_text(scope, c.owned)}, target {_text(scope, c.target)}" + (", stalled" if c.stalled else "")
                     + (f"; app {delivery.describe_app(c.app, _names(scope))}" if scope.records else ""))
    for p, log in enumerate(state.logs or ()):
        lines.append("  " + delivery.describe_log(p, log, _names(scope)))
    return "\n".join(lines)


__all__ = ["describe_action", "describe_event", "describe_state", "name", "offsets", "owners", "state_to_itf"]


def owners(scope: ConsumerGroupScope, state: State) -> dict[str, tuple[str, ...]]:
    """Who consumes each partition (the explorer's ownership timeline), exactly the clients
    ``no_double_ownership`` judges (its ``_consuming``): live consumer-protocol clients and the
    classic clients the coordinator holds as members, by their owned partitions."""
    out: dict[str, tuple[str, ...]] = {p: () for p in _parts(scope, (1 << len(index(scope))) - 1)}
    for slot, c in sorted(_consuming(state), key=lambda sc: sc[0]):
        for p in _parts(scope, c.owned):
            out[p] = out.get(p, ()) + (name(scope, slot),)
    return out


def offsets(scope: ConsumerGroupScope, state: State) -> dict[str, dict]:
    """The explorer's offsets track (``delivery.offsets``): per partition its log end, committed
    offset and each client's ``[processed, position]`` (every client with an application, a
    zombie too: what it processes shows); {} without records. Partitions are named as ``owners``
    names them (``_names``: the topics' own partition counts), so each track lies under its
    partition's row whatever the topics."""
    holders = [(name(scope, s), getattr(c, "app", None)) for s, c in enumerate(state.clients)]
    if state.logs is None:
        return {}
    return delivery.offsets(state.logs, holders, _names(scope))

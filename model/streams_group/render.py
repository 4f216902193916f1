"""Readable views of streams-group states and actions: ITF values and one-line text."""
from __future__ import annotations

from ..itf import itf_set
from .group import ACTIVE, STANDBY, WARMUP, group_state
from .properties import _live
from .scope import StreamsGroupScope
from .state import STATUS_NAMES
from .step import index, view
from .world import Action, State, member_id


def _classic(group) -> str:
    """One line for a classic group (``model/consumer/state.py``'s), or for the classic
    members of a migrating group; "" when the group has none."""
    if hasattr(group, "generation"):
        return f"classic group {group.status}, generation {group.generation}, members " + \
            ", ".join(m.member_id for m in group.members)
    if hasattr(group, "classic"):
        return "classic members " + ", ".join(mid for mid, _ in group.classic)
    return ""

ROLES = ("active", "standby", "warmup")


def _tasks(mask: int) -> dict:
    return itf_set(f"T{t}" for t in range(mask.bit_length()) if mask >> t & 1)


def _text(mask: int) -> str:
    return "[" + ", ".join(f"T{t}" for t in range(mask.bit_length()) if mask >> t & 1) + "]"


def name(scope: StreamsGroupScope, slot: int) -> str:
    p, m = divmod(slot, scope.members_per_process)
    return f"P{p + 1}" + (f"-{m + 1}" if scope.members_per_process > 1 else "")


def state_to_itf(scope: StreamsGroupScope, state: State) -> dict:
    g = view(scope, state.group)
    members = [{"member_id": m.member_id, "process_id": m.process_id, "topology_epoch": m.topology_epoch,
                "state": m.state, "epoch": m.epoch,
                **{r: _tasks(m.assigned[i]) for i, r in enumerate(ROLES)},
                **{f"pending_{r}": _tasks(m.pending_revocation[i]) for i, r in enumerate(ROLES)},
                "target": {r: _tasks(g.target_of(m.member_id)[i]) for i, r in enumerate(ROLES)}}
               for m in (() if g.dead else g.members)]
    clients = []
    for s, c in enumerate(state.clients):
        d = {"client": name(scope, s), "member_id": member_id(s, c.incarnation), "status": c.status,
             "epoch": c.epoch, "topology_epoch": c.topology_epoch,
             **{r: _tasks(c.owned[i]) for i, r in enumerate(ROLES)}, "caught_up": _tasks(c.caught),
             "shutdown": c.shutdown}
        if c.classic:
            d["classic"] = True
            if c.request is not None:
                d["request"] = {"kind": c.request.kind}
            if c.reply is not None:
                d["reply"] = {"kind": c.reply.kind, "error": c.reply.error}
        if c.request is not None and not c.classic:
            d["request"] = {"epoch": c.request.epoch, "shutdown_application": c.request.shutdown}
        if c.reply is not None and not c.classic:
            d["reply"] = {"error": c.reply.error, "epoch": c.reply.epoch,
                          "statuses": {"#tup": [STATUS_NAMES[x] for x in c.reply.statuses]}}
        clients.append(d)
    return {
        "group": {"state": group_state(g), "group_epoch": g.group_epoch,
                  "assignment_epoch": g.target_assignment_epoch,
                  "topology_epoch": -1 if g.topology is None else g.topology.epoch,
                  "validated_topology_epoch": g.validated_topology_epoch, "members": members,
                  "shutdown_requested_by": state.shutdown or "", **({"classic": _classic(state.group)}
                                                                    if _classic(state.group) else {})},
        "topics": {"#map": [[t, p] for t, p in state.topics]},
        "clients": clients, "budget": state.budget, "calm": state.calm,
    }


def describe_action(scope: StreamsGroupScope, state: State, action: Action) -> str:
    k, s = action.kind, action.slot
    who = name(scope, s) if k not in ("topic_change", "create_topic") else ""
    c = state.clients[s]
    if c.classic and k in ("send", "handle"):
        what = classic_request_text(scope, c)
        return f"{who} sends {what}" if k == "send" else f"the coordinator handles {who}'s {c.request.kind}"
    if c.classic and k == "deliver":
        return f"{who} reads the {c.reply.kind} ({c.reply.error})"
    if k == "send":
        epoch = -1 if c.status == "leaving" else c.epoch     # a joining client's epoch is 0 (KAFKA-19335: -1)
        return f"{who} sends StreamsGroupHeartbeat (epoch {epoch}, active {_text(c.owned[ACTIVE])})"
    if k == "handle":
        return f"the coordinator handles {who}'s heartbeat (epoch {c.request.epoch})"
    if k == "deliver":
        r = c.reply
        return f"{who} reads the response ({r.error or 'epoch ' + str(r.epoch)})"
    if k == "expire":
        return f"the session of {member_id(s, action.arg)} ({who}'s old incarnation) times out"
    if k == "topic_change":
        return "topic t0 is deleted" if action.arg == 0 else "topic t0 gains a partition"
    if k == "create_topic":
        return "topic t0 is created again"
    if k == "redeploy":
        return f"{who} closes to restart with another topology under topology epoch {c.topology_epoch}"
    if k == "poll_timeout":
        return f"{who}'s poll timer expires: it sends its leave heartbeat (epoch -1) and rejoins as {member_id(s, c.incarnation)}"
    if k == "shutdown_leave":
        return f"{who} asks for the application's shutdown on its leave heartbeat (epoch -1) and stops"
    if k == "failover":
        return ("a new coordinator loads the log" +
                (f" without {who}'s last heartbeat (not committed)" if action.arg else ""))
    if k == "upgrade":
        return f"{who} closes to restart on the streams protocol"
    return f"{who} {k.replace('_', ' ')}"


def classic_request_text(scope, c) -> str:
    return {"rejoining": "JoinGroup", "syncing": "SyncGroup"}.get(c.status, "Heartbeat") + \
        f" (generation {c.epoch}, active {_text(c.owned[ACTIVE])})"


def describe_event(scope: StreamsGroupScope, event) -> str | None:
    if event.kind not in ("handle", "expire", "session_timeout"):
        return None
    return f"{name(scope, event.slot)}: {event.note}"


def describe_state(scope: StreamsGroupScope, state: State) -> str:
    g = view(scope, state.group)
    topo = "none" if g.topology is None else str(g.topology.epoch)
    lines = [f"group {group_state(g)}, group epoch {g.group_epoch}, assignment epoch {g.target_assignment_epoch}, "
             f"topology epoch {topo}, topics {dict(state.topics)}"]
    if _classic(state.group):
        lines.append("  " + _classic(state.group))
    for m in () if g.dead else g.members:
        t = g.target_of(m.member_id)
        lines.append(f"  {m.member_id} ({m.process_id}): {m.state} epoch {m.epoch}, "
                     f"active {_text(m.assigned[ACTIVE])}, pending {_text(m.pending_revocation[ACTIVE])}, "
                     f"target active {_text(t[ACTIVE])} standby {_text(t[STANDBY])}")
    for s, c in enumerate(state.clients):
        lines.append(f"{name(scope, s)} [{member_id(s, c.incarnation)}]{' classic' if c.classic else ''}: "
                     f"{c.status}, epoch {c.epoch}, "
                     f"runs active {_text(c.owned[ACTIVE])} standby {_text(c.owned[STANDBY])} "
                     f"warm-up {_text(c.owned[WARMUP])}, "
                     f"topology epoch {c.topology_epoch}")
    return "\n".join(lines)


def owners(scope: StreamsGroupScope, state: State) -> dict[str, tuple[str, ...]]:
    """Who runs each task (the explorer's ownership timeline), judged as ``no_task_active_twice``
    judges it: the live clients, classic or streams, by their owned active tasks ("P1"); their
    standby and warm-up tasks are shown as replicas ("P1 (standby)", "P1 (warm-up)"), not owners."""
    out: dict[str, tuple[str, ...]] = {f"T{t}": () for t in range(len(index(scope)))}
    live = list(_live(state))
    for role, suffix in ((0, ""), (1, " (standby)"), (2, " (warm-up)")):
        for slot, c in live:
            for t in range(c.owned[role].bit_length()):
                if c.owned[role] >> t & 1:
                    out[f"T{t}"] = out.get(f"T{t}", ()) + (name(scope, slot) + suffix,)
    return out

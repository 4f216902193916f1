"""Readable views of Streams-on-classic states and actions: ITF values and one-line text."""
from __future__ import annotations

from ..itf import itf_set
from .scope import StreamsScope
from .state import Action, State, task_names


def _tasks(mask: int) -> dict:
    return itf_set(f"T{t + 1}" for t in range(mask.bit_length()) if mask >> t & 1)


def name(scope: StreamsScope, slot: int) -> str:
    i, t = divmod(slot, scope.threads)
    return f"S{i + 1}" + (f"-{t + 1}" if scope.threads > 1 else "")


def state_to_itf(scope: StreamsScope, state: State) -> dict:
    g = state.group
    members = []
    for s, m in enumerate(state.members):
        d = {"thread": name(scope, s), "status": m.status, "used": m.used, "generation": m.generation,
             "active": _tasks(m.active), "standby": _tasks(m.standby), "learning": _tasks(m.learning),
             "ready": _tasks(m.ready), "learned": _tasks(m.learned)}
        if m.sub is not None:
            d["subscription"] = {"used": m.sub.used, "latest": m.sub.latest, "protocol": m.sub.protocol,
                                 "owned": _tasks(m.sub.owned), "prev": _tasks(m.sub.prev)}
        if m.inbox is not None:
            a = m.inbox
            d["inbox"] = {"version": a.version, "supported": a.supported, "error": a.error,
                          "active": _tasks(a.active), "standby": _tasks(a.standby),
                          "learning": _tasks(a.learning), "followup": a.followup}
        if m.failure:
            d["failure"] = m.failure
        members.append(d)
    return {
        "group": {"status": g.status, "generation": g.generation,
                  "leader": name(scope, g.leader) if g.leader >= 0 else "",
                  "joined": {"#tup": [name(scope, s) for s in g.joined]}, "version": g.version},
        "instances": [{"status": i.status, "config": scope.plan[i.stage].text(), "leaving": i.leaving}
                      for i in state.instances],
        "members": members,
        "budget": state.budget, "calm": state.calm, "since_start": state.since_start,
    }


def describe_action(scope: StreamsScope, state: State, action: Action) -> str:
    k, s = action.kind, action.slot
    if k in ("join", "receive", "caught_up"):
        who = name(scope, s)
        m = state.members[s]
        if k == "join":
            return f"{who} sends JoinGroup (v{m.used})"
        if k == "receive":
            a = m.inbox
            return f"{who} processes its generation {a.generation} assignment (v{a.version})"
        return f"{who} reports its warm-up tasks {task_names(m.learning & ~m.ready)} caught up"
    if k == "assign":
        new = "" if state.group.leader == s else " (new leader)"
        return f"leader {name(scope, s)}{new} assigns generation {state.group.generation + 1}"
    inst = state.instances[s]
    if k == "stop":
        return f"S{s + 1} is stopped to be bounced onto {scope.plan[inst.stage + 1].text()}"
    if k == "start":
        return f"S{s + 1} starts on {scope.plan[inst.stage].text()}"
    if k == "scale_up":
        return f"new instance S{s + 1} starts on {scope.plan[inst.stage].text()}"
    if k == "scale_down":
        return f"S{s + 1} is marked leaving (scale-down)"
    return f"S{s + 1} {k}"


def describe_event(scope: StreamsScope, event) -> str | None:
    """What the leader decided and what each thread did with it; the rest is in the action."""
    if event.kind not in ("assign", "receive", "failed", "leader_failed", "shutdown"):
        return None
    return f"{name(scope, event.slot)}: {event.note}"

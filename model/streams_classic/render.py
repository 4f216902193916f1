"""Readable views of Streams-on-classic states and actions: ITF values and one-line text."""
from __future__ import annotations

from ..itf import itf_set
from .scope import StreamsScope
from .state import JOINING, SYNCING, UP, Action, State, task_names


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


def _awaits(m) -> str:
    if m.status == JOINING:
        return "must send JoinGroup"
    if m.status == SYNCING and m.inbox is None:
        return "awaits its assignment"
    return "awaits nothing"


def _inbox(m) -> str:
    a = m.inbox
    if a is None:
        return "inbox empty"
    what = f"error {a.error}" if a.error else (f"active {task_names(a.active)}, standby {task_names(a.standby)}"
                                               + (f", learning {task_names(a.learning)}" if a.learning else ""))
    return f"inbox generation {a.generation} assignment v{a.version} ({what})"


def _thread_line(scope: StreamsScope, state: State, slot: int) -> str:
    m = state.members[slot]
    inst = state.instances[slot // scope.threads]
    run = scope.plan[inst.stage].text() + ("" if inst.status == UP else f", instance {inst.status}")
    parts = [m.status + (f" ({m.failure})" if m.failure else ""), f"uses v{m.used}", f"generation {m.generation}",
             f"active {task_names(m.active)}", f"standby {task_names(m.standby)}"]
    if m.learning:
        parts.append(f"learning {task_names(m.learning)} (caught up {task_names(m.ready)})")
    parts += [_awaits(m), _inbox(m)]
    return f"{name(scope, slot)} [{run}]: " + "; ".join(parts)


def describe_state(scope: StreamsScope, state: State) -> str:
    """The group (status, generation, leader, AssignmentInfo version, who joined this
    round) and one line per thread: its instance's release, status, used version,
    generation, active and standby tasks, what it awaits, its unprocessed assignment."""
    g = state.group
    leader = name(scope, g.leader) if g.leader >= 0 else "none"
    joined = ", ".join(name(scope, s) for s in g.joined) or "none"
    group = (f"group {g.status}, generation {g.generation}, leader {leader}, "
             f"version {'v' + str(g.version) if g.version else 'none'}, joined this round: {joined}")
    return "\n".join([group] + [_thread_line(scope, state, s) for s in range(len(state.members))])


def owners(scope: StreamsScope, state: State) -> dict[str, tuple[str, ...]]:
    """Who runs each task (the explorer's ownership timeline), judged as ``revoke_before_reassign``
    judges it: every thread by its active tasks ("S1"), failed or not; standby and warm-up
    (learner) tasks are shown as replicas ("S1 (standby)", "S1 (warm-up)"), not owners."""
    out: dict[str, tuple[str, ...]] = {f"T{t + 1}": () for t in range(scope.tasks)}
    for role, suffix in (("active", ""), ("standby", " (standby)"), ("learning", " (warm-up)")):
        for slot, m in enumerate(state.members):
            mask = getattr(m, role)
            for t in range(mask.bit_length()):
                if mask >> t & 1:
                    out[f"T{t + 1}"] = out.get(f"T{t + 1}", ()) + (name(scope, slot) + suffix,)
    return out

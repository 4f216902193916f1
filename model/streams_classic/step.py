"""init_states, actions and step of Kafka Streams on the classic group protocol.

Protocol steps: ``join`` (a thread sends JoinGroup), ``assign`` (every live thread has
joined; the leader's assignor runs and SyncGroup hands out the result), ``receive`` (a
thread processes its assignment), ``caught_up`` (a thread's warm-up tasks finished
restoring; it rejoins to say so). Operations: ``stop`` / ``start`` (a rolling bounce
onto the plan's next configuration), ``scale_up``, ``scale_down`` (KIP-429's "leaving
soon"); fault: ``crash`` (the instance dies; ``start`` restarts it unchanged).

Kafka Streams sends no LeaveGroup on close; the coordinator drops a stopped member when
its session times out. The model drops it at once, and lets the restart race the round
that follows, which covers both orders.
"""
from __future__ import annotations

from functools import lru_cache

from ..core import NotSettled
from . import releases as rel
from .leader import assign as leader_assign
from .member import on_assignment, subscribe
from .scope import StreamsScope
from .state import (
    ABSENT, DOWN, FAILED, GONE, GROUP_STABLE, JOINING, NO_LEADER, OFF, PREPARING, STABLE, SYNCING, UP,
    Action, Event, Group, Instance, Member, State, task_names,
)

CAP = 9
LEADER_FAILURE = "assign() threw: "
ACTION_KINDS = ("join", "assign", "receive", "caught_up", "stop", "start", "crash", "scale_up", "scale_down")
BUDGETED = frozenset({"crash", "scale_up", "scale_down"})
PROTOCOL = ("join", "assign", "receive", "caught_up")


def config(scope: StreamsScope, state: State, slot: int):
    return scope.plan[state.instances[slot // scope.threads].stage]


def first_version(scope: StreamsScope, stage: int) -> int:
    """The SubscriptionInfo version a thread of plan stage ``stage`` sends first (upgrade.from
    honoured when the profile does)."""
    cfg = scope.plan[stage]
    uf = cfg.upgrade_from if scope.behaviour.honour_upgrade_from else None
    return rel.subscription_version(cfg.release, uf)


def fresh(scope: StreamsScope, stage: int, status: str) -> Member:
    """A stream thread as it starts: no assignment, sending ``first_version``."""
    return Member(status=status, used=first_version(scope, stage), generation=-1, active=0, prev=0, standby=0,
                  learning=0, ready=0, learned=0, sub=None, inbox=None, history=-1)


def slots_of(scope: StreamsScope, instance: int) -> range:
    return range(instance * scope.threads, (instance + 1) * scope.threads)


def live(m: Member) -> bool:
    return m.status in (JOINING, SYNCING, STABLE)


def init_states(scope: StreamsScope) -> tuple[State, ...]:
    instances = tuple(Instance(UP if i < scope.running else ABSENT, 0) for i in range(scope.instances))
    members = tuple(fresh(scope, 0, JOINING if instances[s // scope.threads].status == UP else OFF)
                    for s in range(scope.members))
    group = Group(status=GROUP_STABLE, generation=0, leader=NO_LEADER, joined=(), order=(), version=0)
    state = State(group=group, instances=instances, members=members, budget=scope.budget, calm=0, since_start=0,
                  last_start=-1)
    if scope.start == "stable":
        state = settle(scope, state)
    return (state,)


def settle(scope: StreamsScope, state: State) -> State:
    """Run the first enabled protocol step until nothing is left: a fixed, fault-free
    schedule, so the result is reachable. The monitors restart from it."""
    for _ in range(50 * scope.members):
        enabled = [a for a in actions(scope, state) if a.kind in PROTOCOL]
        if not enabled:
            return state._replace(calm=0, since_start=0)
        state, _ = step(scope, state, enabled[0])
    raise NotSettled("scope.start='stable': the group did not settle from an empty start on the fault-free schedule")


def leaders(state: State) -> tuple[int, ...]:
    """Who may lead the round: the coordinator keeps its leader while it is a member;
    when the leader has left, Kafka picks the first of its members map, a HashMap keyed
    by random member ids (GroupMetadata / ClassicGroup), so any member may."""
    g = state.group
    return (g.leader,) if g.leader in g.joined else g.joined


def actions(scope: StreamsScope, state: State) -> tuple[Action, ...]:
    out = []
    g = state.group
    for s, m in enumerate(state.members):
        if m.status == JOINING:
            out.append(Action("join", s))
        elif m.status == SYNCING and m.inbox is not None:
            out.append(Action("receive", s))
        elif m.status == STABLE and m.learning & ~m.ready:
            out.append(Action("caught_up", s))
    if (g.status == PREPARING and g.joined
            and all(s in g.joined for s, m in enumerate(state.members) if live(m))):
        out += [Action("assign", s) for s in leaders(state)]
    # a rolling bounce stops one instance at a time, and the next bounce of the plan
    # begins once every instance has been through the previous one
    down = any(i.status == DOWN for i in state.instances)
    behind = min((i.stage for i in state.instances if i.status in (UP, DOWN)), default=0)
    for i, inst in enumerate(state.instances):
        if (inst.status == UP and "bounce" in scope.operations and not down and inst.stage == behind
                and inst.stage < len(scope.plan) - 1):
            out.append(Action("stop", i))
        if inst.status == DOWN:
            out.append(Action("start", i))
        if state.budget > 0:
            if inst.status == UP and "crash" in scope.faults:
                out.append(Action("crash", i))
            if inst.status == ABSENT and "scale_up" in scope.operations:
                out.append(Action("scale_up", i))
            others = [j for j, o in enumerate(state.instances) if j != i and o.status == UP and not o.leaving]
            if inst.status == UP and not inst.leaving and "scale_down" in scope.operations and others:
                out.append(Action("scale_down", i))
    return tuple(out)


def _rebalance(members: list[Member], g: Group) -> Group:
    """A round begins (or goes on): every thread holding a processed assignment hears
    REBALANCE_IN_PROGRESS on its next heartbeat and rejoins."""
    for o, mo in enumerate(members):
        if mo.status == STABLE:
            members[o] = mo._replace(status=JOINING)
    return g if g.status == PREPARING else g._replace(status=PREPARING, joined=())


def _drop(scope: StreamsScope, members: list[Member], g: Group, slots, status: str) -> Group:
    """Threads leave the group (stopped, crashed, failed or shut down)."""
    had = False
    for s in slots:
        m = members[s]
        had |= m.status != OFF and m.generation >= 0 or m.status == SYNCING
        members[s] = Member(status=status, used=m.used, generation=m.generation, active=0, prev=0, standby=0,
                            learning=0, ready=0, learned=0, sub=None, inbox=None, history=-1, failure=m.failure)
    gone = set(slots)
    g = g._replace(joined=tuple(s for s in g.joined if s not in gone),
                   order=tuple(s for s in g.order if s not in gone),
                   leader=NO_LEADER if g.leader in gone else g.leader)
    if had and any(live(m) for m in members):
        g = _rebalance(members, g)
    return g


def step(scope: StreamsScope, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    k, s = action.kind, action.slot
    members = list(state.members)
    g = state.group
    if k == "join":
        m, revoked = subscribe(scope, config(scope, state, s), members[s],
                               state.instances[s // scope.threads].leaving)
        if m.failure:
            g = _drop(scope, members, g, [s], FAILED)
            members[s] = members[s]._replace(failure=m.failure)
            return state._replace(group=g, members=tuple(members)), (Event("failed", s, m.failure),)
        members[s] = m._replace(status=SYNCING)
        if g.status != PREPARING:
            g = _rebalance(members, g)
        g = g._replace(joined=tuple(sorted(g.joined + (s,))),
                       order=g.order if s in g.order else g.order + (s,))
        sub = m.sub
        note = f"JoinGroup v{sub.used} (supports v{sub.latest}), {sub.protocol}"
        if revoked:
            note += f", revokes {task_names(revoked)}"
        return state._replace(group=g, members=tuple(members)), (Event("join", s, note),)
    if k == "assign":
        return _assign(scope, state, members, s)
    if k == "receive":
        return _receive(scope, state, members, s)
    if k == "caught_up":
        m = members[s]
        members[s] = m._replace(ready=m.learning, status=JOINING)
        return state._replace(members=tuple(members), calm=0), (Event("caught_up", s, "warm-up caught up"),)
    return _operate(scope, state, members, action)


def _assign(scope: StreamsScope, state: State, members: list[Member], leader: int):
    g = state.group
    gen = g.generation + 1
    out = leader_assign(scope, state, leader, gen)
    if out.failure:
        members[leader] = members[leader]._replace(failure=LEADER_FAILURE + out.failure)
        g = _drop(scope, members, g._replace(generation=gen), [leader], FAILED)
        for s in g.joined:
            members[s] = members[s]._replace(status=JOINING, sub=None)
        g = g._replace(status=PREPARING, joined=())
        return (state._replace(group=g, members=tuple(members)),
                (Event("leader_failed", leader, out.failure),))
    for s, a in out.assignments:
        members[s] = members[s]._replace(inbox=a)
    insts = 0
    for s in g.joined:
        insts |= 1 << (s // scope.threads)
    if scope.task_assignor == "learner":   # only KIP-429's assignor reads it
        members[leader] = members[leader]._replace(history=insts)
    version = min(a.version for _, a in out.assignments)
    started = state.last_start >= 0 and any(s // scope.threads == state.last_start for s in g.joined)
    g = Group(status=GROUP_STABLE, generation=gen, leader=leader, joined=(), order=g.order, version=version)
    nxt = state._replace(group=g, members=tuple(members), calm=min(CAP, state.calm + 1),
                         since_start=min(CAP, state.since_start + started))
    return nxt, (Event("assign", leader, f"generation {gen}: {out.note}"),)


def _receive(scope: StreamsScope, state: State, members: list[Member], s: int):
    g = state.group
    m = members[s]
    inst = state.instances[s // scope.threads]
    done = on_assignment(scope, config(scope, state, s), m, m.inbox)
    a = m.inbox
    text = f"active {task_names(a.active)}"
    if m.active & ~a.active:
        text += f", revokes {task_names(m.active & ~a.active)}"
    if a.learning:
        text += f", learning {task_names(a.learning)}"
    if a.standby:
        text += f", standby {task_names(a.standby)}"
    events = [Event("receive", s, text + (f"; {done.note}" if done.note else ""))]
    instances = list(state.instances)
    if done.member.failure:
        g = _drop(scope, members, g, [s], FAILED)
        members[s] = members[s]._replace(failure=done.member.failure)
        events.append(Event("failed", s, done.member.failure))
    elif inst.leaving and not done.member.active and not done.member.learning:
        # KIP-429: "the leaving member will shut down itself once received the
        # instruction to revoke all its active tasks"
        members[s] = done.member
        g = _drop(scope, members, g, [s], OFF)
        if all(members[o].status == OFF for o in slots_of(scope, s // scope.threads)):
            instances[s // scope.threads] = inst._replace(status=GONE)
        events.append(Event("shutdown", s, "no task left: shuts down"))
    else:
        # KIP-429: members told they are leaving "send join group request to indicate that
        # they are 'leaving soon'": one told while its last JoinGroup said otherwise rejoins
        told = inst.leaving and not (done.member.sub is not None and done.member.sub.leaving)
        rejoin = done.rejoin or (g.status == PREPARING and s not in g.joined) or told
        members[s] = done.member._replace(status=JOINING if rejoin else STABLE)
    return state._replace(group=g, members=tuple(members), instances=tuple(instances)), tuple(events)


def _operate(scope: StreamsScope, state: State, members: list[Member], action: Action):
    k, i = action.kind, action.slot
    instances = list(state.instances)
    inst = instances[i]
    g = state.group
    budget = state.budget - (k in BUDGETED)
    last, since = state.last_start, state.since_start
    if k in ("stop", "crash"):
        stage = inst.stage + (k == "stop")
        instances[i] = Instance(DOWN, stage, False)
        g = _drop(scope, members, g, slots_of(scope, i), OFF)
        note = f"stopped for the bounce onto {scope.plan[stage].text()}" if k == "stop" else "crashed"
    elif k in ("start", "scale_up"):
        instances[i] = Instance(UP, inst.stage, False)
        for s in slots_of(scope, i):
            members[s] = fresh(scope, inst.stage, JOINING)
        last, since = i, 0
        note = f"starts on {scope.plan[inst.stage].text()}"
    else:  # scale_down
        instances[i] = inst._replace(leaving=True)
        for s in slots_of(scope, i):
            if members[s].status == STABLE:
                members[s] = members[s]._replace(status=JOINING)
        note = "is told it is leaving soon"
    nxt = state._replace(group=g, members=tuple(members), instances=tuple(instances), budget=budget,
                         calm=0, last_start=last, since_start=since)
    return nxt, (Event(k, i, note),)


def canonical(scope: StreamsScope, state: State):
    """Symmetry reduction: instances are interchangeable (the assignors break ties by
    seniority, never by instance number), so sort them and rename every reference."""
    n, t = scope.instances, scope.threads
    g = state.group
    members = state.members
    # instances in the group sort by seniority (distinct positions in group.order);
    # only those outside it need their whole state as a tie-break
    keys: tuple = _seniority(g.order, n, t)
    if keys.count(99) > 1:
        keys = tuple((keys[i], state.instances[i],
                      tuple(m[:9] + (m.sub or (), m.inbox or (), m.failure) for m in members[i * t:(i + 1) * t]),
                      g.leader // t == i if g.leader >= 0 else False, i == state.last_start) for i in range(n))
    perm = _sorting(keys)                    # new index -> old instance
    if perm is None:
        return state
    new = {old: i for i, old in enumerate(perm)}
    members = tuple(m if m.history < 0 else m._replace(history=_renamed_instances(m.history, perm))
                    for old in perm for m in members[old * t:(old + 1) * t])
    return state._replace(group=_renamed_group(g, perm, t), instances=tuple(state.instances[old] for old in perm),
                          members=members, last_start=new.get(state.last_start, -1))


# canonical's pure pieces, cached: few distinct groups and orders recur in a search

@lru_cache(maxsize=1 << 16)
def _seniority(order: tuple[int, ...], n: int, t: int) -> tuple[int, ...]:
    """Each instance's first position in the group's member order (99: not in it)."""
    seniority = [99] * n
    for pos, s in enumerate(order):
        if seniority[s // t] == 99:
            seniority[s // t] = pos
    return tuple(seniority)


@lru_cache(maxsize=1 << 16)
def _sorting(keys: tuple) -> tuple[int, ...] | None:
    """The instances in ``keys`` order (new index -> old instance); None if already so."""
    perm = tuple(sorted(range(len(keys)), key=keys.__getitem__))
    return None if perm == tuple(range(len(keys))) else perm


def _renamed_instances(mask: int, perm: tuple[int, ...]) -> int:
    """An instance bitmask with every instance renamed (``perm``: new index -> old)."""
    return sum(1 << i for i, old in enumerate(perm) if mask >> old & 1)


@lru_cache(maxsize=1 << 16)
def _renamed_group(g: Group, perm: tuple[int, ...], t: int) -> Group:
    """The group with every member slot renamed (``perm``: new instance -> old)."""
    new = {old: i for i, old in enumerate(perm)}

    def slot(s: int) -> int:
        return s if s < 0 else new[s // t] * t + s % t

    return g._replace(leader=slot(g.leader), joined=tuple(sorted(slot(s) for s in g.joined)),
                      order=tuple(slot(s) for s in g.order))


def within_bounds(scope: StreamsScope, state: State) -> bool:
    return state.group.generation < scope.max_generation


def quiescent(scope: StreamsScope, state: State) -> bool:
    """Nothing left to do: no protocol step is enabled and no thread waits."""
    if state.group.status != GROUP_STABLE:
        return False
    return all(m.status in (OFF, FAILED) or (m.status == STABLE and not m.learning & ~m.ready)
               for m in state.members)


def is_terminal_ok(scope: StreamsScope, state: State) -> bool:
    return quiescent(scope, state) or not any(live(m) for m in state.members)

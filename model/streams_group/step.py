"""init_states, actions, step and canonical of a KIP-1071 streams group.

Protocol steps: ``send`` (a client sends its heartbeat, ``member.request``), ``handle``
(the coordinator's ``heartbeat`` answers it; the broker sends a CreateTopics for the
internal topics it asks for), ``topics_created`` (that request completes), ``deliver``
(the client reads the response, ``member.on_response``), ``restart`` (a down client starts again as a new incarnation), ``bounce`` (a rolling topology
update goes on: a client behind the newest topology epoch closes to restart with it),
``expire`` (the session of a member whose client is gone times out), ``create_topic``
(a deleted source topic is created again), ``catch_up`` (a client's standby and
warm-up tasks finish restoring), ``upgrade`` (a classic client closes to restart on
the streams protocol; classic clients: ``classic_clients.py``). Faults (spend the
budget; streams clients only): ``lose_response``, ``session_timeout`` (of a live client),
``crash``. Budgeted operations: ``topology_update`` (a client closes to restart with
topology epoch + 1, starting a rolling update), ``topic_change`` (arg 0: the first source
topic is deleted; arg 1: it gains a partition, stateless topologies only),
``shutdown_request``, ``failover`` (a new coordinator loads the log: ``failover.py``),
``roll`` (a client closes to restart with the same topology: with ``static`` its next
incarnation takes its tasks over), ``redeploy`` (a client closes to restart with another
topology under the same topology epoch: a redeploy without an epoch bump, KAFKA-21370),
``poll_timeout`` (a member leaves and rejoins with the same member id while its leave
heartbeat is in flight, KAFKA-19335), ``shutdown_leave`` (a client requests the
application's shutdown on its leave heartbeat and stops, KAFKA-19190).
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..consumer.state import Group as ClassicGroup
from ..epochs.rounds import add_slot, drop_slot, has_slot, response_read
from . import classic_clients as classic
from .coordinator import Cluster, Config, heartbeat, rebalance_timeout, session_timeout
from .coordinator_update import switched
from .failover import classic_commits, failover_step
from .group import ACTIVE, NO_TASKS, STANDBY, UNREVOKED, WARMUP, Group, mask_of, new_group, task_ids_of, task_index
from .migration import MigratingGroup, streams_heartbeat, streams_of, streams_session_timeout
from .member import after_send, close, on_response, poll_timeout, request, running, shutdown_on_leave
from .scope import MAX_PARTITIONS, StreamsGroupScope
from .state import (DEAD, EMPTY, ERRORS, NOT_READY, STABLE, StreamsGroupHeartbeat, Subtopology, TaskOffset, TopicInfo,
                    Topology)
from .target import AssignmentConfigs
from .topology import configure
from .group import group_state
from .world import (BECAME_READY, STATIC_KEPT, WARMUP_PROMOTED, DOWN, FAILED, JOINING, LEAVING, MEMBER, STOPPED, WAITING, Action, Client, Event, Reply, State,
                    Handled, HandledHeartbeat, Uncommitted, member_id, slot_of)

GROUP_ID = "app"
K = 5            # heartbeat rounds converges_within_k allows: notice, target, revoke, ack, assign
ERROR_NAMES = {code: name for name, code in ERRORS.items()}
FAULT_KINDS = ("lose_response", "session_timeout", "crash")
OPERATION_KINDS = ("topology_update", "topic_change", "shutdown_request", "roll", "redeploy", "poll_timeout",
                   "shutdown_leave", "failover")
BUDGETED = frozenset(FAULT_KINDS + OPERATION_KINDS)
PROGRESS = ("send", "handle", "deliver", "restart", "bounce", "expire", "rebalance_timeout", "create_topic",
            "topics_created", "catch_up", "upgrade")
ACTION_KINDS = PROGRESS + FAULT_KINDS + OPERATION_KINDS


# ---- the scope's fixed pieces ----

def source(i: int) -> str:
    return f"t{i}"


def topology(scope: StreamsGroupScope, epoch: int, redeployed: bool = False) -> Topology:
    """The scope's topology at ``epoch``; ``redeployed``: the same source topics with the state
    stores added (stateless scope) or removed (stateful scope) - another topology."""
    stateful = scope.stateful != redeployed
    subs = tuple(Subtopology(subtopology_id=str(i), source_topics=(source(i),),
                             state_changelog_topics=(TopicInfo(f"{GROUP_ID}-{i}-changelog"),) if stateful else ())
                 for i in range(len(scope.partitions)))
    return Topology(epoch, subs)


def can_add_partition(scope: StreamsGroupScope) -> bool:
    return "topic_change" in scope.operations and not scope.stateful and scope.partitions[0] < MAX_PARTITIONS


def index(scope: StreamsGroupScope):
    extra = 1 if can_add_partition(scope) else 0
    return task_index({str(i): p + (extra if i == 0 else 0) for i, p in enumerate(scope.partitions)})


def config(scope: StreamsGroupScope) -> Config:
    return Config(assignment=AssignmentConfigs(scope.standbys, scope.warmups, 0))


def process(scope: StreamsGroupScope, slot: int) -> int:
    return slot // scope.members_per_process


def view(scope: StreamsGroupScope, group) -> Group:
    """The streams group the coordinator holds (a migrating group's; none, dead, for a
    classic group): what the streams properties and the monitor read."""
    if isinstance(group, ClassicGroup):
        return replace(new_group(GROUP_ID, index(scope)), dead=True)
    return streams_of(group)


def init_states(scope: StreamsGroupScope) -> tuple[State, ...]:
    group = replace(new_group(GROUP_ID, index(scope)), dead=True)
    topics = dict((source(i), p) for i, p in enumerate(scope.partitions))
    clients = [Client(status=JOINING, incarnation=0, epoch=0, owned=NO_TASKS, topology_epoch=0, caught=0,
                      shutdown=False, request=None, reply=None) for _ in range(scope.members)]
    if scope.classic:
        # classic Streams created its internal topics itself (InternalTopicManager)
        topics.update(configure(topology(scope, 0), topics, scope.profile).internal_partitions)
        group, clients[:scope.classic] = classic.init(scope, GROUP_ID, topology(scope, 0), index(scope), topics,
                                                      config(scope))
    record = group if scope.classic and "failover" in scope.operations else None
    return (State(group=group, shutdown=None, topics=tuple(sorted(topics.items())), clients=tuple(clients),
                  budget=scope.budget, calm=0, beaten=0, classic_record=record),)


# ---- actions ----

def _rolling(state: State) -> int:
    """The newest topology epoch any client runs."""
    return max(c.topology_epoch for c in state.clients)


def _idle(c: Client) -> bool:
    return c.request is None and c.reply is None


def actions(scope: StreamsGroupScope, state: State) -> tuple[Action, ...]:
    out = []
    for s, c in enumerate(state.clients):
        if running(c) and _idle(c) and c.status != WAITING:
            out.append(Action("send", s))
        if c.request is not None:
            out.append(Action("handle", s))
        if c.reply is not None:
            out.append(Action("deliver", s))
    out += _upkeep(scope, state)
    if state.budget > 0:
        out += _budgeted(scope, state)
    return tuple(out)


def _upkeep(scope: StreamsGroupScope, state: State) -> list[Action]:
    out = []
    newest = _rolling(state)
    for s, c in enumerate(state.clients):
        if c.status == DOWN and c.request is None:
            out.append(Action("restart", s))
        if c.status in (MEMBER, JOINING) and _idle(c) and c.topology_epoch < newest:
            out.append(Action("bounce", s))
        if scope.warmups and c.status == MEMBER and (c.owned[STANDBY] | c.owned[WARMUP]) & ~c.caught and not c.classic:
            out.append(Action("catch_up", s))
        if c.classic and c.status == MEMBER and _idle(c):
            out.append(Action("upgrade", s))
    g = view(scope, state.group)
    for mid in _member_ids(state.group):
        s, inc = slot_of(mid)
        c = state.clients[s]
        m = None if g.dead else g.member(mid)
        if inc != c.incarnation or not running(c):
            out.append(Action("expire", s, inc))
        elif m is not None and m.state == UNREVOKED and has_slot(state.wedged, s):
            # the rebalance timer of a member that cannot learn of its revocation (its
            # response was lost and the coordinator sends tasks only when they change);
            # a member that got its response revokes at once, so its timer never fires
            out.append(Action("rebalance_timeout", s, inc))
    if source(0) not in dict(state.topics):
        out.append(Action("create_topic", 0))
    if state.creating:
        out.append(Action("topics_created", 0))
    return out


def _member_ids(group) -> tuple[str, ...]:
    if isinstance(group, ClassicGroup):
        return classic.classic_member_ids(group)
    g = streams_of(group)
    return () if g.dead else tuple(m.member_id for m in g.members)


def _budgeted(scope: StreamsGroupScope, state: State) -> list[Action]:
    out = []
    g = state.group
    if "failover" in scope.operations:
        out.append(Action("failover", 0))
        if state.uncommitted:   # the last heartbeat's write was not committed yet
            out.append(Action("failover", state.uncommitted.slot, 1))
    uniform = all(c.topology_epoch == state.clients[0].topology_epoch for c in state.clients)
    for s, c in enumerate(state.clients):
        if c.classic:   # faults strike streams clients only
            continue
        if c.reply is not None and "lose_response" in scope.faults:
            out.append(Action("lose_response", s))
        if (running(c) and "session_timeout" in scope.faults
                and classic.holds(g, member_id(s, c.incarnation))):
            out.append(Action("session_timeout", s))
        if running(c) and "crash" in scope.faults:
            out.append(Action("crash", s))
        if c.status == MEMBER and _idle(c) and uniform and "topology_update" in scope.operations:
            out.append(Action("topology_update", s))
        if c.status == MEMBER and _idle(c) and "roll" in scope.operations:
            out.append(Action("roll", s))
        if (c.status == MEMBER and not c.shutdown and state.shutdown is None
                and "shutdown_request" in scope.operations):
            out.append(Action("shutdown_request", s))
        if c.status == MEMBER and _idle(c) and not c.redeployed and "redeploy" in scope.operations:
            out.append(Action("redeploy", s))
        if c.status == MEMBER and _idle(c) and "poll_timeout" in scope.operations:
            out.append(Action("poll_timeout", s))
        if (c.status == MEMBER and _idle(c) and not c.shutdown and state.shutdown is None
                and "shutdown_leave" in scope.operations):
            out.append(Action("shutdown_leave", s))
    topics = dict(state.topics)
    if "topic_change" in scope.operations and source(0) in topics:
        out.append(Action("topic_change", 0, 0))
        if can_add_partition(scope) and topics[source(0)] == scope.partitions[0]:
            out.append(Action("topic_change", 0, 1))
    return out


# ---- step ----

def step(scope: StreamsGroupScope, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    nxt, events = _step(scope, state, action)
    if state.classic_record is not None or isinstance(nxt.group, ClassicGroup) and "failover" in scope.operations:
        nxt = nxt._replace(classic_record=classic.written(state.classic_record, state.group, nxt.group))
    return nxt, events


def _step(scope: StreamsGroupScope, state: State, action: Action) -> tuple[State, tuple[Event, ...]]:
    k, s = action.kind, action.slot
    if state.uncommitted and (k == "handle" and state.clients[s].classic
                              or k in ("expire", "session_timeout", "rebalance_timeout")):
        state = state._replace(uncommitted=None)   # a later write: the earlier one counts as committed
    if k == "handle":
        return _handle(scope, state, s)
    if k in ("expire", "session_timeout", "rebalance_timeout"):
        return _expire(state, action)
    if k == "failover":
        return _failover(scope, state, action.arg)
    clients = list(state.clients)
    c = clients[s]
    if k == "send" and c.classic:
        r = classic.request(scope, s, c, index(scope))
        clients[s] = c._replace(request=r)
        fresh = add_slot(state.fresh, s) if classic.in_round(r) else state.fresh
        return state._replace(clients=tuple(clients), fresh=fresh), (Event("send", s, r.kind),)
    if k == "send":
        rules = switched(scope.profile, scope.switches)
        r = request(c, rules, scope.static)
        clients[s] = after_send(c, r, rules)
        return state._replace(clients=tuple(clients), fresh=add_slot(state.fresh, s)), (Event("send", s, f"epoch {r.epoch}"),)
    if k == "deliver":
        clients[s] = (classic.on_response(c, c.reply, index(scope)) if c.classic
                      else on_response(c, c.reply, switched(scope.profile, scope.switches)))
        nxt = state._replace(clients=tuple(clients))
        if state.uncommitted and state.uncommitted.slot == s:
            nxt = nxt._replace(uncommitted=None)   # its response was sent: the write was committed
        if has_slot(nxt.wedged, s) and (converged(nxt, s, scope) or clients[s].status != MEMBER):
            nxt = nxt._replace(wedged=drop_slot(nxt.wedged, s))
        if not c.classic or classic.in_round(c.reply):
            calm, beaten, fresh = _monitor(nxt, s, clients)
            nxt = nxt._replace(calm=calm, beaten=beaten, fresh=fresh)
        return nxt, (Event("deliver", s, clients[s].status),)
    nxt = _disturb(scope, state, clients, action)
    return nxt, (Event(k, s, ""),)


def _disturb(scope: StreamsGroupScope, state: State, clients: list[Client], action: Action) -> State:
    """Faults and operations: each resets the convergence monitor."""
    k, s = action.kind, action.slot
    c = clients[s]
    topics = dict(state.topics)
    if k == "restart":
        clients[s] = Client(status=JOINING, incarnation=c.incarnation + 1, epoch=0, owned=NO_TASKS,
                            topology_epoch=c.topology_epoch, caught=0, shutdown=False, request=None, reply=None,
                            redeployed=c.redeployed)
    elif k == "bounce":
        clients[s] = close(c, _rolling(state))
    elif k == "topology_update":
        clients[s] = close(c, c.topology_epoch + 1)
    elif k == "roll":
        clients[s] = close(c, c.topology_epoch)
    elif k == "redeploy":
        clients[s] = close(c, c.topology_epoch)._replace(redeployed=True)
    elif k == "poll_timeout":
        clients[s] = poll_timeout(c)
    elif k == "shutdown_leave":
        clients[s] = shutdown_on_leave(c)
    elif k == "crash":
        clients[s] = c._replace(status=DOWN, epoch=0, owned=NO_TASKS, caught=0, reply=None)
    elif k == "lose_response":
        clients[s] = c._replace(reply=None)
        return state._replace(clients=tuple(clients), budget=state.budget - 1, calm=0, beaten=0, fresh=0,
                              wedged=add_slot(state.wedged, s))
    elif k == "shutdown_request":
        clients[s] = c._replace(shutdown=True)
    elif k == "upgrade":
        clients[s] = classic.upgrade(c)
    elif k == "catch_up":
        clients[s] = c._replace(caught=c.owned[STANDBY] | c.owned[WARMUP])
    elif k == "create_topic":
        topics[source(0)] = scope.partitions[0]
    elif k == "topics_created":
        topics.update(dict(state.creating))
        state = state._replace(creating=())
    elif k == "topic_change" and action.arg == 0:
        del topics[source(0)]
    elif k == "topic_change":
        topics[source(0)] += 1
    budget = state.budget - (k in BUDGETED)
    return state._replace(clients=tuple(clients), topics=tuple(sorted(topics.items())), budget=budget,
                          calm=0, beaten=0, fresh=0)


def heartbeat_request(scope: StreamsGroupScope, slot: int, incarnation: int, r) -> StreamsGroupHeartbeat:
    """The StreamsGroupHeartbeatRequest a client's ``Request`` is on the wire."""
    base = dict(group_id=GROUP_ID, member_id=member_id(slot, incarnation), member_epoch=r.epoch,
                shutdown_application=r.shutdown)
    if scope.static:
        base.update(instance_id=instance_id(slot))
    idx = index(scope)
    if r.joining:
        base.update(process_id=f"p{process(scope, slot)}", rebalance_timeout_ms=1000,
                    topology=topology(scope, r.topology_epoch, r.redeployed), active_tasks=(), standby_tasks=(),
                    warmup_tasks=())
    elif r.epoch > 0:
        lists = {name: task_ids_of(idx, r.owned[i]) if r.sends_owned(i) else None
                 for i, name in enumerate(("active_tasks", "standby_tasks", "warmup_tasks"))}
        base.update(**lists)
        restoring = r.owned[STANDBY] | r.owned[WARMUP]
        if scope.warmups and restoring:
            tasks = [(i, t) for i, t in enumerate(idx) if restoring >> i & 1]
            base.update(task_offsets=tuple(TaskOffset(sub, part, r.caught >> i & 1) for i, (sub, part) in tasks),
                        task_end_offsets=tuple(TaskOffset(sub, part, 1) for i, (sub, part) in tasks))
    return StreamsGroupHeartbeat(**base)


def instance_id(slot: int) -> str:
    """A static client's ``group.instance.id``: one per slot, kept across incarnations."""
    return f"i{slot}"


def _monitor(state: State, slot: int, clients) -> tuple[int, int, int]:
    """A round ends once every running client has read the response to a heartbeat it
    sent in the round (``fresh``); a slow heartbeat sent earlier does not count (``epochs.rounds``)."""
    return response_read(state, slot, clients, running, True, K)


def _handle_classic(scope: StreamsGroupScope, state: State, s: int):
    def leader(g):
        return classic.assign(g, scope.profile, index(scope), topology(scope, 0), dict(state.topics), config(scope))
    return classic.handle_step(state, s, Cluster(state.topics), switched(scope.profile, scope.switches),
                               config(scope), leader)


# cached for the search: one heartbeat meets one group in many states (a pure function
# of hashable arguments, like the consumer's dispatch)
_heartbeat = lru_cache(maxsize=1 << 14)(heartbeat)


def _handle(scope: StreamsGroupScope, state: State, s: int):
    c = state.clients[s]
    if c.classic:
        return _handle_classic(scope, state, s)
    hb = heartbeat_request(scope, s, c.incarnation, c.request)
    cp = switched(scope.profile, scope.switches)
    if isinstance(state.group, Group):
        out = _heartbeat(state.group, hb, Cluster(state.topics), cp, config(scope), state.shutdown)
    else:   # a classic group or one with classic members (migration.py)
        out = streams_heartbeat(state.group, hb, Cluster(state.topics), cp, config(scope), index(scope))
    sent, creating = _create_topics(scope, state, out)
    resp = out.response
    tasks = None
    if resp.active_tasks is not None:
        idx = index(scope)
        tasks = (mask_of(idx, resp.active_tasks), mask_of(idx, resp.standby_tasks), mask_of(idx, resp.warmup_tasks))
    reply = Reply(ERROR_NAMES[resp.error_code] if resp.error_code else "", resp.member_epoch, tasks,
                  tuple(x.status_code for x in resp.status or ()))
    # the response to a leave heartbeat reaches only a client that rejoined meanwhile
    # (``poll_timeout``); a client that closed is gone
    waiting = running(c) and (c.request.epoch >= 0 or c.status == JOINING)
    clients = list(state.clients)
    clients[s] = c._replace(request=None, reply=reply if waiting else None)
    if isinstance(state.group, ClassicGroup) and not isinstance(out.group, ClassicGroup):
        clients = classic.answer(clients, classic.conversion_replies(state.group))
    before, after = view(scope, state.group), view(scope, out.group)
    ready = group_state(before) == NOT_READY and group_state(after) not in (NOT_READY, EMPTY, DEAD)
    marks = state.marks | (BECAME_READY if ready else 0) | (WARMUP_PROMOTED if _promoted(before, after) else 0)
    marks |= STATIC_KEPT if _static_kept(state.group, out) else 0
    nxt = state._replace(marks=marks, group=out.group, shutdown=out.shutdown_member_id, creating=creating,
                         clients=tuple(clients))
    if "failover" in scope.operations:
        # (not after a conversion of a classic group: a classic group's reload is not modelled)
        lost = waiting and out.records and not isinstance(state.group, ClassicGroup)
        uncommitted = Uncommitted(committed=state.group, created=sent, slot=s, request=c.request) if lost else None
        nxt = nxt._replace(uncommitted=uncommitted)
    if (c.request.epoch < 0 and c.request.shutdown) or (
            c.status == STOPPED and c.request.epoch < 0 and "failover" in scope.operations):
        # a leave heartbeat asking for the shutdown (``shutdown_leave``), or a stopped
        # client's leave, late, with the SHUTDOWN_APPLICATION requester lost in a failover
        # the others run on: the membership changes, a disturbance like an expiry
        nxt = nxt._replace(calm=0, beaten=0, fresh=0)
    note = f"epoch {c.request.epoch} -> {reply.error or 'epoch ' + str(reply.epoch)}"
    return nxt, (Event("handle", s, note, HandledHeartbeat(request=hb, response=resp, records=out.records,
                                                           events=out.events, created=sent)),)


def _create_topics(scope: StreamsGroupScope, state: State, out) -> tuple[tuple[str, ...], tuple]:
    """The broker's side of "internal topics to create" (KafkaApis, AutoTopicCreationManager):
    a CreateTopics request for the missing internal topics, completed later by
    ``topics_created``. The KIP allows "only one such request in-flight at a time"; a
    profile without ``one_creation_in_flight`` (Kafka 4.1) sends one on every heartbeat.
    Returns the topics sent and the creations in flight afterwards."""
    wanted = next((value for kind, value in out.events if kind == "internal_topics_to_create"), ())
    if not wanted:
        return (), state.creating
    busy = dict(state.creating)
    once = switched(scope.profile, scope.switches).streams.one_creation_in_flight
    sent = tuple(n for n in wanted if not (once and n in busy))
    made = configure(view(scope, out.group).topology, dict(state.topics), scope.profile).internal_partitions
    busy.update({name: made[name] for name in sent})
    return sent, tuple(sorted(busy.items()))


def _promoted(before, after) -> bool:
    """A new target assignment turned some member's warm-up task into its active task (the
    KIP: a caught-up warm-up "must be turned into an active task or a standby task, or be
    unassigned"). Reconciliation then hands it over in two responses: the warm-up role is
    revoked first, the active role granted once that is acknowledged."""
    if before.dead or after.dead or before.target_assignment == after.target_assignment:
        return False
    warm = {m: tasks[WARMUP] for m, tasks in before.target_assignment}
    return any(warm.get(m, 0) & tasks[ACTIVE] for m, tasks in after.target_assignment)


def _static_kept(before, out) -> bool:
    """A joining static member replaced the member of its instance that left with -2, and
    holds its tasks with no group-epoch bump (KIP: MemberEpoch "-2 to indicate that the
    static member will rejoin")."""
    replaced = [e[1] for e in out.events if e[0] == "static_member_replaced"]
    if not replaced or out.group.group_epoch != before.group_epoch:
        return False
    mid = out.response.member_id
    return any(before.member(replaced[0]).assigned) and out.group.member(mid).assigned == before.member(replaced[0]).assigned


def _expire(state: State, action: Action):
    s = action.slot
    inc = action.arg if action.kind != "session_timeout" else state.clients[s].incarnation
    mid = member_id(s, inc)
    if action.kind == "rebalance_timeout":
        out = rebalance_timeout(state.group, mid, state.group.member(mid).epoch, state.shutdown)
    elif isinstance(state.group, ClassicGroup):
        group, responses = classic.expire(state.group, mid)
        clients = classic.answer(list(state.clients), responses)
        nxt = state._replace(group=group, clients=tuple(clients), calm=0, beaten=0, fresh=0)
        return nxt, (Event(action.kind, s, mid),)
    elif isinstance(state.group, MigratingGroup):
        out = streams_session_timeout(state.group, mid)
    else:
        out = session_timeout(state.group, mid, state.shutdown)
    nxt = state._replace(group=out.group, shutdown=out.shutdown_member_id, calm=0, beaten=0, fresh=0,
                         budget=state.budget - (action.kind in BUDGETED))
    return nxt, (Event(action.kind, s, member_id(s, inc),
                        Handled(request=None, response=None, records=out.records, events=out.events)),)


def _failover(scope: StreamsGroupScope, state: State, lost: int):
    """A new coordinator loads the log (``failover.py``); ``lost`` 1: without the last
    heartbeat's uncommitted write."""
    if isinstance(state.group, ClassicGroup):
        nxt = classic.reload(state)._replace(budget=state.budget - 1, calm=0, beaten=0, fresh=0)
        return nxt, (Event("failover", 0, "classic group loaded from its last record", ()),)
    prefix = classic_commits(GROUP_ID, source(0)) if scope.classic else ()
    cp = switched(scope.profile, scope.switches)
    nxt, note = failover_step(state, prefix, GROUP_ID, index(scope), cp.replay_rejects_simple_classic_group, lost)
    return nxt, (Event("failover", 0, note, ()),)


# ---- symmetry, bounds, settling ----

def _member_key(m) -> tuple:
    return (m.topology_epoch, m.state, m.epoch, m.previous_epoch, m.assigned, m.pending_revocation,
            m.revocation_epoch)


def _first(pair):
    return pair[0]


# a slot's repr, cached: few distinct slots recur in many states
_shown = lru_cache(maxsize=1 << 16)(repr)


def canonical(scope: StreamsGroupScope, state: State):
    """Symmetry reduction: the members of one process are interchangeable, and so are
    processes. The key keeps the group's own fields and, per process, the sorted
    signatures of its slots (client, its coordinator members with their targets, whether
    it requested the shutdown, whether it beat this round); ids are dropped. With classic
    members no reduction (classic slots differ from the others)."""
    if scope.classic:
        return state
    g = state.group
    per_slot: dict[int, list] = {}
    for m in () if g.dead else g.members:
        slot, inc = slot_of(m.member_id)
        per_slot.setdefault(slot, []).append((inc, _member_key(m), g.target_of(m.member_id),
                                              state.shutdown == m.member_id))
    requester = slot_of(state.shutdown)[0] if state.shutdown else -1
    slots = [(c, tuple(sorted(per_slot.get(s, ()))), s == requester, has_slot(state.beaten, s), has_slot(state.fresh, s))
             for s, c in enumerate(state.clients)]
    # slots sorted by their repr (None and tuples do not compare), computed once per slot;
    # processes by their slots' reprs
    n = scope.members_per_process
    shown = [(_shown(x), x) for x in slots]
    procs = sorted((sorted(shown[p * n:(p + 1) * n], key=_first) for p in range(scope.processes)),
                   key=lambda proc: [r for r, _ in proc])
    procs = [tuple(x for _, x in proc) for proc in procs]
    head = (g.group_epoch, g.target_assignment_epoch, g.topology, g.validated_topology_epoch,
            g.partition_metadata, g.assignment_configs, g.dead)
    return (head, tuple(procs), state.topics, state.creating, state.budget, state.calm, state.marks,
            bool(state.wedged), state.uncommitted)


def within_bounds(scope: StreamsGroupScope, state: State) -> bool:
    """Below ``max_epoch`` (a classic group: its generation)."""
    g = state.group
    if isinstance(g, ClassicGroup):
        return g.generation < scope.max_epoch
    return streams_of(g).group_epoch < scope.max_epoch


def converged(state: State, slot: int, scope: StreamsGroupScope | None = None) -> bool:
    """A MEMBER client at the group's target epoch, running exactly its target (judged
    after it reads the response it has in flight, if any)."""
    c = state.clients[slot]
    if c.classic:
        return classic.converged(state.group, slot, c, index(scope) if scope else ())
    if c.reply is not None:
        c = on_response(c, c.reply)
    if isinstance(state.group, ClassicGroup):
        return False
    g = streams_of(state.group)
    m = None if g.dead else g.member(member_id(slot, c.incarnation))
    return (c.status == MEMBER and m is not None and c.epoch == g.target_assignment_epoch
            and m.is_reconciled_to(g.target_assignment_epoch) and c.owned == g.target_of(m.member_id))


def settled(scope: StreamsGroupScope, state: State) -> bool:
    """Nothing left to do: no message in flight, every client either converged or out for
    good (stopped, failed), no stale session, the topics in place, the group STABLE (or
    EMPTY with nobody left)."""
    if any(a.kind not in ("send",) for a in actions(scope, state) if a.kind in PROGRESS):
        return False
    if any(not _idle(c) for c in state.clients):
        return False
    return converged_group(scope, state)


def converged_group(scope: StreamsGroupScope, state: State) -> bool:
    """``settled`` but for what is in flight: every client converged or out for good, the
    group STABLE (or EMPTY with nobody left). The goal of the checker's
    settles_under_fairness: heartbeats go on forever."""
    live = [s for s, c in enumerate(state.clients) if c.status not in (STOPPED, FAILED)]
    if not live:
        return True
    if isinstance(state.group, ClassicGroup):     # a classic group: Stable (classic.converged says so)
        return all(converged(state, s, scope) for s in live)
    return group_state(view(scope, state.group)) == STABLE and all(converged(state, s, scope) for s in live)


def is_terminal_ok(scope: StreamsGroupScope, state: State) -> bool:
    return settled(scope, state) or all(c.status in (STOPPED, FAILED) for c in state.clients)


__all__ = ["ACTION_KINDS", "BUDGETED", "EMPTY", "FAILED", "K", "LEAVING", "PROGRESS", "actions", "canonical",
           "converged", "converged_group", "heartbeat_request", "init_states", "is_terminal_ok", "settled", "step", "topology",
           "within_bounds"]

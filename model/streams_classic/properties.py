"""What must always hold for Kafka Streams on the classic protocol (KIP-268, KIP-429).

Each claim's docstring quotes the sentence it enforces and returns None when it holds,
or a message naming the broken clause. Words used below:

* *live* thread: its instance runs and the thread has not died.
* *common version*: the highest version every live thread can use: the lowest of the
  versions their configurations start with (``upgrade.from`` below 2.0 caps it).
* *plan complete*: every instance that is not gone runs, on the plan's last configuration.
"""
from __future__ import annotations

from ..core import Property
from ..partitions import bits
from . import releases as rel
from .scope import StreamsScope
from .state import ABSENT, FAILED, GONE, JOINING, UP, Action, State, task_names
from .step import LEADER_FAILURE, config, first_version, live, quiescent

REBALANCES_ALLOWED = 3


def _name(scope: StreamsScope, slot: int) -> str:
    i, t = divmod(slot, scope.threads)
    return f"S{i + 1}" + (f"-{t + 1}" if scope.threads > 1 else "")


def leader_never_fails(scope: StreamsScope, state: State) -> str | None:
    """KIP-268: "In the current implementation, the group leader fails if it receives a
    subscription with a higher version number than it understands. We propose to change
    this: instead of failing, the leader will send an empty assignment back encoding its
    supported version." Claim: the leader's assign() never throws."""
    for s, m in enumerate(state.members):
        if m.failure.startswith(LEADER_FAILURE):
            return f"leader {_name(scope, s)} failed: {m.failure[len(LEADER_FAILURE):]}"
    return None


def assignment_readable(scope: StreamsScope, state: State) -> str | None:
    """KIP-268: "As long as the leader (before or after upgrade) receives at least one
    old version X Subscription it always sends version Assignment X back." Claim: no
    thread is handed an assignment encoded in a version above what its release supports."""
    for s, m in enumerate(state.members):
        if m.inbox is not None:
            latest = rel.release(config(scope, state, s).release).latest
            if m.inbox.version > latest:
                return f"{_name(scope, s)} (supports v{latest}) got a v{m.inbox.version} assignment"
    return None


def used_version_supported(scope: StreamsScope, state: State) -> str | None:
    """KIP-268: "If an upgraded instance receives an Assignment it always checks the
    leaders supported-version and update its downgraded "used-version" if possible."
    Claim: no live thread's used version exceeds what its release supports (KAFKA-8649)."""
    for s, m in enumerate(state.members):
        if live(m):
            latest = rel.release(config(scope, state, s).release).latest
            if m.used > latest:
                return f"{_name(scope, s)} uses v{m.used} but supports only v{latest}"
    return None


def no_thread_dies(scope: StreamsScope, state: State) -> str | None:
    """KIP-268: "Thus, a single rolling bounce without any config settings is sufficient
    as the leader allows to probe its supported version instead of failing." Claim: no
    stream thread dies from an assignment (ASSIGNMENT_ERROR, TaskAssignmentException, an
    unreadable AssignmentInfo)."""
    for s, m in enumerate(state.members):
        if m.status == FAILED and not m.failure.startswith(LEADER_FAILURE):
            return f"{_name(scope, s)} died: {m.failure}"
    return None


def revoke_before_reassign(scope: StreamsScope, state: State) -> str | None:
    """KIP-429: "any topic partition could not be re-assigned before it is revoked"; its
    upgrade path must avoid "having some partitions to be owned by more than one
    member". Claim: no task runs as active on two live threads at once (for
    COOPERATIVE threads, across rounds)."""
    seen = 0
    for s, m in enumerate(state.members):
        if seen & m.active:
            both = seen & m.active
            others = [_name(scope, o) for o, mo in enumerate(state.members[:s]) if mo.active & both]
            return f"{task_names(both)} active on {others[0]} and {_name(scope, s)}"
        seen |= m.active
    return None


def _round(state: State, action: Action):
    return [(s, m.inbox) for s, m in enumerate(state.members) if m.inbox is not None
            and m.inbox.generation == state.group.generation] if action.kind == "assign" else []


def no_task_active_twice(scope: StreamsScope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-429: "we need to guarantee each topic partition is assigned with exactly one
    consumer at any time". Claim: in one generation the leader gives each task to at
    most one thread as active."""
    seen = 0
    for s, a in _round(nxt, action):
        if seen & a.active:
            return f"generation {nxt.group.generation} gives {task_names(seen & a.active)} twice"
        seen |= a.active
    return None


def assignment_error_reaches_everyone(scope: StreamsScope, prev: State, action: Action, nxt: State,
                                      events) -> str | None:
    """Kafka 2.7+ (StreamsPartitionAssignor#assign, a7ec005): a future subscription next
    to a v1/v2 one is a TaskAssignmentException, and every member gets ASSIGNMENT_ERROR
    (errorAssignment walks every client, the FUTURE_ID one included). KIP-268 asks that
    the leader never fail silently on one member. Claim: an assignment error in a
    generation reaches every member of it."""
    got = _round(nxt, action)
    errors = [s for s, a in got if a.error]
    if errors and len(errors) != len(got):
        spared = [_name(scope, s) for s, a in got if not a.error]
        return f"ASSIGNMENT_ERROR reached {len(errors)} of {len(got)} members; not {', '.join(spared)}"
    return None


def standby_not_with_active(scope: StreamsScope, prev: State, action: Action, nxt: State,
                            events) -> str | None:
    """KIP-429 (Assignment Algorithm): "Assign standby tasks: [...] To instances
    without matching active tasks". Claim: no instance gets a task as standby or learner
    in the generation it runs that task as active."""
    per: dict[int, list[int]] = {}
    for s, a in _round(nxt, action):
        acc = per.setdefault(s // scope.threads, [0, 0])
        acc[0] |= a.active
        acc[1] |= a.standby | a.learning
    for inst, (active, replica) in sorted(per.items()):
        if active & replica:
            return f"S{inst + 1} gets {task_names(active & replica)} as active and as standby/learner"
    return None


def warmup_active_only_when_caught_up(scope: StreamsScope, prev: State, action: Action, nxt: State,
                                      events) -> str | None:
    """KIP-429: "if given task is currently active, reassignment must happen only to
    workers who are declared ready to serve this task"; a learner "transits to active
    when the restoration is complete". Claim (learner assignor): a task active on one
    instance of the round moves to another only if that one reported it caught up."""
    if action.kind != "assign" or scope.task_assignor != "learner":
        return None
    if not rel.release(config(scope, prev, action.slot).release).cooperative:
        return None
    current: dict[int, int] = {}     # instance -> tasks it ran (prevTasks / owned)
    ready: dict[int, int] = {}
    for s in prev.group.joined:
        sub = prev.members[s].sub
        i = s // scope.threads
        current[i] = current.get(i, 0) | sub.prev | sub.owned
        ready[i] = ready.get(i, 0) | sub.ready
    for s, a in _round(nxt, action):
        i = s // scope.threads
        for t in bits(a.active & ~current.get(i, 0)):
            holders = [j for j, mask in current.items() if j != i and mask >> t & 1]
            if holders and not ready.get(i, 0) >> t & 1:
                return (f"{task_names(1 << t)} moves from S{holders[0] + 1} to S{i + 1}, "
                        f"which has not reported it caught up")
    return None


def _plan_complete(scope: StreamsScope, state: State) -> bool:
    last = len(scope.plan) - 1
    return all(i.status in (ABSENT, GONE) or (i.status == UP and i.stage == last) for i in state.instances)


def _common(scope: StreamsScope, state: State) -> int:
    return min((first_version(scope, state.instances[s // scope.threads].stage)
                for s, m in enumerate(state.members) if live(m)), default=0)


def _settled_upgrade(scope: StreamsScope, state: State) -> bool:
    return (_plan_complete(scope, state) and not any(m.status == FAILED for m in state.members)
            and any(live(m) for m in state.members))


def upgrade_completes(scope: StreamsScope, state: State) -> str | None:
    """KIP-268: "after the leader is upgrade and understand the new metadata version, all
    other instances can switch back to the highest supported metadata version." Claim
    (liveness at quiescence): once the plan is complete and the group has settled,
    every thread uses the common version and the last assignment was encoded in it."""
    if not _settled_upgrade(scope, state) or not quiescent(scope, state):
        return None
    common = _common(scope, state)
    for s, m in enumerate(state.members):
        if live(m) and m.used != common:
            return f"settled with {_name(scope, s)} on v{m.used}, though every thread can use v{common}"
    if state.group.version != common:
        return f"settled on a v{state.group.version} assignment, though every thread can use v{common}"
    return None


def upgrade_within_one_extra_rebalance(scope: StreamsScope, state: State) -> str | None:
    """KIP-268: "Note, that if the leader is bounced last, the metadata upgrade only
    finishes after one more rebalance." Claim (bounded liveness): once the plan is
    complete, the rebalance the last started instance joins plus at most one more leave
    the group's assignment on the common version."""
    if state.since_start < 2 or not _settled_upgrade(scope, state):
        return None
    common = _common(scope, state)
    if state.group.version != common:
        return (f"{state.since_start} rebalances after the last start the assignment is still "
                f"v{state.group.version}, not v{common}")
    return None


def rebalances_bounded(scope: StreamsScope, state: State) -> str | None:
    """KIP-268: the leader "should be responsible to trigger this final rebalance" - one
    rebalance more, not a loop; KIP-429: a revocation triggers one follow-up rebalance.
    Claim (bounded liveness): with no bounce, fault, operation or caught-up warm-up,
    at most 3 rebalances follow one another (a probe, the downgraded rejoin, a follow-up)."""
    if state.calm > REBALANCES_ALLOWED:
        return f"{state.calm} rebalances in a row with nothing happening in between"
    return None


def settles_fully_assigned(scope: StreamsScope, state: State) -> str | None:
    """KIP-429 (Streams): "we need to guarantee each topic partition is assigned with exactly
    one consumer at any time", and a withheld task reaches its new owner in "the second
    rebalance"; KIP-429: "Assign standby tasks: [...] To instances without matching active
    tasks". Claims (liveness at quiescence): once the group has settled with every thread
    alive, each task runs as active on exactly one live thread, and with the sticky
    assignor each task has num.standby.replicas standbys (as many as there are other
    live instances) on instances not running it."""
    if not quiescent(scope, state) or any(m.status == FAILED for m in state.members):
        return None
    alive = [(s, m) for s, m in enumerate(state.members) if live(m)]
    if not alive:
        return None
    seen = 0
    for s, m in alive:
        if seen & m.active:
            return f"settled with {task_names(seen & m.active)} active twice"
        seen |= m.active
    if seen != scope.all_tasks:
        return f"settled with {task_names(scope.all_tasks & ~seen)} active nowhere"
    if scope.task_assignor != "sticky" or not scope.standbys:
        return None
    instances = {s // scope.threads for s, _ in alive}
    want = min(scope.standbys, len(instances) - 1)
    for t in bits(scope.all_tasks):
        holders = {s // scope.threads for s, m in alive if m.standby >> t & 1}
        runner = {s // scope.threads for s, m in alive if m.active >> t & 1}
        if len(holders - runner) != want or holders & runner:
            return f"settled with {task_names(1 << t)} on {len(holders)} standby(s), want {want} off its active"
    return None


def settled_balanced(scope: StreamsScope, state: State) -> str | None:
    """Kafka's StickyTaskAssignor#assignActive: "first try and re-assign existing active
    tasks to clients that previously had the same active task", but only while
    ``client.hasUnfulfilledQuota(tasksPerThread)``; the rest go to the client with the
    most available capacity (``findClient``, ``hasMoreAvailableCapacityThan``). Stickiness
    never outweighs balance. Claim (liveness at quiescence): once the group has settled
    with every thread alive under the sticky assignor, the live instances' active task
    counts differ by at most one (every instance here runs the same number of threads)."""
    if scope.task_assignor != "sticky" or not quiescent(scope, state) \
            or any(m.status == FAILED for m in state.members):
        return None
    load: dict[int, int] = {}
    for s, m in enumerate(state.members):
        if live(m):
            load[s // scope.threads] = load.get(s // scope.threads, 0) + bin(m.active).count("1")
    if len(load) > 1 and max(load.values()) - min(load.values()) > 1:
        shown = ", ".join(f"S{i + 1}: {n}" for i, n in sorted(load.items()))
        return f"settled with active tasks per instance {shown}: not balanced"
    return None


def scale_down_completes(scope: StreamsScope, state: State) -> str | None:
    """KIP-429 (scale down): "During rebalance assignment, leader will perform the learner
    assignment among members without intention of leaving. And the leaving member will
    shut down itself once received the instruction to revoke all its active tasks."
    Claim (liveness at quiescence): once the group has settled with some running instance
    not leaving (one to take the tasks over), no instance told it is leaving still runs:
    each has been given no task and shut down."""
    if not quiescent(scope, state):
        return None
    if not any(inst.status == UP and not inst.leaving for inst in state.instances):
        return None
    for i, inst in enumerate(state.instances):
        if inst.leaving and inst.status == UP:
            return f"settled with S{i + 1} told it is leaving, yet still running"
    return None


def caught_up_warmup_rejoins(scope: StreamsScope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-429's Streams design: "When the restoration of learner task is
    complete, the stream instance will initiate a new JoinGroupRequest to call out another
    rebalance to do the task transfer" ("re-attempting to join the group to indicate that
    it is 'ready'"). Claim: a thread whose warm-up tasks are caught up in this step is
    then due to send JoinGroup."""
    if action.kind != "caught_up":
        return None
    m = nxt.members[action.slot]
    if m.status != JOINING:
        return f"{_name(scope, action.slot)} caught up on {task_names(m.ready)} without rejoining (status {m.status})"
    return None


def some_thread_downgraded(scope: StreamsScope, state: State) -> str | None:
    """Witness: version probing happened - a live thread uses a version below what its
    configuration starts with."""
    for s, m in enumerate(state.members):
        if live(m) and m.used < first_version(scope, state.instances[s // scope.threads].stage):
            return f"{_name(scope, s)} downgraded to v{m.used}"
    return None


def some_warmup_caught_up(scope: StreamsScope, state: State) -> str | None:
    """Witness: a warm-up (learner) task reported caught up, so an active task can move."""
    for s, m in enumerate(state.members):
        if live(m) and m.ready:
            return f"{_name(scope, s)} restored {task_names(m.ready)}"
    return None


def upgrade_finished(scope: StreamsScope, state: State) -> str | None:
    """Witness: the plan completed and the group settled on the common version."""
    if (_settled_upgrade(scope, state) and quiescent(scope, state)
            and upgrade_completes(scope, state) is None):
        return f"settled on v{state.group.version}"
    return None


PROPERTIES = (
    Property("leader_never_fails", "always", leader_never_fails),
    Property("assignment_readable", "always", assignment_readable),
    Property("used_version_supported", "always", used_version_supported),
    Property("assignment_error_reaches_everyone", "always", assignment_error_reaches_everyone, on="step"),
    Property("no_thread_dies", "always", no_thread_dies),
    Property("no_task_active_twice", "always", no_task_active_twice, on="step"),
    Property("revoke_before_reassign", "always", revoke_before_reassign),
    Property("warmup_active_only_when_caught_up", "always", warmup_active_only_when_caught_up, on="step"),
    Property("standby_not_with_active", "always", standby_not_with_active, on="step"),
    Property("caught_up_warmup_rejoins", "always", caught_up_warmup_rejoins, on="step"),
    Property("upgrade_completes", "within", upgrade_completes),
    Property("upgrade_within_one_extra_rebalance", "within", upgrade_within_one_extra_rebalance),
    Property("rebalances_bounded", "within", rebalances_bounded),
    Property("settles_fully_assigned", "within", settles_fully_assigned),
    Property("settled_balanced", "within", settled_balanced),
    Property("scale_down_completes", "within", scale_down_completes),
    Property("some_thread_downgraded", "sometimes", some_thread_downgraded),
    Property("some_warmup_caught_up", "sometimes", some_warmup_caught_up),
    Property("upgrade_finished", "sometimes", upgrade_finished),
)

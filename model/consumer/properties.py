"""What must always hold for the classic consumer group (KIP-429, KIP-792).

Each claim's docstring quotes the sentence it enforces. A claim returns None when it
holds, or a message naming the broken clause. Words used below:

* *live*: the consumer process runs and is not paused.
* *member*: its member id is in the coordinator's group.
* *current*: a member whose consumer holds the group's generation. The coordinator
  accepts an OffsetCommit only from a current member of a Stable group, so a
  consumer that is not current is *fenced*: its commits are rejected.
"""
from __future__ import annotations

from .. import delivery
from ..assignors import COOPERATIVE, rebalance_protocol
from ..core import Property
from ..partitions import count, existing, name, show
from .coordinator_claims import coordinator_answers, generation_per_round, leave_group_on_close, rebalance_on_change_only
from .listener_claims import (
    callbacks_before_join, callbacks_consistent, callbacks_on_leave, fencing_resets_generation, lost_only_when_fenced,
    heartbeat_loss_keeps_membership, rebalance_in_progress_rejoins,
)
from .scope import ConsumerScope
from .state import ASSIGNED, COMPLETING, DOWN, NONE, STABLE, State


def _members(state: State) -> set[int]:
    return {m.member_id for m in state.group.members}


def _current(state: State, slot: int) -> bool:
    c = state.consumers[slot]
    return c.status != DOWN and c.member_id in _members(state) and c.generation == state.group.generation


def _any_overlap(state: State) -> bool:
    """Cheap pre-check: do any two consumers believe they own a common partition?"""
    seen = 0
    for c in state.consumers:
        if seen & c.owned:
            return True
        seen |= c.owned
    return False


def _overlap(scope: ConsumerScope, state: State, slots: list[int]) -> str | None:
    seen: dict[int, int] = {}
    for s in slots:
        owned = state.consumers[s].owned
        for other, mask in seen.items():
            both = owned & mask
            if both:
                return f"C{other + 1} and C{s + 1} both own {show(both, scope.stride)}"
        seen[s] = owned
    return None


def no_double_ownership(scope: ConsumerScope, state: State) -> str | None:
    """KIP-429: "in order to ensure safe resource management and clear ownership, the
    assignor must make sure a partition is revoked by its previous owner before it can
    be assigned to a new one." Claim: no two live, current members own the same
    partition. A paused consumer may still believe it owns partitions until it is told
    otherwise; ``fenced_commits_rejected`` states what protects the group from it."""
    if not _any_overlap(state):
        return None
    slots = [s for s, c in enumerate(state.consumers) if not c.paused and _current(state, s)]
    return _overlap(scope, state, slots)


def fenced_commits_rejected(scope: ConsumerScope, state: State) -> str | None:
    """KIP-429: "when consumer's being kicked out of the group, since it no longer owns
    the partitions the `commit` call would doom to fail." Claim: of any two consumers
    (paused zombies included) that believe they own the same partition, at most one
    could commit it: a Stable group's coordinator accepts commits only from a current
    member, so the other one's stale generation gets it rejected."""
    if state.group.status != STABLE or not _any_overlap(state):
        return None
    slots = [s for s, c in enumerate(state.consumers) if c.owned and _current(state, s)]
    found = _overlap(scope, state, slots)
    return None if found is None else found + " and both would have commits accepted"


def revoke_before_reassign(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """KIP-429: "The assignor should not reassign any owned partitions immediately, but
    instead may indicate consumers the need for partition revocation so that the revoked
    partitions can be reassigned to other consumers in the next rebalance event."
    Claim: when onPartitionsAssigned hands a current member a partition, no other
    consumer that is still a member of the group (paused or not) owns it. (A zombie
    that applies a stale generation's assignment is not current: its commits are
    rejected, see ``fenced_commits_rejected``.)"""
    if not any(e.kind == "assigned" and e.partitions for e in events):
        return None
    members = _members(nxt)
    for e in events:
        if e.kind != "assigned" or not e.partitions or not _current(nxt, e.slot):
            continue
        for s, c in enumerate(nxt.consumers):
            if s != e.slot and c.status != DOWN and c.member_id in members and c.owned & e.partitions:
                return (f"C{e.slot + 1} was assigned {show(c.owned & e.partitions, scope.stride)} "
                        f"still owned by C{s + 1} (m{c.member_id})")
    return None


def selected_protocol_everywhere(scope: ConsumerScope, state: State) -> str | None:
    """KIP-429: "Only consider protocols that are supported by all the assignors."
    Claim: once the coordinator has selected a protocol, every member lists it, and every
    consumer holding the current generation is configured with it."""
    group = state.group
    if group.status not in (COMPLETING, STABLE):
        return None
    for m in group.members:
        if group.protocol not in m.protocols:
            return f"m{m.member_id} does not support the selected protocol {group.protocol!r}"
    for s, c in enumerate(state.consumers):
        if c.status == ASSIGNED and _current(state, s) and group.protocol not in scope.plan[c.config].assignors:
            return f"C{s + 1} runs without the selected assignor {group.protocol!r}"
    return None


def _current_group(state: State, on_the_wire) -> bool:
    """Stable, every live consumer a current, synced, unpaused member, and ``on_the_wire(c)``
    for each: what ``quiescent`` and ``converged`` share."""
    group = state.group
    if group.status != STABLE:
        return False
    live = [c for c in state.consumers if c.status != DOWN]
    if not live or len(live) != len(group.members):
        return False
    members = _members(state)
    return all(c.status == ASSIGNED and not c.paused and c.member_id in members
               and c.generation == group.generation and c.metadata == state.metadata and on_the_wire(c)
               for c in live)


def quiescent(scope: ConsumerScope, state: State) -> bool:
    """Nothing left to do: Stable, every live consumer current, synced, idle on the wire."""
    return _current_group(state, lambda c: not c.awaiting and not c.outbox and not c.inbox)


def converged(scope: ConsumerScope, state: State) -> bool:
    """``quiescent`` but for heartbeat traffic: Stable, every live consumer current and
    synced, nothing on the wire but heartbeats and their error-free responses."""
    return _current_group(state, lambda c: c.awaiting in ("", "Heartbeat")
                          and all(r.kind == "Heartbeat" for r in c.outbox)
                          and all(r.kind == "HeartbeatResponse" and r.error == NONE for r in c.inbox))


def rebalances_allowed(scope: ConsumerScope, state: State) -> int:
    """1 rebalance for an EAGER group, 2 once any consumer is COOPERATIVE (revoke, then assign)."""
    coop = any(c.status != DOWN and rebalance_protocol(scope.plan[c.config].assignors) == COOPERATIVE
               for c in state.consumers)
    return 2 if coop else 1


def converges_within_k(scope: ConsumerScope, state: State) -> str | None:
    """KIP-429: "any time a partition has to be revoked it will trigger a follow up
    rebalance" - one follow-up, no more. Claim (bounded liveness): with no fault, no
    operation and no membership change, the leader computes at most 1 assignment
    (EAGER) or 2 (COOPERATIVE) before the group settles."""
    if state.calm <= 1:
        return None
    k = rebalances_allowed(scope, state)
    if state.calm > k:
        return f"{state.calm} assignments since the last disturbance; at most {k} allowed"
    return None


def settles_fully_owned(scope: ConsumerScope, state: State) -> str | None:
    """KIP-429: "For ready-to-migrate-partitions, it is safe to move them to the new member
    immediately" and revoked ones are reassigned "in the second rebalance". Claim: when the
    group has settled, every existing partition of a subscribed topic has exactly one
    owner, and nobody owns a partition outside its subscription."""
    if not quiescent(scope, state):
        return None
    wanted = 0
    seen = 0
    for s, c in enumerate(state.consumers):
        if c.status == DOWN:
            continue
        mine = existing(state.partitions, scope.stride, c.subscribed)
        wanted |= mine
        if c.owned & ~mine:
            return f"C{s + 1} owns {show(c.owned & ~mine, scope.stride)} outside its subscription"
        if seen & c.owned:
            return f"{show(seen & c.owned, scope.stride)} owned twice after settling"
        seen |= c.owned
    if wanted & ~seen:
        return f"{show(wanted & ~seen, scope.stride)} unowned after settling"
    return None


def sticky_balanced(scope: ConsumerScope, state: State) -> str | None:
    """KIP-429: "the assignor should try and be as "sticky" as possible" - and the sticky
    assignors keep the assignment balanced. Claim: once settled under sticky or
    cooperative-sticky with equal subscriptions, owned counts differ by at most 1."""
    if state.group.protocol not in ("sticky", "cooperative-sticky") or not quiescent(scope, state):
        return None
    live = [c for c in state.consumers if c.status != DOWN]
    if len({c.subscribed for c in live}) != 1:
        return None
    counts = [count(c.owned) for c in live]
    if max(counts) - min(counts) > 1:
        return f"owned counts {counts} differ by more than 1"
    return None


def sometimes_settled(scope: ConsumerScope, state: State) -> str | None:
    """Witness: the group settles with every partition owned."""
    if quiescent(scope, state):
        return "the group settled"
    return None


def sometimes_zombie(scope: ConsumerScope, state: State) -> str | None:
    """Witness: a paused consumer still believes it owns partitions after the group
    expelled it - the zombie the fencing exists for."""
    members = _members(state)
    for s, c in enumerate(state.consumers):
        if c.paused and c.owned and c.member_id not in members:
            return f"C{s + 1} is a zombie owning {show(c.owned, scope.stride)}"
    return None


# ---------------------------------------------------------------- the record claims (issue 30)

def _holders(state: State) -> tuple[delivery.Holder, ...]:
    """Each consumer as the record claims see it: live while its process runs (paused too)."""
    return tuple(delivery.Holder(member=c.member_id, live=c.status != DOWN, app=c.app) for c in state.consumers)


def _shared(claim):
    """``check.__doc__ = claim.__doc__``: the wrapper quotes what the shared claim quotes."""
    def wrap(check):
        check.__doc__ = claim.__doc__
        return check
    return wrap


@_shared(delivery.no_record_lost)
def no_record_lost(scope: ConsumerScope, state: State) -> str | None:
    if state.logs is None:
        return None
    return delivery.no_record_lost(state.logs, _holders(state), scope.stride)


@_shared(delivery.no_duplicate_without_failure)
def no_duplicate_without_failure(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    if nxt.logs is None or action.kind != "process" or scope.commit_policy == delivery.NONE:
        return None
    if prev.group.member(prev.consumers[action.slot].member_id) is None:
        return None     # a zombie (no longer a member) processes: a fault's doing (delivery_steps.zombie)
    return delivery.no_duplicate_without_failure(prev.logs, _holders(prev), _holders(nxt), scope.stride)


@_shared(delivery.commits_fenced_after_handover)
def commits_fenced_after_handover(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    if nxt.logs is None:
        return None
    answered = [(e.commit, "" if e.note == NONE else e.note) for e in events if e.kind == "offset_commit"]
    return delivery.commits_fenced_after_handover(prev.logs, answered, scope.stride) if answered else None


@_shared(delivery.fetch_stops_at_revocation)
def fetch_stops_at_revocation(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    if nxt.logs is None or action.kind not in ("poll", "process"):
        return None
    return delivery.fetch_stops_at_revocation(_holders(prev), _holders(nxt), scope.stride)


def sometimes_killed_before_commit(scope: ConsumerScope, state: State) -> str | None:
    """Witness (records): a fault struck between processing a record and committing it: an
    offset at or above the committed offset was processed and its redelivery is excused (a
    crash, a removal, a fencing or a commit the application could not make)."""
    for p, log in enumerate(state.logs or ()):
        uncommitted = log.done & log.excused & ~((1 << max(log.committed, 0)) - 1)
        if uncommitted:
            return f"{name(p, scope.stride)}: a fault struck after processing, before committing"
    return None


PROPERTIES = (
    Property("no_double_ownership", "always", no_double_ownership),
    Property("fenced_commits_rejected", "always", fenced_commits_rejected),
    Property("revoke_before_reassign", "always", revoke_before_reassign, on="step"),
    Property("callbacks_consistent", "always", callbacks_consistent, on="step"),
    Property("lost_only_when_fenced", "always", lost_only_when_fenced, on="step"),
    Property("callbacks_before_join", "always", callbacks_before_join, on="step"),
    Property("callbacks_on_leave", "always", callbacks_on_leave, on="step"),
    Property("fencing_resets_generation", "always", fencing_resets_generation, on="step"),
    Property("rebalance_in_progress_rejoins", "always", rebalance_in_progress_rejoins, on="step"),
    Property("rebalance_on_change_only", "always", rebalance_on_change_only, on="step"),
    Property("generation_per_round", "always", generation_per_round, on="step"),
    Property("coordinator_answers", "always", coordinator_answers, on="step"),
    Property("leave_group_on_close", "always", leave_group_on_close, on="step"),
    Property("heartbeat_loss_keeps_membership", "always", heartbeat_loss_keeps_membership, on="step"),
    Property("selected_protocol_everywhere", "always", selected_protocol_everywhere),
    Property("converges_within_k", "within", converges_within_k),
    Property("settles_fully_owned", "within", settles_fully_owned),
    Property("sticky_balanced", "always", sticky_balanced),
    Property("sometimes_settled", "sometimes", sometimes_settled),
    Property("sometimes_zombie", "sometimes", sometimes_zombie),
    Property("no_record_lost", "always", no_record_lost),
    Property("no_duplicate_without_failure", "always", no_duplicate_without_failure, on="step"),
    Property("commits_fenced_after_handover", "always", commits_fenced_after_handover, on="step"),
    Property("fetch_stops_at_revocation", "always", fetch_stops_at_revocation, on="step"),
    Property("sometimes_killed_before_commit", "sometimes", sometimes_killed_before_commit),
)

"""What must always hold for a KIP-848 consumer group.

Each claim's docstring quotes the sentence it enforces (KIP-848 "Next Generation of the
Consumer Rebalance Protocol", or Kafka's source where the KIP is silent); it returns None
when the claim holds, or a message naming the broken clause. Words used below:

* *live* client: running (joining, in the group or leaving) and its current incarnation is a
  member of the coordinator's group (not removed by a timeout);
* *held* by a coordinator member: assigned or pending revocation.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..core import Property
from . import classic_world as classic
from . import delivery_claims
from ..epochs import Fenced, MemberAssignment, validate_member_epoch
from .group import Group, group_state, mask_of, topics_mask
from .member import running
from .profiles import profile as _profile
from .records import replay
from .scope import ConsumerGroupScope
from .state import EMPTY, ERROR_NAMES, JOIN_EPOCH, LEAVE_STATIC_EPOCH
from .step import K, active, converged, index, settled
from .validation import validate
from .world import (DOWN, DOWNGRADED_ONLINE, LOST_RECOVERED, REVOKED, STATIC_KEPT, UPGRADED_ONLINE, Action, State,
                    member_id)

# the steps whose event carries a coordinator handler's (request, response, records, events)
HANDLED = ("handle", "expire", "session_timeout", "rebalance_timeout", "resolve")


def _parts(scope, mask: int) -> str:
    idx = index(scope)
    return "[" + ", ".join(f"{t}-{p}" for i, (t, p) in enumerate(idx) if mask >> i & 1) + "]"


def _live(state: State):
    g = state.group
    for s, c in enumerate(state.clients):
        if running(c) and not g.dead and g.member(member_id(s, c.incarnation)) is not None:
            yield s, c


def _consuming(state: State):
    """Live clients of either protocol: the consumer-protocol ones and the classic consumers
    whose member the coordinator holds (classic_world.live)."""
    return tuple(_live(state)) + tuple(classic.live(state))


def _members(g: Group):
    return () if g.dead else g.members


def no_double_ownership(scope: ConsumerGroupScope, state: State) -> str | None:
    """KIP-848 (Assignment Reconciliation): "a partition ... can only be assigned to a member
    once it has been revoked by its previous owner", so that no partition is consumed by two
    members of the group at once. Claim (client side): no two live clients own a partition."""
    seen = 0
    owner = {}
    for s, c in _consuming(state):
        clash = seen & c.owned
        if clash:
            other = next(o for o, m in owner.items() if m & clash)
            return f"{_parts(scope, clash)} owned by client {other} and client {s}"
        seen |= c.owned
        owner[s] = c.owned
    return None


def revoke_before_reassign(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-848 (Assignment Reconciliation): "the group coordinator ... must ensure that a
    partition is revoked by its previous owner before it is assigned to a new one"
    (CurrentAssignmentBuilder: a partition still owned by another member stays unreleased).
    Claim: a partition the coordinator newly assigns to a member is held by no other member."""
    if prev.group is nxt.group:
        return None
    before = {m.member_id: m.assigned for m in _members(prev.group)}
    after = _members(nxt.group)
    for m in after:
        new = m.assigned & ~before.get(m.member_id, 0)
        if not new:
            continue
        for o in after:
            clash = new & (o.assigned | o.pending_revocation) if o is not m else 0
            if clash:
                return f"{_parts(scope, clash)} assigned to {m.member_id} while {o.member_id} still holds it"
    return None


def member_epoch_never_decreases(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-848 (ConsumerGroupHeartbeatRequest.MemberEpoch): "The current member epoch; 0 to join
    the group; -1 to leave the group; -2 to indicate that the static member will rejoin."; the
    member epoch only moves forward as the member reconciles to newer target assignments.
    Claims: (client) an incarnation's epoch never decreases except to 0 (fenced, or its leave
    sent); (coordinator) a member's epoch never decreases except to -2 (a static leave) or in
    a failover (a reload), classic members of a consumer group included and through a
    conversion either way (fromClassicGroup / ClassicGroup.fromConsumerGroup keep the epochs).
    A classic client's generation is the classic protocol's (model/consumer judges it)."""
    for s, (a, b) in enumerate(zip(prev.clients, nxt.clients)):
        if classic.is_classic(a) or classic.is_classic(b):
            continue
        if a.incarnation == b.incarnation and b.epoch < a.epoch and b.epoch != 0:
            return f"client {s}: epoch {a.epoch} -> {b.epoch}"
    if action.kind == "failover" or prev.group is nxt.group:
        return None
    crossed = _conversion_epochs(prev, nxt)
    if crossed:
        return crossed
    before = {m.member_id: m.epoch for m in _members(prev.group)}
    for m in _members(nxt.group):
        old = before.get(m.member_id)
        if old is not None and m.epoch < old and m.epoch not in (0, LEAVE_STATIC_EPOCH):
            return f"coordinator: {m.member_id} epoch {old} -> {m.epoch}"
    return None


def _conversion_epochs(prev: State, nxt: State) -> str | None:
    """Epochs through an online conversion: fromClassicGroup makes every member's epoch the
    classic generation; convertToClassicGroup makes the generation the group epoch."""
    before, after = classic.held(prev), classic.held(nxt)
    if isinstance(before, classic.ClassicGroup) and not nxt.group.dead:
        old = {m.member_id for m in before.state.members}
        for m in nxt.group.members:
            if m.member_id in old and m.epoch < before.state.generation:
                return f"conversion: {m.member_id} epoch {m.epoch} below the classic generation {before.state.generation}"
    if isinstance(after, classic.ClassicGroup) and not prev.group.dead and prev.group.members:
        top = max(m.epoch for m in prev.group.members)
        if after.state.generation < top:
            return f"conversion: classic generation {after.state.generation} below member epoch {top}"
    return None


def assigned_within_subscription(scope: ConsumerGroupScope, state: State) -> str | None:
    """KIP-848 (Assignor): the assignor gets "the subscribed topics of each member" and a
    member is assigned partitions of topics it subscribes to. Claims: a member's target, and
    its current assignment (held partitions), lie within the topics it subscribes to (names,
    or what its regex resolved to). The scopes only add subscriptions, never drop one."""
    g = state.group
    for m in _members(g):
        allowed = topics_mask(g.partition_index, g.subscribed_topics(m))
        target = g.target_of(m.member_id) & ~allowed
        if target:
            return f"target of {m.member_id} has {_parts(scope, target)} outside its subscription"
        held = (m.assigned | m.pending_revocation) & ~allowed
        if held:
            return f"{m.member_id} holds {_parts(scope, held)} outside its subscription"
    return None


def _callbacks(events):
    for e in events:
        if e.kind in ("deliver", "reconcile", "leave", "roll", "downgrade"):
            for call in e.data:
                yield e, call


def commits_only_by_owner(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-848 (OffsetCommit): "the member epoch ... is used to fence zombie members: an
    OffsetCommit with a stale member epoch is rejected with STALE_MEMBER_EPOCH" (ConsumerGroup#
    validateOffsetCommit). Claims: an accepted commit of a client is of partitions its member
    holds (clause 1), and no other live client owns any of them (clause 2)."""
    for e, call in _callbacks(events):
        if call.kind != "commit" or call.error:
            continue
        s, mask = e.slot, call.partitions
        c = prev.clients[s]
        m = None if prev.group.dead else prev.group.member(member_id(s, c.incarnation))
        if m is None or mask & ~(m.assigned | m.pending_revocation):
            return f"client {s}'s commit of {_parts(scope, mask)} accepted, but its member does not hold them"
        for o, oc in _consuming(prev):
            if o != s and oc.owned & mask:
                return f"client {s}'s commit of {_parts(scope, mask)} accepted while client {o} owns {_parts(scope, oc.owned & mask)}"
    return None


def callbacks_in_order(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """ConsumerRebalanceListener (KIP-848 keeps its contract): onPartitionsRevoked before a
    partition moves to another consumer; "onPartitionsLost ... is invoked when partitions were
    lost, e.g. when the member got fenced" (AbstractMembershipManager#transitionToFenced,
    #transitionToFatal; leaveGroup: "If the member is not part of the group (epoch <= 0)").
    Claims: onPartitionsAssigned(P) runs while no other live client owns a partition of P
    (clause 1); onPartitionsRevoked / Lost release only what the client owned (clause 2);
    onPartitionsLost runs only on a fence, a fatal error or leaving at epoch <= 0 (clause 3)."""
    for e, call in _callbacks(events):
        s, kind, mask = e.slot, call.kind, call.partitions
        if kind == "assigned" and any(o == s for o, _ in _live(nxt)):
            for o, oc in _consuming(nxt):
                if o != s and oc.owned & mask:
                    return f"onPartitionsAssigned({_parts(scope, mask)}) on client {s} while client {o} owns them"
        if kind in ("revoked", "lost") and mask & ~prev.clients[s].owned:
            return f"on{kind.title()}({_parts(scope, mask)}) on client {s}, which did not own them"
        if kind == "lost":
            c = prev.clients[s]
            fenced = e.kind == "deliver" and c.reply is not None and c.reply.error
            if not (fenced or (e.kind in ("leave", "roll", "downgrade") and c.epoch <= 0)):
                return f"onPartitionsLost({_parts(scope, mask)}) on client {s} without a fence ({e.kind})"
    return None


def join_epoch_is_rejoin(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-848 (ConsumerGroupHeartbeatRequest): MemberEpoch "0 to join the group",
    TopicPartitions "must be empty when (re-)joining"; a fenced member "must abandon all its
    partitions and rejoin" (FENCED_MEMBER_EPOCH's message). Claims: (client) a heartbeat sent
    with epoch 0 comes from a client that runs no partition; (coordinator) a member handled at
    epoch 0 holds nothing pending revocation afterwards; (rejoin) where the profile accepts an
    epoch-0 rejoin of a known member (the KIP; KAFKA-19233's fix: "Allow fenced members to
    rejoin consumer group with epoch 0"), an epoch-0 heartbeat with a member id the group holds
    (not at -2) is answered without an error, static or not."""
    if action.kind == "send" and nxt.clients[action.slot].request.member_epoch == JOIN_EPOCH:
        c = nxt.clients[action.slot]
        if c.owned:
            return f"client {action.slot} (re-)joins with epoch 0 still running {_parts(scope, c.owned)}"
    if action.kind == "handle" and events[0].data.request.member_epoch == JOIN_EPOCH and not nxt.group.dead:
        m = nxt.group.member(events[0].data.request.member_id)
        if m is not None and m.pending_revocation:
            return f"coordinator: {m.member_id} rejoined at epoch 0 but still has {_parts(scope, m.pending_revocation)} pending"
        request, response = events[0].data.request, events[0].data.response
        known = None if prev.group.dead else prev.group.member(request.member_id)
        if (response.error_code and known is not None and known.epoch != LEAVE_STATIC_EPOCH
                and _profile(scope.profile).epoch0_rejoin_accepted):
            return (f"coordinator: {request.member_id}'s epoch-0 rejoin (member epoch {known.epoch}) answered "
                    f"{ERROR_NAMES[response.error_code]}")
    return None


def _hard(g: Group) -> Group:
    """The group without its soft state (KAFKA-16147's lost partition owners, in no record)."""
    return replace(g, epoch_map_lost=0) if g.epoch_map_lost else g


# cached for the search: one step's records meet one group in many states
_replayed = lru_cache(maxsize=1 << 14)(replay)


def replay_gives_live_state(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-848 (Persistence): the group's state is "persisted in the __consumer_offsets topic"
    as records, and a new coordinator rebuilds the group by replaying them. Claims: replaying
    a step's records on the previous group gives the next one; a ``failover`` keeps the group."""
    if action.kind == "failover":
        if _hard(nxt.group) != _hard(prev.group):
            return f"failover: the new coordinator's group differs from the live one ({events[0].note})"
        return None
    for e in events:
        if e.data and e.kind in HANDLED + classic.ACTION_KINDS and (prev.classic is not None or nxt.classic is not None):
            if not classic.replay_matches(e.data.records, prev, nxt):      # a migration step (classic_world.py)
                return f"{action.kind} of client {action.slot}: replay of its {len(e.data.records)} records differs"
        elif e.data and e.kind in HANDLED:
            got = _replayed(e.data.records, prev.group)
            if _hard(got) != _hard(nxt.group):
                return f"{action.kind} of client {action.slot}: replay of its {len(e.data.records)} records differs"
    return None


def prescribed_error(scope: ConsumerGroupScope, prev: State, request) -> str:
    """The error the scope's profile prescribes for ``request`` ("": none): validation, then
    the group, the static-membership rules, the member and its epoch (the lost-response rule).
    Epoch 0 from a member the group knows is a rejoin where the profile says so
    (``epoch0_rejoin_accepted``: the KIP and KAFKA-19233's fix), else it meets the epoch check."""
    p = _profile(scope.profile)
    err = validate(request, p)
    if err is not None:
        return err.code
    g = prev.group
    epoch = request.member_epoch
    refused = classic.upgrade_refused(scope, prev, request)
    if refused:
        return refused
    if g.dead:
        return "" if epoch == JOIN_EPOCH else "GROUP_ID_NOT_FOUND"
    if request.instance_id is not None:
        holder = g.static_member(request.instance_id)
        if epoch == JOIN_EPOCH:
            in_place = p.static_rejoin_in_place and holder is not None and holder.member_id == request.member_id
            if holder is not None and holder.epoch != LEAVE_STATIC_EPOCH and not in_place:
                return "UNRELEASED_INSTANCE_ID"
            return ""
        if holder is None:
            return "UNKNOWN_MEMBER_ID"
        if holder.member_id != request.member_id:
            return "FENCED_INSTANCE_ID"
    m = g.member(request.member_id)
    if m is None:
        return "" if epoch == JOIN_EPOCH else "UNKNOWN_MEMBER_ID"
    if epoch < 0 or (epoch == JOIN_EPOCH and p.epoch0_rejoin_accepted):
        return ""
    owned = None if request.topic_partitions is None else (mask_of(g.partition_index, request.topic_partitions),)
    try:
        member = MemberAssignment(state=m.state, epoch=m.epoch, previous_epoch=m.previous_epoch,
                                  assigned=(m.assigned,), pending_revocation=(m.pending_revocation,))
        validate_member_epoch(member, epoch, owned)
    except Fenced:
        return "FENCED_MEMBER_EPOCH"
    return ""


def error_as_profile_prescribes(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-848 (Consumer Group Heartbeat API): "UNKNOWN_MEMBER_ID ... if the member does not
    exist", "FENCED_MEMBER_EPOCH ... if the member epoch does not match" (unless it is the
    previous epoch and the owned partitions are still assigned: "the response with the bumped
    epoch may have been lost"), "UNRELEASED_INSTANCE_ID ... if the instance id is still used by
    another member", and the request checks. Claim: every response carries the error the
    scope's profile prescribes (``prescribed_error``); a switched rule is judged by it."""
    if action.kind != "handle":
        return None
    request, response = events[0].data.request, events[0].data.response
    want = prescribed_error(scope, prev, request)
    got = ERROR_NAMES[response.error_code] if response.error_code else ""
    if got != want:
        return f"epoch {request.member_epoch} heartbeat of {request.member_id} answered {got or 'NONE'}, prescribed {want or 'NONE'}"
    return None


def empty_epochs_equal(scope: ConsumerGroupScope, state: State) -> str | None:
    """KIP-848 (Rebalance Process): "The group epoch is bumped when ... a member joins or
    leaves"; a new target is computed by the next heartbeat. The literal claim "EMPTY =>
    group epoch = assignment epoch" does not hold before KAFKA-20442 (removing the last member
    bumps the group epoch and no heartbeat is left to compute a target). Claim checked
    instead: in EMPTY no target entry is left (every removal took its member's entry); and
    where the profile has KAFKA-20442's fix ("Update consumer group assignment epoch when last
    member leaves", 4.3) the literal claim too: EMPTY => group epoch = assignment epoch."""
    g = state.group
    if g.dead or group_state(g) != EMPTY:
        return None
    if g.target_assignment:
        return f"EMPTY, yet target entries remain for {[mid for mid, _ in g.target_assignment]}"
    if _profile(scope.profile).empty_group_epochs_equal and g.group_epoch != g.target_assignment_epoch:
        return f"EMPTY with group epoch {g.group_epoch} != assignment epoch {g.target_assignment_epoch}"
    return None


def epoch_bumped_for_a_listed_reason(scope, prev: State, action: Action, nxt: State, events) -> str | None:
    """KIP-848 (Rebalance Process): "The group epoch is bumped when: a member joins or leaves
    the group; a member is fenced or removed from the group by the group coordinator; a member
    updates its subscriptions; the partition metadata of a subscribed topic changes". Claim:
    the group epoch rises in a step by at most one, and rises exactly when the handler names a
    bump (a failover reloads: no bump)."""
    g0, g1 = prev.group, nxt.group
    if g0.dead or g1.dead or action.kind == "failover" or g0 is g1:
        return None
    reasons = [r for e in events if e.kind in HANDLED + classic.ACTION_KINDS and e.data for kind, *rest in e.data.events
               if kind == "group_epoch_bumped" for r in rest[0]]
    rise = g1.group_epoch - g0.group_epoch
    if rise not in (0, 1) or (rise == 1) != bool(reasons):
        return f"group epoch {g0.group_epoch} -> {g1.group_epoch} with reasons {reasons}"
    return None


def _membership_stable(state: State) -> bool:
    if any(c.status in (DOWN, "LEAVING") and c.incarnation >= 0 or c.stalled for c in state.clients):
        return False
    held = classic.held(state)
    ids = [m.member_id for m in held.state.members] if isinstance(held, classic.ClassicGroup) else [
        m.member_id for m in _members(state.group)]
    for mid in ids:
        s, inc = (int(x) for x in mid[1:].split("."))
        if state.clients[s].incarnation != inc or not active(state.clients[s]):
            return False
    return True


def converges_within_k(scope: ConsumerGroupScope, state: State) -> str | None:
    """KIP-848 (Assignment Reconciliation): "each member ... converges to its target
    assignment" once the group is quiet. Claim (bounded liveness): with membership, topics and
    subscriptions unchanged, after K = 5 full heartbeat rounds (notice, new target, revoke,
    acknowledge, assign) every running client is at the target epoch running its target
    (clause 1), and the group is STABLE (clause 2)."""
    if state.calm < K or not _membership_stable(state):
        return None
    for s, c in enumerate(state.clients):
        if active(c) and not converged(state, s):
            return f"{K} rounds without disturbance, yet client {s} is not at the target (epoch {c.epoch}, {c.status})"
    if isinstance(state.classic, classic.ClassicGroup):
        return None     # a classic client converged only in a Stable classic group
    if any(active(c) for c in state.clients) and group_state(state.group) != "STABLE":
        return f"{K} rounds without disturbance, yet the group is {group_state(state.group)}"
    return None


def revocation_completes(scope: ConsumerGroupScope, state: State) -> str | None:
    """Witness: a member revoked partitions and the coordinator saw it leave UNREVOKED_PARTITIONS."""
    return "a revocation was acknowledged" if state.marks & REVOKED else None


def lost_response_recovered(scope: ConsumerGroupScope, state: State) -> str | None:
    """Witness: a heartbeat at the member's previous epoch was accepted (KIP-848: "the member
    ... may send its previous epoch if the response with the bumped epoch was lost")."""
    return "a previous-epoch heartbeat was accepted" if state.marks & LOST_RECOVERED else None


def static_rejoin_keeps_assignment(scope: ConsumerGroupScope, state: State) -> str | None:
    """Witness: a static member left with -2 and its next incarnation (a new member id, the
    same instance id) got its partitions back with no group-epoch bump (KIP-848: "-2 to
    indicate that the static member will rejoin")."""
    return "a static member's partitions survived its restart without a bump" if state.marks & STATIC_KEPT else None


def rolling_bounce_completes(scope: ConsumerGroupScope, state: State) -> str | None:
    """Witness: a client restarted (a roll or a crash) and the group settled again, every
    running client at its target."""
    if any(c.incarnation >= 1 for c in state.clients) and any(running(c) for c in state.clients) \
            and settled(scope, state):
        return "a restarted client's group settled"
    return None


def migration_completes(scope: ConsumerGroupScope, state: State) -> str | None:
    """Witness: a group that started classic finished its rolling upgrade (KIP-848 "Upgrade":
    the consumers are restarted one by one with group.protocol=consumer; GroupMetadataManager
    converts the classic group when the first one joins, "ConsumerGroup.fromClassicGroup").
    Reached when the group was converted online (a classic group with members), every running
    client speaks the consumer protocol, no classic member is left (a plain consumer group),
    the group is STABLE and every running client converged."""
    if not state.marks & UPGRADED_ONLINE or state.classic is not None or state.group.dead or group_state(state.group) != "STABLE":
        return None
    if any(classic.is_classic(c) for c in state.clients):
        return None
    live = [s for s, c in enumerate(state.clients) if running(c)]
    if live and all(converged(state, s) for s in live):
        return "every client on the consumer protocol, the group STABLE, no classic member left"
    return None


def downgrade_completes(scope: ConsumerGroupScope, state: State) -> str | None:
    """Witness: a consumer-protocol client restarted as a classic consumer (``downgrade``) and
    the group went back to a classic group online (GroupMetadataManager#convertToClassicGroup,
    which logs "Downgrade group ... from consumer to classic"), every running client classic,
    the classic group Stable and each client consuming its assignment."""
    if not state.marks & DOWNGRADED_ONLINE or not isinstance(state.classic, classic.ClassicGroup) or not any(
            classic.is_classic(c) and c.incarnation >= 1 for c in state.clients):
        return None
    if any(running(c) for c in state.clients):
        return None
    live = [s for s, c in enumerate(state.clients) if classic.is_classic(c) and c.status != "down"]
    if live and all(converged(state, s) for s in live):
        return "a downgraded client's classic group Stable, every client classic and at its assignment"
    return None


PROPERTIES = (
    Property("no_double_ownership", "always", no_double_ownership),
    Property("revoke_before_reassign", "always", revoke_before_reassign, on="step"),
    Property("member_epoch_never_decreases", "always", member_epoch_never_decreases, on="step"),
    Property("assigned_within_subscription", "always", assigned_within_subscription),
    Property("commits_only_by_owner", "always", commits_only_by_owner, on="step"),
    Property("callbacks_in_order", "always", callbacks_in_order, on="step"),
    Property("join_epoch_is_rejoin", "always", join_epoch_is_rejoin, on="step"),
    Property("empty_epochs_equal", "always", empty_epochs_equal),
    Property("epoch_bumped_for_a_listed_reason", "always", epoch_bumped_for_a_listed_reason, on="step"),
    Property("replay_gives_live_state", "always", replay_gives_live_state, on="step"),
    Property("error_as_profile_prescribes", "always", error_as_profile_prescribes, on="step"),
    Property("converges_within_k", "within", converges_within_k),
    Property("revocation_completes", "sometimes", revocation_completes),
    Property("lost_response_recovered", "sometimes", lost_response_recovered),
    Property("static_rejoin_keeps_assignment", "sometimes", static_rejoin_keeps_assignment),
    Property("rolling_bounce_completes", "sometimes", rolling_bounce_completes),
    Property("migration_completes", "sometimes", migration_completes),
    Property("downgrade_completes", "sometimes", downgrade_completes),
    # the record layer (issue 30, delivery_claims.py): None while scope.records is off
    Property("no_record_lost", "always", delivery_claims.no_record_lost),
    Property("no_duplicate_without_failure", "always", delivery_claims.no_duplicate_without_failure, on="step"),
    Property("commits_fenced_after_handover", "always", delivery_claims.commits_fenced_after_handover, on="step"),
    Property("fetch_stops_at_revocation", "always", delivery_claims.fetch_stops_at_revocation, on="step"),
    Property("sometimes_redelivered_after_crash", "sometimes", delivery_claims.sometimes_redelivered_after_crash),
    Property("sometimes_killed_before_commit", "sometimes", delivery_claims.sometimes_killed_before_commit),
    Property("sometimes_handover_clean", "sometimes", delivery_claims.sometimes_handover_clean),
)

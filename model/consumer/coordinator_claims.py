"""When the group coordinator starts a rebalance and a new generation, as claims.

Kafka's GroupCoordinator (core/.../coordinator/group/GroupCoordinator.scala, 3.9) is
the source: KIP-429 says "No changes required from the broker side". Each claim looks
at one step: the group before it, the request the coordinator handled (if any), and
the group after it.
"""
from __future__ import annotations

from .scope import ConsumerScope
from .state import COMPLETING, EMPTY, PREPARING, STABLE, State


def _request(prev: State, action):
    if action.kind == "deliver":
        return prev.consumers[action.slot].outbox[0]
    return None


def _member_ids(group) -> set[int]:
    return {m.member_id for m in group.members}


def _began(prev: State, nxt: State) -> bool:
    """A rebalance began: the group entered PreparingRebalance, or completed a new round
    without having been in it before this step (the first member of an Empty group)."""
    g, h = prev.group, nxt.group
    if g.status == PREPARING:
        return False
    return h.status == PREPARING or h.generation > g.generation


def _why(prev: State, action, nxt: State) -> str | None:
    """What justifies a rebalance in this step, or None."""
    g, h = prev.group, nxt.group
    if g.members is not h.members and _member_ids(g) != _member_ids(h):   # the same tuple: no change
        return "membership changed"
    req = _request(prev, action)
    if req is None or req.kind != "JoinGroup":
        return None
    known = g.member(req.member_id)
    if known is None:
        return None
    if known.protocols != req.protocols or known.subscription != req.subscription:
        return "metadata changed"
    if g.status == STABLE and req.member_id == g.leader:
        return "the leader rejoined"
    return None


def rebalance_on_change_only(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """Kafka's GroupCoordinator: a known member rejoining a Stable group "force[s] a
    rebalance if the leader sends JoinGroup"; "for followers with no actual change to their
    metadata, just return group information for the current generation"; in
    CompletingRebalance "member is joining with the same metadata [...] so just return
    current group information"; a new member (addMemberAndRebalance) and a removed one
    (removeMemberAndUpdateGroup) start a rebalance. Claims: the group starts a rebalance
    only when its membership changes, a member's metadata (protocols, subscription)
    changes, or the leader rejoins a Stable group; and each of these, in a Stable or
    CompletingRebalance group, does start one."""
    g = prev.group
    began = _began(prev, nxt)
    why = _why(prev, action, nxt)
    if began and why is None:
        return f"a rebalance began on {action.kind} with no membership or metadata change"
    if why is not None and not began and g.status in (STABLE, COMPLETING) and nxt.group.members:
        return f"{why} in a {g.status} group, yet no rebalance began"
    return None


def generation_per_round(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """Kafka's GroupCoordinator#onCompleteJoin / GroupMetadata#initNextGeneration: the join
    phase completes when every member has rejoined (``hasAllMembersJoined``), and then
    "generationId += 1" with the group CompletingRebalance (or Empty when no member is
    left). Claims: the generation moves only by one, only when a join phase completes;
    a completed phase leaves the group CompletingRebalance with a leader among its members
    (or Empty), and every member that stays had rejoined."""
    g, h = prev.group, nxt.group
    if h.generation == g.generation:
        if g.status == PREPARING and h.status in (COMPLETING, EMPTY):
            return f"the join phase completed in generation {g.generation} without a new generation"
        return None
    if h.generation != g.generation + 1:
        return f"generation moved from {g.generation} to {h.generation}"
    if h.status not in (COMPLETING, EMPTY):
        return f"generation {h.generation} began in state {h.status}"
    if h.status == COMPLETING and h.member(h.leader) is None:
        return f"generation {h.generation} has leader {h.leader}, not a member"
    req = _request(prev, action)
    joining = req.member_id if req is not None and req.kind == "JoinGroup" else None
    late = [m.member_id for m in h.members
            if g.member(m.member_id) is not None and not g.member(m.member_id).joined
            and m.member_id != joining and g.status == PREPARING]
    if late:
        return f"generation {h.generation} completed before member(s) {late} rejoined"
    return None


def _answer(prev: State, action, nxt: State):
    """The response the coordinator put in the sender's inbox in this step, if any."""
    before, after = prev.consumers[action.slot].inbox, nxt.consumers[action.slot].inbox
    return after[-1] if len(after) > len(before) else None


def coordinator_answers(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """Kafka's GroupCoordinator#doSyncGroup and #handleHeartbeat, state by state: an
    unknown member or an Empty group gets UNKNOWN_MEMBER_ID; another generation gets
    ILLEGAL_GENERATION; "case PreparingRebalance => REBALANCE_IN_PROGRESS"; a SyncGroup
    in CompletingRebalance waits for the leader's ("if this is the leader, then we can
    attempt to persist state and transition to stable"); in Stable it gets "memberMetadata.
    assignment, Errors.NONE"; a Heartbeat in CompletingRebalance or Stable gets NONE
    ("consumers may start sending heartbeat after join-group response"). Claim: each
    SyncGroup and Heartbeat the coordinator handles is answered so."""
    req = _request(prev, action)
    if req is None or req.kind not in ("SyncGroup", "Heartbeat"):
        return None
    g = prev.group
    m = g.member(req.member_id)
    if m is None or g.status in (EMPTY, "Dead"):
        want = "UNKNOWN_MEMBER_ID"
    elif req.generation != g.generation:
        want = "ILLEGAL_GENERATION"
    elif g.status == PREPARING:
        want = "REBALANCE_IN_PROGRESS"
    elif req.kind == "SyncGroup" and g.status == COMPLETING and req.member_id != g.leader:
        want = None            # waits for the leader's SyncGroup
    else:
        want = "NONE"
    got = _answer(prev, action, nxt)
    name = f"{req.kind} of m{req.member_id} (generation {req.generation}) in a {g.status} group"
    if want is None:
        return f"{name} answered {got.error} instead of waiting for the leader" if got is not None else None
    if got is None:
        return f"{name} got no answer, expected {want}"
    if got.error != want:
        return f"{name} answered {got.error}, expected {want}"
    if req.kind == "SyncGroup" and want == "NONE" and g.status == STABLE and got.assignment != m.assignment:
        return f"{name} answered an assignment other than the member's stored one"
    return None


def leave_group_on_close(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """Kafka's KafkaConsumer#close -> ConsumerCoordinator#close -> maybeLeaveGroup: "Sends
    LeaveGroupRequest and logs the reason" when the consumer has a member id and is not
    UNJOINED; the coordinator then removes it at once (handleLeaveGroup:
    removeMemberAndUpdateGroup) instead of waiting for its session to expire. Claim: a
    consumer closed while a member of the group is no longer one after the close."""
    if action.kind != "bounce":
        return None
    c = prev.consumers[action.slot]
    if prev.group.member(c.member_id) is None or c.generation == -1:
        return None
    if nxt.group.member(c.member_id) is not None:
        return f"C{action.slot + 1} closed, yet m{c.member_id} is still a member (no LeaveGroup)"
    return None

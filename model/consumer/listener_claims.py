"""What the ConsumerRebalanceListener sees: the callback contract of KIP-429, as claims.

Each claim's docstring quotes the sentence it enforces (KIP-429, or Kafka's
ConsumerCoordinator where Kafka is more precise) and returns None when it holds, or a
message naming the broken clause. They are transition claims: each looks at one step,
the consumer before it, the callbacks it made, and the consumer after it.
"""
from __future__ import annotations

from ..assignors import COOPERATIVE, rebalance_protocol
from ..partitions import existing, of_topics, show
from .scope import ConsumerScope
from .state import NO_GENERATION, NO_MEMBER, State

CALLBACK_KINDS = ("assigned", "revoked", "lost")


def callbacks_consistent(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """KIP-429: "Listener#onPartitionsAssigned: called on the subset of assigned partitions
    that were not previously owned before this rebalance. There should be no overlap
    with the revoked partitions (if any). This will always be called, even if there are
    no new partitions being assigned to a given member." and "Listener#onPartitionsRevoked:
    this will be called on the subset of previously owned partitions that are intended
    to be reassigned to another consumer. If this subset is empty, this will not be
    invoked at all." Kafka (ConsumerCoordinator#onJoinComplete) completes a rebalance only
    with an assignment that matches the current subscription; one that does not is
    dropped and the consumer rejoins. Claims, per SyncGroup response a consumer completes
    its rebalance with: a matching assignment gets onPartitionsAssigned exactly once, on
    assigned - owned; COOPERATIVE gets onPartitionsRevoked exactly on owned - assigned
    when that is non-empty (EAGER revoked everything before joining); nothing is lost;
    and ownership becomes the assignment. An assignment that does not match gets no
    callback and changes no ownership."""
    if action.kind != "receive":
        return None
    c = prev.consumers[action.slot]
    resp = c.inbox[0]
    if not (resp.kind == "SyncGroupResponse" and resp.error == "NONE" and c.awaiting == "SyncGroup"
            and resp.to == c.member_id):
        return None
    who = f"C{action.slot + 1}"
    calls = [(e.kind, e.partitions) for e in events if e.slot == action.slot and e.kind in CALLBACK_KINDS]
    owned, assigned, after = c.owned, resp.assignment, nxt.consumers[action.slot].owned
    if assigned & ~of_topics(c.subscribed, scope.stride, len(scope.partitions)):
        if calls or after != owned:
            return f"{who} acted on an assignment outside its subscription ({calls}); it must only rejoin"
        return None
    expected = [("revoked", owned & ~assigned)] if owned & ~assigned and _cooperative(scope, c) else []
    expected.append(("assigned", assigned & ~owned))
    if calls != expected:
        return f"{who} completed a rebalance with callbacks {_calls(scope, calls)}, expected {_calls(scope, expected)}"
    if after != assigned:
        return f"{who} owns {show(after, scope.stride)} after being assigned {show(assigned, scope.stride)}"
    return None


def _cooperative(scope: ConsumerScope, c) -> bool:
    return rebalance_protocol(scope.plan[c.config].assignors) == COOPERATIVE


def _calls(scope: ConsumerScope, calls) -> str:
    return "[" + ", ".join(f"{k}{show(p, scope.stride)}" for k, p in calls) + "]"


def lost_only_when_fenced(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """KIP-429: "Listener#onPartitionsLost: if the member has missed a rebalance and
    fallen out of the group, this new callback will be invoked on the set of all owned
    partitions (unless empty). The member will then rejoin the group." and "re-join
    group with empty assigned partition". Claims: onPartitionsLost is called only for a
    reset generation or member id, for partitions that no longer exist, or on leaving
    mid-rebalance; and a reset consumer rejoins owning nothing."""
    if action.kind != "join" and not any(e.kind == "lost" for e in events):
        return None
    slot = action.slot
    alive = existing(nxt.partitions, scope.stride)
    reset = False
    if action.kind in ("join", "commit_read"):
        # with records, reading a commit's answer may reset the member (UNKNOWN_MEMBER_ID,
        # ILLEGAL_GENERATION) and finish onJoinPrepare in the same step
        c = prev.consumers[slot]
        reset = (c.generation == NO_GENERATION or c.member_id == NO_MEMBER
                 or any(e.kind == "fenced" and e.slot == slot for e in events))
        joined = action.kind == "join" or nxt.consumers[slot].awaiting == "JoinGroup"
        if reset and joined and nxt.consumers[slot].owned:
            return (f"C{slot + 1} rejoined after a reset still claiming "
                    f"{show(nxt.consumers[slot].owned, scope.stride)}")
    for e in events:
        if e.kind != "lost" or not e.partitions & alive or reset or action.kind == "bounce":
            continue
        return (f"C{e.slot + 1} called onPartitionsLost({show(e.partitions, scope.stride)}) "
                f"on {action.kind} without being fenced")
    return None


def _protocol(scope: ConsumerScope, c) -> str:
    return rebalance_protocol(scope.plan[c.config].assignors)


def callbacks_before_join(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """KIP-429, the eager timeline: "the timeline of a rebalance is always exactly as
    follows: 1. Listener#onPartitionsLost: if the member has missed a rebalance and fallen
    out of the group [...] 2. Listener#onPartitionsRevoked: called on the full set of
    assigned partitions"; the cooperative one: "Listener#onPartitionsRevoked: if [...]
    some owned partitions are no longer in our subscription [...] this callback will be
    invoked on that subset. If there are no partitions to revoke for those reasons, this
    callback will not be invoked at this point". Kafka runs this once per rebalance
    (AbstractCoordinator#joinGroupIfNeeded, ``needsJoinPrepare``). Claims, when a consumer
    sends JoinGroup: at the first JoinGroup of a rebalance, a reset consumer calls
    onPartitionsLost on everything it owns (if anything) and rejoins owning nothing; an
    EAGER one calls onPartitionsRevoked on everything it owns, even nothing, and rejoins
    owning nothing; a COOPERATIVE one revokes exactly its partitions of unsubscribed
    topics, if any. A JoinGroup retried within the same rebalance calls no listener. (With
    records and auto-commit, onJoinPrepare first waits for its commit: the JoinGroup goes with
    the ``join`` or ``commit_read`` step that finishes it.)"""
    if action.kind not in ("join", "commit_read") or nxt.consumers[action.slot].awaiting != "JoinGroup":
        return None
    slot = action.slot
    c = prev.consumers[slot]
    calls = [(e.kind, e.partitions) for e in events if e.slot == slot and e.kind in CALLBACK_KINDS]
    after = nxt.consumers[slot].owned
    if not c.needs_join_prepare:
        expected, owns = [], c.owned
    elif (c.generation == NO_GENERATION or c.member_id == NO_MEMBER
          or any(e.kind == "fenced" and e.slot == slot for e in events)):   # reset by a commit's answer
        if not scope.behaviour.fenced_clears_owned and c.owned:
            return None        # KAFKA-12983's profile: lost_only_when_fenced judges it
        expected, owns = ([("lost", c.owned)] if c.owned else []), 0
    elif _protocol(scope, c) != COOPERATIVE:
        expected, owns = [("revoked", c.owned)], 0
    else:
        gone = c.owned & ~of_topics(c.subscribed, scope.stride, len(scope.partitions))
        expected, owns = ([("revoked", gone)] if gone else []), c.owned & ~gone
    if calls != expected:
        return f"C{slot + 1} sent JoinGroup with callbacks {_calls(scope, calls)}, expected {_calls(scope, expected)}"
    if after != owns:
        return f"C{slot + 1} sent JoinGroup owning {show(after, scope.stride)}, expected {show(owns, scope.stride)}"
    return None


def callbacks_on_leave(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """Kafka's ConsumerCoordinator#onLeavePrepare (KafkaConsumer#close): "we should reset
    assignment and trigger the callback before leaving group": onPartitionsLost when the
    generation or member id was reset or a rebalance is in progress (the partitions may
    already belong to someone else; KIP-429: "if the member has missed a rebalance and
    fallen out of the group"), onPartitionsRevoked otherwise. Claim: a consumer shutting
    down makes exactly one callback on everything it owns (none when it owns nothing):
    lost if it was reset or in a rebalance (a JoinGroup or SyncGroup outstanding, or a
    failed one to retry), revoked if it was a settled member (a rejoin merely requested
    does not start a rebalance until the JoinGroup is sent)."""
    if action.kind != "bounce":
        return None
    slot = action.slot
    c = prev.consumers[slot]
    calls = [(e.kind, e.partitions) for e in events if e.slot == slot and e.kind in CALLBACK_KINDS]
    if not c.owned:
        expected = []
    else:
        in_rebalance = bool(c.awaiting in ("JoinGroup", "SyncGroup") or c.outbox and c.outbox[0].kind != "Heartbeat"
                            or (c.status != "stable" and not c.needs_join_prepare))
        reset = c.generation == NO_GENERATION or c.member_id == NO_MEMBER
        expected = [("lost" if reset or in_rebalance else "revoked", c.owned)]
    if calls != expected:
        return f"C{slot + 1} left with callbacks {_calls(scope, calls)}, expected {_calls(scope, expected)}"
    return None


FENCING = ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION")


def fencing_resets_generation(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """KIP-429: "If received UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION from join-group /
    sync-group / commit / heartbeat response: reset generation / clear member-id
    correspondingly, call rebalance listener's onPartitionsLost for all the partition and
    then re-join group with empty assigned partition." Kafka's resetStateOnResponseError
    keeps the member id on ILLEGAL_GENERATION ("the member ID might still be valid").
    Claim: a consumer answered with one of these errors to the request it awaits resets
    its generation, clears its member id exactly on UNKNOWN_MEMBER_ID, and will rejoin
    (its onPartitionsLost then comes with that JoinGroup: ``callbacks_before_join``)."""
    if action.kind != "receive":
        return None
    c = prev.consumers[action.slot]
    resp = c.inbox[0]
    if resp.error not in FENCING or c.awaiting != resp.kind.removesuffix("Response") or resp.to != c.member_id:
        return None
    after = nxt.consumers[action.slot]
    name = f"C{action.slot + 1}"
    if after.generation != NO_GENERATION:
        return f"{name} kept generation {after.generation} after {resp.error}"
    if (after.member_id == NO_MEMBER) != (resp.error == "UNKNOWN_MEMBER_ID"):
        return f"{name} has member id m{after.member_id} after {resp.error}"
    if after.status != "idle" or after.awaiting:
        return f"{name} does not rejoin after {resp.error} (status {after.status})"
    return None


def rebalance_in_progress_rejoins(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """Kafka's AbstractCoordinator: a Heartbeat answered REBALANCE_IN_PROGRESS while STABLE
    means "requestRejoin("group is already rebalancing")"; a SyncGroup answered with it:
    "SyncGroup failed: The group began another rebalance. Need to re-join the group."
    Since KAFKA-14016 (3.3) neither resets the generation or the member id. Claim: a
    consumer answered REBALANCE_IN_PROGRESS to the Heartbeat or SyncGroup it awaits will
    rejoin, keeping its member id, generation and owned partitions, with no callback (its
    JoinGroup then runs the rebalance's callbacks: ``callbacks_before_join``)."""
    if action.kind != "receive":
        return None
    c = prev.consumers[action.slot]
    resp = c.inbox[0]
    kind = resp.kind.removesuffix("Response")
    if resp.error != "REBALANCE_IN_PROGRESS" or kind not in ("Heartbeat", "SyncGroup") \
            or c.awaiting != kind or resp.to != c.member_id:
        return None
    after = nxt.consumers[action.slot]
    name = f"C{action.slot + 1}"
    if after.status != "idle" or after.awaiting:
        return f"{name} does not rejoin after {kind} REBALANCE_IN_PROGRESS (status {after.status})"
    if (after.member_id, after.generation, after.owned) != (c.member_id, c.generation, c.owned):
        return f"{name} reset its membership or ownership on {kind} REBALANCE_IN_PROGRESS"
    if any(e.slot == action.slot and e.kind in CALLBACK_KINDS for e in events):
        return f"{name} called a rebalance listener on {kind} REBALANCE_IN_PROGRESS"
    return None


def heartbeat_loss_keeps_membership(scope: ConsumerScope, prev: State, action, nxt: State, events) -> str | None:
    """Kafka's AbstractCoordinator: a Heartbeat that fails on the connection (a lost
    response, a request timeout) only marks the coordinator unknown ("coordinatorDead")
    and the heartbeat is retried; no rejoin is requested, the member keeps its
    generation and partitions (its session decides whether it stays a member). Claim:
    losing a Heartbeat response leaves the consumer's status, membership and ownership
    as they were."""
    if action.kind != "lose_response":
        return None
    c = prev.consumers[action.slot]
    resp = c.inbox[0]
    if resp.kind != "HeartbeatResponse":
        return None
    after = nxt.consumers[action.slot]
    if (after.status, after.member_id, after.generation, after.owned) != (c.status, c.member_id, c.generation, c.owned):
        return f"C{action.slot + 1} changed its membership on a lost Heartbeat response (status {after.status})"
    return None

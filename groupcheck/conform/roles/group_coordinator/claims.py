"""The claims a group coordinator's answers are judged by, each against the model's.

Each claim compares what the target sent at one step of a scenario with what the model
coordinator sent (``scenarios.ModelStep.expected``), where Kafka's classic group
coordinator fixes the answer. Sources, checked line by line: Kafka 3.9
core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala and GroupMetadata.scala
(tag 3.9.0-rc3), and the Java rewrite that replaced them (group-coordinator module:
GroupMetadataManager.java, classic/ClassicGroup.java), which keeps the same rules.
Member id strings, the absolute first generation and which member leads once the old
leader is gone are the implementation's choice: ids are mapped by first appearance,
generations compared by their steps, a differing new leader ends the scenario unjudged.
Where the model knowingly departs from Kafka (``scenarios.departure``) a violation ends
the scenario unjudged. A claim returns a message (violated), None (held) or NA.
"""
from __future__ import annotations

from dataclasses import dataclass, field

NA = "n/a"


@dataclass
class Context:
    """What one scenario has learnt about the target: model id <-> wire id, and the
    offset between the target's generations and the model's."""

    to_wire: dict = field(default_factory=dict)
    to_model: dict = field(default_factory=dict)
    offset: int | None = None
    leader: int = 0           # the model's leader before this step
    stored: int = -1          # the offset of the last OffsetCommit the target accepted

    def learn(self, mid: int, wid: str) -> None:
        if mid and wid and mid not in self.to_wire and wid not in self.to_model:
            self.to_wire[mid], self.to_model[wid] = wid, mid

    def model_of(self, wid: str) -> int:
        return self.to_model.get(wid, 0 if wid == "" else -1)


def _key(slot, resp_kind):
    return (slot, resp_kind)


def pairs(expected, answers) -> list[tuple]:
    """(model response, target response) for every request both answered at this step."""
    got = {_key(a["member"], a["response"]["kind"]): a["response"] for a in answers}
    return [(r, got[_key(s, r.kind)]) for s, r in expected if _key(s, r.kind) in got]


def same_held(ctx, expected, answers):
    """The target answers exactly the requests the model's coordinator answers at this
    step, answers to requests held earlier included.

    Kafka: a JoinGroup of a PreparingRebalance group is parked in the rebalance purgatory
    (GroupCoordinator.handleJoinGroup -> rebalancePurgatory.checkAndComplete) and answered
    only by onCompleteJoin, once tryCompleteJoin sees GroupMetadata.hasAllMembersJoined or
    the DelayedJoin (rebalance timeout) expires; a JoinGroup that changes nothing in
    CompletingRebalance, or a follower's in Stable, is answered at once
    (doCurrentMemberJoinGroup). In CompletingRebalance doSyncGroup stores each SyncGroup's
    callback and only the leader's triggers setAndPropagateAssignment; prepareRebalance
    answers the stored ones with REBALANCE_IN_PROGRESS (resetAndPropagateAssignmentError);
    removeMemberAndUpdateGroup answers a removed member's parked JoinGroup. Heartbeat and
    SyncGroup in other states are answered at once. Java: GroupMetadataManager
    classicGroupJoinExistingMember, maybeCompleteJoinPhase, completeClassicGroupJoin,
    classicGroupSyncToClassicGroup. LeaveGroup answers are not compared (the model does not
    produce them). Not judged: a join the model completes while a member id is pending
    (hasAllMembersJoined also requires no pending member), see ``scenarios.departure``."""
    want = {_key(s, r.kind) for s, r in expected}
    got = {_key(a["member"], a["response"]["kind"]) for a in answers if a["response"]["kind"] != "LeaveGroupResponse"}
    if want == got:
        return None
    show = lambda ks: ", ".join(f"member {s} {k}" for s, k in sorted(ks)) or "nothing"  # noqa: E731
    return f"answered {show(got - want)} the model holds; held {show(want - got)} the model answers" \
        .replace("answered nothing the model holds; ", "").replace("; held nothing the model answers", "")


def member_id_required(ctx, expected, answers):
    """KIP-394: a JoinGroup (v4 and later) without a member id is answered at once with
    MEMBER_ID_REQUIRED carrying a freshly made member id, and the id is remembered as
    pending so that the member's next JoinGroup with it is accepted.

    Kafka: GroupCoordinator.handleJoinGroup -> doNewMemberJoinGroup ->
    doDynamicNewMemberJoinGroup: with requireKnownMemberId (KafkaApis sets it for
    JoinGroup v4+) it calls addPendingMember and responds MEMBER_ID_REQUIRED with
    newMemberId; doCurrentMemberJoinGroup then admits the pending id
    (isPendingMember -> addMemberAndRebalance). The protocol check
    (INCONSISTENT_GROUP_PROTOCOL) comes first. Java: GroupMetadataManager
    classicGroupJoinNewDynamicMember."""
    asked = [s for s, r in expected if r.kind == "JoinGroupResponse" and r.error == "MEMBER_ID_REQUIRED"]
    if not asked:
        return NA
    got = {a["member"]: a["response"] for a in answers if a["response"]["kind"] == "JoinGroupResponse"}
    for s in asked:
        r = got.get(s)
        if r is None:
            return f"member {s}'s JoinGroup without a member id was held, not answered MEMBER_ID_REQUIRED"
        if r["error"] != "MEMBER_ID_REQUIRED" or not r["member_id"]:
            return f"member {s}'s JoinGroup without a member id got {r['error']} (member id {r['member_id']!r})"
    return None


def same_errors(ctx, expected, answers):
    """Every answer the model also gives carries the model's error code.

    Kafka checks in this order. JoinGroup (handleJoinGroup, doNewMemberJoinGroup,
    doCurrentMemberJoinGroup): INCONSISTENT_GROUP_PROTOCOL when a non-empty group shares
    none of the member's protocols (GroupMetadata.supportsProtocols), before anything about
    the member id; then UNKNOWN_MEMBER_ID for an id neither pending nor a member
    (validateCurrentMember) or a member of an Empty group. SyncGroup (validateSyncGroup,
    doSyncGroup) and Heartbeat (validateHeartbeat, handleHeartbeat): UNKNOWN_MEMBER_ID for a
    non-member, then ILLEGAL_GENERATION for another generation, then by state:
    PreparingRebalance -> REBALANCE_IN_PROGRESS, Empty -> UNKNOWN_MEMBER_ID; a Heartbeat
    in CompletingRebalance or Stable -> NONE. Answers to parked requests: a removed
    member's JoinGroup gets UNKNOWN_MEMBER_ID (removeMemberAndUpdateGroup), SyncGroups
    parked when a rebalance starts get REBALANCE_IN_PROGRESS (prepareRebalance). Java:
    GroupMetadataManager classicGroupJoin*, validateSyncGroup, validateClassicGroupHeartbeat,
    classicGroupHeartbeatToClassicGroup (same order). OffsetCommit answers are
    ``commit_fencing``'s."""
    judged = [(m, t) for m, t in pairs(expected, answers) if m.kind != "OffsetCommitResponse"]
    bad = [f"member {_slot(expected, m)} {m.kind}: {t['error']}, model {m.error}"
           for m, t in judged if t["error"] != m.error]
    return "; ".join(bad) if bad else None if judged else NA


def _slot(expected, resp):
    return next(s for s, r in expected if r is resp)


def generation_rules(ctx, expected, answers):
    """Every completed join round increments the generation by exactly one (also a round
    that leaves the group Empty), and every member of the round gets that generation in
    its JoinGroupResponse; a rejoin answered at once carries the current generation.

    Kafka: GroupMetadata.initNextGeneration (generationId += 1 in both branches), read by
    GroupCoordinator.onCompleteJoin for every member's JoinGroupResult and by
    doCurrentMemberJoinGroup's immediate answers. Java: ClassicGroup.initNextGeneration,
    GroupMetadataManager.completeClassicGroupJoin. Kafka's group starts at generation 0, so
    its first round is 1, as the model's; other implementations may start elsewhere, and
    clients only echo the number, so generations are compared by their constant offset
    from the model's (learnt at the first judged answer; requests carry the target's)."""
    judged = [(m, t) for m, t in pairs(expected, answers)
              if m.kind == "JoinGroupResponse" and m.error == "NONE" and t["error"] == "NONE"]
    if not judged:
        return NA
    for m, t in judged:
        off = t["generation"] - m.generation
        if ctx.offset is None:
            ctx.offset = off
        elif off != ctx.offset:
            return (f"member {_slot(expected, m)} got generation {t['generation']}, model {m.generation} "
                    f"(the target's generations so far ran {ctx.offset:+d} from the model's)")
    return None


def same_protocol(ctx, expected, answers):
    """Every JoinGroupResponse of a round names the model's protocol: among the protocols
    every member lists, each member votes for the first of its own list, the most votes win.

    Kafka: GroupMetadata.selectProtocol (candidateProtocols, MemberMetadata.vote), called by
    initNextGeneration; Java: ClassicGroup.selectProtocol. A tie is broken by hash-map order
    in Kafka and by name in the model, so ties say nothing; the scopes here give every
    member the same list, where the vote is unanimous."""
    judged = [(m, t) for m, t in pairs(expected, answers)
              if m.kind == "JoinGroupResponse" and m.error == "NONE" == t["error"]]
    bad = [f"{t['protocol']!r} vs model {m.protocol!r}" for m, t in judged if t["protocol"] != m.protocol]
    return ("selected " + "; ".join(bad)) if bad else None if judged else NA


def leader_lists_members(ctx, expected, answers):
    """The leader's JoinGroupResponse lists every member of the generation with the
    metadata it joined with; a follower's lists none.

    Kafka: GroupCoordinator.onCompleteJoin and the CompletingRebalance branch of
    doCurrentMemberJoinGroup answer ``if (group.isLeader(memberId))
    group.currentMemberMetadata else List.empty``; a follower rejoining a Stable group
    gets an empty list. Java: GroupMetadataManager.completeClassicGroupJoin,
    ClassicGroup.currentClassicGroupMembers."""
    judged = [(m, t) for m, t in pairs(expected, answers)
              if m.kind == "JoinGroupResponse" and m.error == "NONE" == t["error"]]
    if not judged:
        return NA
    model_members = next((m.members for m, _ in judged if m.members), None)
    for m, t in judged:
        is_leader = t["member_id"] == t["leader"]
        if not is_leader and t["members"]:
            return f"member {t['member_id']} is not the leader ({t['leader']}) but its response lists members"
        if is_leader and model_members is not None:
            want = sorted((ctx.to_wire.get(mid, f"?{mid}"), _meta(s)) for mid, s in model_members)
            got = sorted((x["member_id"], x["metadata"]) for x in t["members"])
            if got != want:
                return f"the leader's JoinGroupResponse lists {got}, model {want}"
    return None


def _meta(sub):
    from groupcheck.model.wire.group_coordinator_json import metadata
    return metadata(sub)


def leader_kept(ctx, expected, answers):
    """A leader that rejoins stays leader of the next generation.

    Kafka: GroupMetadata.leaderId survives initNextGeneration; it changes only in remove
    (the leader leaves: any remaining member) and maybeElectNewJoinedLeader (the leader did
    not rejoin before the round completed: any joined member). Java: ClassicGroup.remove,
    maybeElectNewJoinedLeader. Which member takes over is hash-map order, so a new leader
    is not judged (the scenario stops when the target picks another); nor is the first
    leader: Kafka takes the first member added (GroupMetadata.add), the model the lowest id."""
    judged = [(m, t) for m, t in pairs(expected, answers)
              if m.kind == "JoinGroupResponse" and m.error == "NONE" == t["error"]]
    if not judged or not ctx.leader or ctx.leader != judged[0][0].leader:
        return NA
    want = ctx.to_wire.get(ctx.leader)
    bad = [t["leader"] for _, t in judged if t["leader"] != want]
    return f"leader {bad[0]}, but the leader {want} is still a member" if bad else None


def sync_returns_leader_assignment(ctx, expected, answers):
    """Each successful SyncGroupResponse carries the assignment the leader's SyncGroup gave
    that member, empty if it gave none; in Stable, the stored one.

    Kafka: doSyncGroup, CompletingRebalance: the leader's assignment map, missing members
    filled with an empty array, is stored and handed to every parked SyncGroup by
    setAndPropagateAssignment/propagateAssignment; Stable: ``memberMetadata.assignment``.
    Java: GroupMetadataManager.classicGroupSyncToClassicGroup, propagateAssignment. The
    model's "no partitions" (0) and Kafka's empty assignment are the same answer here."""
    bad = [f"member {_slot(expected, m)} got {t.get('assignment')!r}, the leader gave {str(m.assignment)!r}"
           for m, t in pairs(expected, answers)
           if m.kind == "SyncGroupResponse" and m.error == "NONE" == t["error"]
           and (t.get("assignment") or "0") != str(m.assignment)]
    judged = any(m.kind == "SyncGroupResponse" and m.error == "NONE" for m, _ in pairs(expected, answers))
    return "; ".join(bad) if bad else None if judged else NA


def commit_fencing(ctx, expected, answers):
    """An OffsetCommit carrying a consumer's member id and generation (or a made-up member
    id) is accepted or refused as Kafka's classic coordinator decides for the group's state:
    COORDINATOR_NOT_AVAILABLE when Dead; NONE for generation -1 to an Empty group;
    UNKNOWN_MEMBER_ID from a non-member (a pending id included); ILLEGAL_GENERATION for
    another generation; REBALANCE_IN_PROGRESS in CompletingRebalance; else NONE, also in
    PreparingRebalance.

    Kafka: GroupCoordinator.handleCommitOffsets (3.9) -> doCommitOffsets ->
    validateOffsetCommit (validateCurrentMember, then ``generationId != group.generationId``),
    then ``case CompletingRebalance => Errors.REBALANCE_IN_PROGRESS``; Java:
    GroupMetadataManager.validateOffsetCommit, ClassicGroup.validateOffsetCommit. The rule
    is ``model.consumer.probes.offset_commit_error``."""
    judged = [(m, t) for m, t in pairs(expected, answers) if m.kind == "OffsetCommitResponse"]
    bad = [f"OffsetCommit {t['error']}, model {m.error}" for m, t in judged if t["error"] != m.error]
    return "; ".join(bad) if bad else None if judged else NA


def fetch_returns_committed(ctx, expected, answers):
    """OffsetFetch returns the offset of the last accepted OffsetCommit, -1 if none, in any
    group state.

    Kafka: GroupCoordinator.handleFetchOffsets (3.9) "return offsets blindly regardless the
    current group state" (GroupMetadataManager.getOffsets; INVALID_OFFSET -1 for a
    partition without one); Java: OffsetMetadataManager.fetchOffsets. Judged against the
    commits the target itself accepted (``Context.stored``), so a wrongly accepted or refused
    commit is ``commit_fencing``'s divergence alone."""
    judged = [(m, t) for m, t in pairs(expected, answers)
              if m.kind == "OffsetFetchResponse" and m.error == "NONE" == t["error"]]
    bad = [f"OffsetFetch returned {t.get('offset')}, the last commit it accepted {ctx.stored}"
           for m, t in judged if t.get("offset") != ctx.stored]
    return "; ".join(bad) if bad else None if judged else NA


def describe_matches(ctx, expected, answers):
    """Where the model says the group is settled, and right after a member's session
    expired, DescribeGroups names the model's state and exactly its members (and, when
    Stable, its protocol): an expired member is no longer listed.

    Kafka: GroupCoordinator.handleDescribeGroup (3.9) -> GroupMetadata.summary: the state's
    name (Empty, PreparingRebalance, CompletingRebalance, Stable, Dead), every member, the
    protocol only when Stable (GroupCoordinator.NoProtocol otherwise); Java:
    GroupMetadataManager.describeGroups, ClassicGroup.stateAsString."""
    judged = [(m, t) for m, t in pairs(expected, answers)
              if m.kind == "DescribeGroupsResponse" and m.error == "NONE" == t["error"]]
    for m, t in judged:
        if t.get("state") != m.state:
            return f"DescribeGroups state {t.get('state')!r}, model {m.state!r}"
        want = sorted(ctx.to_wire.get(mid, f"?{mid}") for mid in m.members)
        if sorted(t.get("member_ids", [])) != want:
            return f"DescribeGroups members {sorted(t.get('member_ids', []))}, model {want}"
        if m.state == "Stable" and t.get("protocol") != m.protocol:
            return f"DescribeGroups protocol {t.get('protocol')!r}, model {m.protocol!r}"
    return None if judged else NA


CLAIMS = {f.__name__: f for f in (member_id_required, same_held, same_errors, generation_rules, same_protocol,
                                  leader_lists_members, leader_kept, sync_returns_leader_assignment,
                                  commit_fencing, fetch_returns_committed, describe_matches)}


def judge(ctx, expected, answers) -> dict:
    """Every claim's verdict at one step: message (violated), None (held) or NA."""
    return {name: f(ctx, expected, answers) for name, f in CLAIMS.items()}

"""The claims a group coordinator's answers are judged by, each against the model's.

Each claim compares what the target sent at one step of a scenario with what the model
coordinator sent (``scenarios.ModelStep.expected``), where Kafka's GroupCoordinator
(core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala, 3.9) fixes the
answer. Member id strings, the absolute first generation and which member leads once
the old leader is gone are the implementation's choice: ids are mapped by first
appearance, generations compared by their steps, a differing new leader ends the
scenario unjudged. A claim returns a message (violated), None (held) or NA.
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
    """A JoinGroup waits in the join purgatory until every member has rejoined or the
    rebalance times out (tryCompleteJoin / onCompleteJoin); a follower's SyncGroup waits
    for the leader's (doSyncGroup keeps its callback in CompletingRebalance); everything
    else is answered at once. So the target answers exactly the requests the model's
    coordinator answers at this step, including ones it held earlier."""
    want = {_key(s, r.kind) for s, r in expected}
    got = {_key(a["member"], a["response"]["kind"]) for a in answers if a["response"]["kind"] != "LeaveGroupResponse"}
    if want == got:
        return None
    show = lambda ks: ", ".join(f"member {s} {k}" for s, k in sorted(ks)) or "nothing"  # noqa: E731
    return f"answered {show(got - want)} the model holds; held {show(want - got)} the model answers" \
        .replace("answered nothing the model holds; ", "").replace("; held nothing the model answers", "")


def member_id_required(ctx, expected, answers):
    """KIP-394 (JoinGroup v4+): "if the member id is unknown ... the coordinator returns
    MEMBER_ID_REQUIRED with a new member id" at once (doNewMemberJoinGroup with
    requireKnownMemberId), and the member joins with that id."""
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
    """The error of each answer: UNKNOWN_MEMBER_ID for a member the group does not know,
    ILLEGAL_GENERATION for a SyncGroup/Heartbeat of another generation, REBALANCE_IN_PROGRESS
    while PreparingRebalance (and to SyncGroups waiting when a rebalance starts),
    INCONSISTENT_GROUP_PROTOCOL for a protocol the group does not support (GroupCoordinator
    handleJoinGroup, handleSyncGroup, handleHeartbeat, in that order of checks)."""
    bad = [f"member {_slot(expected, m)} {m.kind}: {t['error']}, model {m.error}"
           for m, t in pairs(expected, answers) if t["error"] != m.error]
    return "; ".join(bad) if bad else None if pairs(expected, answers) else NA


def _slot(expected, resp):
    return next(s for s, r in expected if r is resp)


def generation_rules(ctx, expected, answers):
    """initNextGeneration: every completed join increments generationId by one, and every
    member of the round gets that generation in its JoinGroupResponse. (The first value
    is the implementation's: Kafka starts at 0, so generations are compared by offset.)"""
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
    """The selected protocol (GroupMetadata.selectProtocol): the one every member supports
    with the most votes, the same in every member's JoinGroupResponse."""
    bad = [f"{t['protocol']!r} vs model {m.protocol!r}" for m, t in pairs(expected, answers)
           if m.kind == "JoinGroupResponse" and m.error == "NONE" == t["error"] and t["protocol"] != m.protocol]
    return ("selected " + "; ".join(bad)) if bad else None


def leader_lists_members(ctx, expected, answers):
    """JoinGroupResponse: the leader's carries every member of the new generation with its
    metadata (``if (isLeader) group.currentMemberMetadata``), the others' carry none; the
    leader is a member of the round."""
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
    from .wire import metadata
    return metadata(sub)


def leader_kept(ctx, expected, answers):
    """The leader stays leader while it is a member (GroupMetadata keeps leaderId across
    initNextGeneration; a new one is chosen only when it leaves). Which member leads after
    that is the implementation's choice (not judged)."""
    judged = [(m, t) for m, t in pairs(expected, answers)
              if m.kind == "JoinGroupResponse" and m.error == "NONE" == t["error"]]
    if not judged or not ctx.leader or ctx.leader != judged[0][0].leader:
        return NA
    want = ctx.to_wire.get(ctx.leader)
    bad = [t["leader"] for _, t in judged if t["leader"] != want]
    return f"leader {bad[0]}, but the leader {want} is still a member" if bad else None


def sync_returns_leader_assignment(ctx, expected, answers):
    """doSyncGroup: the leader's SyncGroup stores its assignment and each member's
    SyncGroupResponse carries the assignment the leader gave that member (empty if none)."""
    bad = [f"member {_slot(expected, m)} got {t.get('assignment')!r}, the leader gave {str(m.assignment)!r}"
           for m, t in pairs(expected, answers)
           if m.kind == "SyncGroupResponse" and m.error == "NONE" == t["error"]
           and (t.get("assignment") or "0") != str(m.assignment)]
    judged = any(m.kind == "SyncGroupResponse" and m.error == "NONE" for m, _ in pairs(expected, answers))
    return "; ".join(bad) if bad else None if judged else NA


CLAIMS = {f.__name__: f for f in (member_id_required, same_held, same_errors, generation_rules, same_protocol,
                                  leader_lists_members, leader_kept, sync_returns_leader_assignment)}


def judge(ctx, expected, answers) -> dict:
    """Every claim's verdict at one step: message (violated), None (held) or NA."""
    return {name: f(ctx, expected, answers) for name, f in CLAIMS.items()}

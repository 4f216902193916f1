"""Scenario tests for the broker-side GroupCoordinator handlers (model/consumer/coordinator.py).

Each test drives the pure handlers directly on ``Group`` values, starting from
``coordinator.new_group()``, and checks one fact of Kafka's classic GroupCoordinator
(core/.../coordinator/group/GroupCoordinator.scala, KIP-394, KIP-429).
"""
from __future__ import annotations

from groupcheck.model.consumer import coordinator as gc
from groupcheck.model.consumer.selection import candidates, select_protocol, supports
from groupcheck.model.consumer.state import (
    COMPLETING,
    DEAD,
    EMPTY,
    ILLEGAL_GENERATION,
    INCONSISTENT_GROUP_PROTOCOL,
    MEMBER_ID_REQUIRED,
    NONE,
    PREPARING,
    REBALANCE_IN_PROGRESS,
    STABLE,
    UNKNOWN_MEMBER_ID,
    Group,
    JoinGroup,
    Subscription,
)

RANGE = ("range",)
COOP = ("cooperative-sticky",)


# ------------------------------------------------------------------------------ helpers

def sub(topics: int = 1, owned: int = 0, generation: int = -1) -> Subscription:
    return Subscription(version=3, topics=topics, owned=owned, generation=generation,
                        user_data=0, user_generation=-1)


def join(group: Group, slot: int, member_id: int = 0, protocols=RANGE, subscription=None) -> gc.Outcome:
    req = JoinGroup(member_id=member_id, protocols=protocols, subscription=subscription or sub())
    return gc.join_group(group, slot, req)


def add_member(group: Group, slot: int, protocols=RANGE, subscription=None) -> tuple[gc.Outcome, int]:
    """KIP-394's two-step join: JoinGroup without an id, then with the id handed out."""
    first = join(group, slot, 0, protocols, subscription)
    (_, resp), = first.out
    assert resp.error == MEMBER_ID_REQUIRED
    return join(first.group, slot, resp.member_id, protocols, subscription), resp.member_id


def by_slot(outcome: gc.Outcome, kind: str) -> dict:
    return {slot: resp for slot, resp in outcome.out if resp.kind == kind}


def completing_pair() -> tuple[Group, int, int]:
    """Members a (slot 0, leader) and b (slot 1) in CompletingRebalance, generation 2."""
    o, a = add_member(gc.new_group(), 0)
    o, b = add_member(o.group, 1)
    o = join(o.group, 0, a)
    assert o.group.status == COMPLETING and o.group.generation == 2 and o.group.leader == a
    return o.group, a, b


def stable_pair() -> tuple[Group, int, int]:
    """The pair after both SyncGroups: a owns partition 0, b partition 1, Stable, generation 2."""
    group, a, b = completing_pair()
    group = gc.sync_group(group, 1, b, 2, ()).group
    group = gc.sync_group(group, 0, a, 2, ((a, 0b01), (b, 0b10))).group
    assert group.status == STABLE
    return group, a, b


# ------------------------------------------------------------------------------ JoinGroup

def test_join_without_member_id_gets_member_id_required_with_a_fresh_pending_id():
    """KIP-394: a JoinGroup with an empty member id is answered MEMBER_ID_REQUIRED with a new id."""
    o = join(gc.new_group(), 0)
    (slot, resp), = o.out
    assert slot == 0 and resp.error == MEMBER_ID_REQUIRED and resp.member_id == 1
    assert o.group.pending == (1,) and o.group.members == () and o.group.status == EMPTY
    again = join(o.group, 1)
    assert by_slot(again, "JoinGroupResponse")[1].member_id == 2       # never reused
    assert again.group.pending == (1, 2)


def test_join_with_issued_id_adds_the_only_member_and_completes_generation_1():
    """GroupCoordinator: the JoinGroup with the issued id adds the member; with every member joined, initNextGeneration runs."""
    o, mid = add_member(gc.new_group(), 0, subscription=sub(topics=0b11))
    g = o.group
    assert g.pending == () and [m.member_id for m in g.members] == [mid]
    assert g.status == COMPLETING and g.generation == 1 and g.leader == mid and g.protocol == "range"
    resp = by_slot(o, "JoinGroupResponse")[0]
    assert resp.error == NONE and resp.generation == 1 and resp.leader == mid and resp.protocol == "range"
    assert resp.members == ((mid, sub(topics=0b11)),)
    assert "join_completed" in [e.kind for e in o.events]


def test_leader_join_response_carries_every_subscription_and_followers_get_none():
    """GroupCoordinator: only the leader's JoinGroupResponse lists the members' metadata (it runs the assignor)."""
    o, a = add_member(gc.new_group(), 0, subscription=sub(topics=0b01))
    o, b = add_member(o.group, 1, subscription=sub(topics=0b10))
    o = join(o.group, 0, a, subscription=sub(topics=0b01))
    out = by_slot(o, "JoinGroupResponse")
    assert out[0].leader == a and out[1].leader == a
    assert out[0].members == ((a, sub(topics=0b01)), (b, sub(topics=0b10)))
    assert out[1].members == ()
    assert out[0].generation == out[1].generation == 2


def test_join_responses_wait_until_every_member_has_rejoined():
    """GroupCoordinator: PreparingRebalance holds JoinGroup responses until all known members rejoin."""
    o, a = add_member(gc.new_group(), 0)
    o, b = add_member(o.group, 1)                 # b joins a CompletingRebalance group
    assert o.group.status == PREPARING
    assert by_slot(o, "JoinGroupResponse") == {}  # b's response waits for a
    assert o.group.member(b).joined and not o.group.member(a).joined
    done = join(o.group, 0, a)
    assert done.group.status == COMPLETING and done.group.generation == 2
    assert set(by_slot(done, "JoinGroupResponse")) == {0, 1}


def test_stable_follower_rejoining_with_same_metadata_gets_current_generation_without_rebalance():
    """GroupCoordinator (Stable): a follower with unchanged metadata just gets the current generation's information."""
    group, a, b = stable_pair()
    o = join(group, 1, b)
    resp = by_slot(o, "JoinGroupResponse")[1]
    assert resp.error == NONE and resp.generation == 2 and resp.leader == a and resp.members == ()
    assert o.group == group and o.events == ()


def test_stable_leader_rejoining_with_same_metadata_forces_a_rebalance():
    """GroupCoordinator (Stable): "force a rebalance if the leader sends JoinGroup"."""
    group, a, b = stable_pair()
    o = join(group, 0, a)
    assert o.group.status == PREPARING and o.group.generation == 2
    assert by_slot(o, "JoinGroupResponse") == {}       # waits for b
    assert any(e.kind == "rebalance_started" and "leader" in e.note for e in o.events)


def test_stable_follower_with_changed_metadata_forces_a_rebalance():
    """GroupCoordinator (Stable): a member whose metadata changed triggers updateMemberAndRebalance."""
    group, a, b = stable_pair()
    o = join(group, 1, b, subscription=sub(topics=0b1, owned=0b10, generation=2))
    assert o.group.status == PREPARING
    assert o.group.member(b).subscription.owned == 0b10     # the new metadata is stored
    assert by_slot(o, "JoinGroupResponse") == {}


def test_completing_member_rejoining_with_same_metadata_gets_current_join_response():
    """GroupCoordinator (CompletingRebalance): "member is joining with the same metadata ... return current group information"."""
    group, a, b = completing_pair()
    follower = join(group, 1, b)
    assert follower.group == group
    assert by_slot(follower, "JoinGroupResponse")[1].generation == 2
    assert by_slot(follower, "JoinGroupResponse")[1].members == ()
    leader = join(group, 0, a)
    assert leader.group.status == COMPLETING and leader.group.generation == 2
    assert [mid for mid, _ in by_slot(leader, "JoinGroupResponse")[0].members] == [a, b]


def test_completing_member_rejoining_with_changed_metadata_restarts_the_rebalance():
    """GroupCoordinator (CompletingRebalance): a member with changed metadata forces updateMemberAndRebalance."""
    group, a, b = completing_pair()
    o = join(group, 1, b, subscription=sub(topics=0b11))
    assert o.group.status == PREPARING and o.group.generation == 2


# ------------------------------------------------------------------------------ SyncGroup

def test_follower_sync_waits_for_the_leader_whose_sync_stores_assignments_and_answers_everyone():
    """GroupCoordinator: SyncGroup responses wait for the leader's; its assignment is propagated and the group is Stable."""
    group, a, b = completing_pair()
    waiting = gc.sync_group(group, 1, b, 2, ())
    assert waiting.out == () and waiting.group.status == COMPLETING and waiting.group.member(b).syncing
    done = gc.sync_group(waiting.group, 0, a, 2, ((a, 0b01), (b, 0b10)))
    assert done.group.status == STABLE
    out = by_slot(done, "SyncGroupResponse")
    assert (out[0].error, out[0].assignment) == (NONE, 0b01)
    assert (out[1].error, out[1].assignment) == (NONE, 0b10)
    assert done.group.member(a).assignment == 0b01 and done.group.member(b).assignment == 0b10
    assert not any(m.syncing for m in done.group.members)


def test_leader_sync_fills_a_missing_member_with_an_empty_assignment():
    """GroupCoordinator: "fill any missing members with an empty assignment"."""
    group, a, b = completing_pair()
    done = gc.sync_group(group, 0, a, 2, ((a, 0b11),))
    assert done.group.status == STABLE and done.group.member(b).assignment == 0
    late = gc.sync_group(done.group, 1, b, 2, ())
    assert by_slot(late, "SyncGroupResponse")[1].error == NONE
    assert by_slot(late, "SyncGroupResponse")[1].assignment == 0


def test_sync_from_unknown_member_is_unknown_member_id():
    """GroupCoordinator: SyncGroup from a member not in the group gets UNKNOWN_MEMBER_ID."""
    group, a, b = completing_pair()
    o = gc.sync_group(group, 2, 99, 2, ())
    assert by_slot(o, "SyncGroupResponse")[2].error == UNKNOWN_MEMBER_ID and o.group == group


def test_sync_with_wrong_generation_is_illegal_generation():
    """GroupCoordinator: SyncGroup with a generation other than the group's gets ILLEGAL_GENERATION."""
    group, a, b = completing_pair()
    o = gc.sync_group(group, 1, b, 1, ())
    assert by_slot(o, "SyncGroupResponse")[1].error == ILLEGAL_GENERATION
    assert not o.group.member(b).syncing


def test_sync_during_preparing_rebalance_is_rebalance_in_progress():
    """GroupCoordinator (PreparingRebalance): SyncGroup gets REBALANCE_IN_PROGRESS."""
    group, a, b = stable_pair()
    preparing = join(group, 0, a).group
    assert preparing.status == PREPARING
    o = gc.sync_group(preparing, 1, b, 2, ())
    assert by_slot(o, "SyncGroupResponse")[1].error == REBALANCE_IN_PROGRESS


def test_sync_in_stable_returns_the_stored_assignment():
    """GroupCoordinator (Stable): "if the group is stable, we just return the current assignment"."""
    group, a, b = stable_pair()
    o = gc.sync_group(group, 1, b, 2, ())
    resp = by_slot(o, "SyncGroupResponse")[1]
    assert (resp.error, resp.assignment) == (NONE, 0b10) and o.group == group


def test_preparing_rebalance_answers_waiting_syncs_with_rebalance_in_progress():
    """GroupCoordinator#prepareRebalance: "if any members are awaiting sync, cancel their request and have them rejoin"."""
    group, a, b = completing_pair()
    group = gc.sync_group(group, 1, b, 2, ()).group
    o, c = add_member(group, 2)                        # a new member joins mid-sync
    assert o.group.status == PREPARING
    resp = by_slot(o, "SyncGroupResponse")[1]
    assert resp.to == b and resp.error == REBALANCE_IN_PROGRESS and resp.generation == 2
    assert not any(m.syncing for m in o.group.members)


# ------------------------------------------------------------------------------ Heartbeat

def test_heartbeat_answers_by_membership_generation_and_state():
    """GroupCoordinator#handleHeartbeat: UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS (PreparingRebalance), else NONE."""
    group, a, b = stable_pair()

    def answer(g: Group, member_id: int, generation: int) -> str:
        (_, resp), = gc.heartbeat(g, 0, member_id, generation).out
        return resp.error

    assert answer(group, 99, 2) == UNKNOWN_MEMBER_ID
    assert answer(group, b, 1) == ILLEGAL_GENERATION
    assert answer(group, b, 2) == NONE
    preparing = join(group, 0, a).group
    assert answer(preparing, b, 2) == REBALANCE_IN_PROGRESS
    assert answer(completing_pair()[0], 2, 2) == NONE            # CompletingRebalance is fine
    assert answer(gc.new_group(), 1, 0) == UNKNOWN_MEMBER_ID      # Empty group


# ------------------------------------------------------------------------------ protocol agreement

def test_member_sharing_no_protocol_with_the_group_gets_inconsistent_group_protocol():
    """GroupMetadata#supportsProtocols: a JoinGroup listing none of the group's common protocols is rejected."""
    group, a, b = stable_pair()                     # both list only "range"
    o = join(group, 2, 0, protocols=COOP)
    (slot, resp), = o.out
    assert slot == 2 and resp.error == INCONSISTENT_GROUP_PROTOCOL
    assert o.group == group                         # no id handed out, no rebalance
    ok = join(group, 2, 0, protocols=("cooperative-sticky", "range"))
    assert by_slot(ok, "JoinGroupResponse")[2].error == MEMBER_ID_REQUIRED


def test_empty_group_accepts_any_protocol_list():
    """GroupMetadata#supportsProtocols: an Empty group accepts any non-empty protocol list."""
    o, mid = add_member(gc.new_group(), 0, protocols=COOP)
    assert o.group.protocol == "cooperative-sticky"


def test_selection_considers_only_protocols_every_member_lists():
    """GroupMetadata#candidateProtocols: only protocols supported by all members are candidates."""
    members = [("cooperative-sticky", "range"), ("range",), ("roundrobin", "range", "cooperative-sticky")]
    assert candidates(members) == {"range"}
    assert select_protocol(members) == "range"
    assert select_protocol([("range",), ("cooperative-sticky",)]) is None
    assert not supports([("range",), ("range", "sticky")], ("sticky",))
    assert supports([("range",), ("range", "sticky")], ("sticky", "range"))


def test_selection_picks_the_protocol_with_most_first_preference_votes():
    """GroupMetadata#selectProtocol: each member votes for its first candidate; most votes wins."""
    assert select_protocol([("cooperative-sticky", "range"), ("cooperative-sticky", "range")]) == "cooperative-sticky"
    votes = [("roundrobin", "range"), ("range", "roundrobin"), ("range", "roundrobin")]
    assert select_protocol(votes) == "range"
    votes = [("roundrobin", "range"), ("roundrobin", "range"), ("range", "roundrobin")]
    assert select_protocol(votes) == "roundrobin"


def test_group_selects_the_agreed_protocol_at_join_completion():
    """GroupCoordinator: initNextGeneration selects the protocol all members list, by votes."""
    both = ("cooperative-sticky", "range")
    o, a = add_member(gc.new_group(), 0, protocols=both)
    assert o.group.protocol == "cooperative-sticky"
    o, b = add_member(o.group, 1, protocols=RANGE)
    o = join(o.group, 0, a, protocols=both)
    assert o.group.generation == 2 and o.group.protocol == "range"
    assert all(r.protocol == "range" for r in by_slot(o, "JoinGroupResponse").values())


# ------------------------------------------------------------------------------ membership changes

def test_removing_the_leader_rebalances_and_elects_a_remaining_member():
    """GroupCoordinator#removeMemberAndUpdateGroup: a Stable group rebalances; a new leader is chosen among the rest."""
    group, a, b = stable_pair()
    o = gc.remove_member(group, a, "session timeout")
    assert o.group.status == PREPARING and o.group.member(a) is None and o.group.leader != a
    done = join(o.group, 1, b)
    assert done.group.status == COMPLETING and done.group.generation == 3 and done.group.leader == b
    assert [mid for mid, _ in by_slot(done, "JoinGroupResponse")[1].members] == [b]


def test_removing_the_last_member_empties_the_group_and_bumps_the_generation():
    """GroupMetadata#initNextGeneration with no members: generation + 1, no protocol, Empty."""
    o, a = add_member(gc.new_group(), 0)
    group = gc.sync_group(o.group, 0, a, 1, ((a, 0b1),)).group
    assert group.status == STABLE and group.generation == 1
    empty = gc.remove_member(group, a, "LeaveGroup").group
    assert empty.status == EMPTY and empty.generation == 2 and empty.members == ()
    assert empty.protocol == "" and empty.leader == 0


def test_rebalance_timeout_removes_stragglers_then_completes_the_join():
    """GroupCoordinator#onCompleteJoin: members that did not rejoin within the rebalance timeout are removed."""
    group, a, b = stable_pair()
    o, c = add_member(group, 2)
    o = join(o.group, 0, a)
    assert o.group.status == PREPARING and not o.group.member(b).joined
    done = gc.rebalance_timeout(o.group, (b,))
    assert done.group.member(b) is None
    assert done.group.status == COMPLETING and done.group.generation == 3
    assert set(by_slot(done, "JoinGroupResponse")) == {0, 2}
    assert [mid for mid, _ in by_slot(done, "JoinGroupResponse")[0].members] == [a, c]


def test_removed_member_waiting_in_join_gets_unknown_member_id():
    """GroupCoordinator#removeMemberAndUpdateGroup: a pending JoinGroup of a removed member is answered UNKNOWN_MEMBER_ID."""
    group, a, b = stable_pair()
    o = join(group, 0, a)                   # a waits in the join purgatory
    o = gc.remove_member(o.group, a, "session timeout")
    resp = by_slot(o, "JoinGroupResponse")[0]
    assert resp.to == a and resp.error == UNKNOWN_MEMBER_ID


def test_removed_member_waiting_in_sync_gets_unknown_member_id():
    """prepareRebalance answers the others' syncs REBALANCE_IN_PROGRESS; the removed one's gets UNKNOWN_MEMBER_ID (model choice: Kafka lets it time out)."""
    o, a = add_member(gc.new_group(), 0)
    o, b = add_member(o.group, 1)
    o, c = add_member(o.group, 2)
    o = join(o.group, 0, a)
    group = o.group
    assert group.status == COMPLETING
    group = gc.sync_group(group, 1, b, group.generation, ()).group
    group = gc.sync_group(group, 2, c, group.generation, ()).group
    o = gc.remove_member(group, b, "LeaveGroup")
    out = by_slot(o, "SyncGroupResponse")
    assert out[1].error == UNKNOWN_MEMBER_ID
    assert out[2].error == REBALANCE_IN_PROGRESS
    assert o.group.status == PREPARING


def test_delete_group_makes_it_dead_and_a_join_recreates_it():
    """DeleteGroups on an Empty group marks it Dead; a later JoinGroup creates the group anew."""
    o, a = add_member(gc.new_group(), 0)
    empty = gc.remove_member(o.group, a, "LeaveGroup").group
    dead = gc.delete_group(empty)
    assert dead.group.status == DEAD and [e.kind for e in dead.events] == ["group_deleted"]
    o = join(dead.group, 0)
    assert o.group.status == EMPTY and o.group.generation == 0
    resp = by_slot(o, "JoinGroupResponse")[0]
    assert resp.error == MEMBER_ID_REQUIRED and resp.member_id not in (0, a)
    stale = join(dead.group, 0, a)          # the old member id means nothing to the new group
    assert by_slot(stale, "JoinGroupResponse")[0].error == UNKNOWN_MEMBER_ID
    again = join(o.group, 0, resp.member_id)
    assert again.group.status == COMPLETING and again.group.generation == 1

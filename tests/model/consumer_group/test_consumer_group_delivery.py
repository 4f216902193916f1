"""The record layer of the KIP-848 consumer-group model (issue 30; ``model/consumer_group/
delivery_steps.py`` over the shared ``model/delivery``): the scope fields, counts unchanged with
records off, a pinned records scope, the two-phase reconcile, and the known-bug rules each
caught by BFS with the reference passing the same scope.

(Named ``_delivery``: ``test_consumer_group_records.py`` is about __consumer_offsets records.)"""
from __future__ import annotations


import pytest

from groupcheck.checker import bfs
from groupcheck.model.consumer_group import MODEL
from groupcheck.model.consumer_group.scope import ConsumerGroupScope as S
from groupcheck.model.consumer_group.scope import from_dict, to_dict
from groupcheck.model.scopes import ScopeError


# ---- the scope ----

def test_to_dict_leaves_the_record_fields_out_while_records_is_off():
    d = to_dict(S())
    assert not {"records", "max_records", "commit_policy", "offset_reset"} & set(d)
    assert from_dict(d) == S()


def test_to_dict_keeps_the_record_fields_when_records_is_on():
    scope = S(records=True, max_records=1, commit_policy="sync-on-revoke", offset_reset="latest")
    d = to_dict(scope)
    assert (d["records"], d["max_records"], d["commit_policy"], d["offset_reset"]) == (True, 1, "sync-on-revoke", "latest")
    assert from_dict(d) == scope


@pytest.mark.parametrize("fields, message", [
    ({"commit_policy": "none"}, "scope.commit_policy: needs records: true"),
    ({"max_records": 3}, "scope.max_records: needs records: true"),
    ({"offset_reset": "latest"}, "scope.offset_reset: needs records: true"),
    ({"records": True, "max_records": 4}, "scope.max_records: 4 is outside 1..3"),
    ({"records": True, "max_records": 0}, "scope.max_records: 0 is outside 1..3"),
    ({"records": True, "commit_policy": "sometimes"}, "scope.commit_policy: unknown commit policy 'sometimes'"),
    ({"records": True, "offset_reset": "none"}, "scope.offset_reset: unknown offset reset 'none'"),
    ({"records": True, "classic": 1, "partitions": [1]}, "scope.records: the record layer runs without classic members"),
])
def test_bad_record_fields_name_the_field(fields, message):
    with pytest.raises(ScopeError) as e:
        from_dict(fields)
    assert str(e.value).startswith(message)


def test_a_record_layer_switch_needs_records():
    with pytest.raises(ScopeError, match=r"scope.switches\[0\]: kafka-16460 is a record-layer rule: it needs records: true"):
        from_dict({"switches": ["kafka-16460"]})
    assert from_dict({"records": True, "switches": ["kafka-16460"]}).switches == ("kafka-16460",)


# ---- the states ----

def _go(scope, state, *moves):
    """Take each move: a kind, or (kind, slot); the first enabled action that matches."""
    for m in moves:
        kind, slot = m if isinstance(m, tuple) else (m, None)
        acts = [a for a in MODEL.actions(scope, state) if a.kind == kind and (slot is None or a.slot == slot)]
        assert acts, (kind, slot, _kinds(scope, state))
        state, _ = MODEL.step(scope, state, acts[0])
    return state


def _kinds(scope, state, slot=None):
    return [a.kind for a in MODEL.actions(scope, state) if slot is None or a.slot == slot]


def test_with_records_off_no_state_holds_a_log_or_an_application():
    scope = S(partitions=(1,), operations=("roll",), faults=("crash",), budget=2)
    state = MODEL.init_states(scope)[0]
    assert state.logs is None and all(c.app is None for c in state.clients)
    for kind in ("send", "handle", "deliver", "reconcile", "roll", "send", "handle", "restart", "send", "crash"):
        state = _go(scope, state, kind)
        assert state.logs is None and all(c.app is None for c in state.clients)
        assert not {"poll", "process", "produce", "auto_commit"} & set(_kinds(scope, state))


# two clients start together; C2's join is handled first, so it gets t0-0, then C1's join
# makes the uniform assignor move t0-0 to C1 (m0.0, first in id order): C2 revokes it
HANDOVER = (("send", 0), ("send", 1), ("handle", 1), ("deliver", 1), ("reconcile", 1), "produce", ("poll", 1),
            ("process", 1), ("handle", 0), ("send", 1), ("handle", 1), ("deliver", 1))


def test_the_reconciliation_with_a_revocation_runs_in_two_phases_around_its_commit():
    scope = S(partitions=(1,), records=True, max_records=2)
    state = _go(scope, MODEL.init_states(scope)[0], *HANDOVER)
    c2 = state.clients[1]
    assert c2.status == "RECONCILING" and c2.owned == 1 and c2.target == 0
    # phase 1: pending revocation (unfetchable) before the commit of the positions is sent
    state = _go(scope, state, ("reconcile", 1))
    c2 = state.clients[1]
    assert c2.status == "RECONCILING" and c2.owned == 1
    cur, = c2.app.cursors
    assert cur.revoking and cur.unfetchable and c2.app.waiting == "reconcile"
    assert c2.app.commit.offsets == ((0, 1),) and c2.app.commit.generation == 1
    # one connection: the heartbeat waits for the queued commit
    assert _kinds(scope, state, 1) == ["commit_deliver"]
    state = _go(scope, state, ("commit_deliver", 1))
    assert state.logs[0].committed == 1 and state.clients[1].app.reply == ""
    # phase 2: its answer read, onPartitionsRevoked; the cursor is gone
    state = _go(scope, state, ("commit_read", 1))
    c2 = state.clients[1]
    assert c2.status == "ACKNOWLEDGING" and c2.owned == 0 and c2.app.cursors == () and c2.app.waiting == ""


def test_the_reconciliation_waits_until_the_application_processed_what_poll_returned():
    scope = S(partitions=(1,), records=True, max_records=2)
    moves = tuple(m for m in HANDOVER if m != ("process", 1))
    state = _go(scope, MODEL.init_states(scope)[0], *moves)
    assert state.clients[1].status == "RECONCILING"
    assert "reconcile" not in _kinds(scope, state, 1)
    state = _go(scope, state, ("process", 1))
    assert "reconcile" in _kinds(scope, state, 1)


def test_after_processing_the_application_commits_before_it_polls_or_reconciles_again():
    scope = S(partitions=(1,), records=True, max_records=2, commit_policy="after-processing")
    state = _go(scope, MODEL.init_states(scope)[0], *HANDOVER[:-1])
    state = _go(scope, state, "produce", ("deliver", 1))
    assert state.clients[1].app.waiting == "commit"
    assert "commit" in _kinds(scope, state, 1)
    assert not {"poll", "reconcile"} & set(_kinds(scope, state, 1))
    state = _go(scope, state, ("commit", 1))
    assert state.logs[0].committed == 1 and state.clients[1].app.waiting == ""
    assert {"poll", "reconcile"} <= set(_kinds(scope, state, 1))


def test_a_removed_members_offset_fetch_is_refused():
    """ConsumerGroup#validateOffsetFetch: an unknown member's OffsetFetch fails, so a zombie
    never initialises a position (and never becomes the partition's fetcher)."""
    scope = S(members=1, partitions=(1,), records=True, max_records=1, faults=("session_timeout",), budget=1)
    state = _go(scope, MODEL.init_states(scope)[0], "send", "handle", "deliver", "reconcile")
    assert "poll" in _kinds(scope, state)
    state = _go(scope, state, "session_timeout")
    assert state.clients[0].owned == 1 and "poll" not in _kinds(scope, state)


def _broken(scope, prev, action, nxt, events):
    out = []
    for p in MODEL.properties:
        if p.kind == "always":
            msg = p.check(scope, nxt) if p.on == "state" else p.check(scope, prev, action, nxt, events)
            if msg:
                out.append(p.name)
    return out


def test_a_zombie_processes_after_the_fault_that_removed_it_and_no_duplicate_is_claimed():
    """C1's session times out while it holds record 0; C2 takes t0-0 over from the committed
    (none: earliest) offset and processes 0; then the zombie C1 processes 0 too. A fault
    (the removal) came between: excused both ways."""
    scope = S(partitions=(1,), records=True, max_records=1, commit_policy="sync-on-revoke",
              faults=("session_timeout",), budget=1)
    state = _go(scope, MODEL.init_states(scope)[0], ("send", 0), ("handle", 0), ("deliver", 0), ("reconcile", 0),
                "produce", ("poll", 0), ("send", 1), ("session_timeout", 0), ("handle", 1), ("deliver", 1),
                ("reconcile", 1), ("poll", 1), ("process", 1))
    assert state.logs[0].done == 1 and state.logs[0].excused == 0
    action = next(a for a in MODEL.actions(scope, state) if a.kind == "process" and a.slot == 0)
    nxt, events = MODEL.step(scope, state, action)
    assert _broken(scope, state, action, nxt, events) == []
    assert nxt.logs[0].excused == 1     # what a zombie processes is excused for the next owner


# ---- pinned counts and the known bugs ----

@pytest.mark.parametrize("name, states", [("records-auto", 38686), ("records-sync", 11108)])
def test_the_record_scopes_hold_reach_their_witnesses_and_their_state_counts_are_pinned(name, states):
    from groupcheck.protocols import get
    from groupcheck.protocols.consumer_group import reference_scopes
    scope = reference_scopes()[name]
    report = bfs(MODEL, scope)
    assert report.violation is None and report.complete
    assert report.states == states
    far = get("consumer-group").out_of_reach(scope)
    assert [w for w, hit in report.witnessed.items() if not hit and w not in far] == []
    assert report.witnessed["sometimes_handover_clean"]


def _shortest(key):
    from groupcheck.properties.known_bugs.consumer_group import variant
    v = variant(key)
    return bfs(MODEL, v.buggy_scope()).violation


def test_kafka_18641_auto_commits_a_record_the_application_never_processes():
    """9 steps: C1 joins and gets t0-0, a record is produced, poll returns it, the background
    auto-commit of position 1 is accepted, C1 crashes before processing it."""
    violation = _shortest("KAFKA-18641")
    assert violation.property == "no_record_lost" and len(violation.path) - 1 == 9
    assert violation.message == "t0-0 offset 0 is below the committed offset 1 but no owner processed it"


def test_kafka_16460_returns_a_record_of_a_partition_pending_revocation():
    """13 steps: C2 owns t0-0 and hands it over to C1; with its commit before revocation in
    flight it polls a record produced meanwhile (the partition was not paused)."""
    violation = _shortest("KAFKA-16460")
    assert violation.property == "fetch_stops_at_revocation" and len(violation.path) - 1 == 13
    assert violation.message == "t0-0 was fetched from or processed by member 2 after its revocation started"


def test_kafka_20332_processes_a_record_of_a_partition_revoked_from_the_background():
    """13 steps: C2 holds record 0 of t0-0 when its revocation starts outside poll, then
    processes it."""
    violation = _shortest("KAFKA-20332")
    assert violation.property == "fetch_stops_at_revocation" and len(violation.path) - 1 == 13
    assert violation.message == "t0-0 was fetched from or processed by member 2 after its revocation started"


def test_kafka_20332_the_revocation_runs_while_the_application_holds_records_which_it_processes_after():
    """The rule revoke_only_in_poll: the reference waits for the application's poll (the test
    above this one in the reference); with kafka-20332 the revocation starts and completes while
    C2 holds record 0 (its commit carries what was processed: the positions of its last poll),
    and the revoked cursor stays until the record is processed."""
    scope = S(partitions=(1,), records=True, max_records=2)
    moves = tuple(m for m in HANDOVER if m != ("process", 1))
    state = _go(scope, MODEL.init_states(scope)[0], *moves)
    assert "reconcile" not in _kinds(scope, state, 1)
    buggy = S(partitions=(1,), records=True, max_records=2, switches=("kafka-20332",))
    assert "reconcile" in _kinds(buggy, state, 1)
    state = _go(buggy, state, ("reconcile", 1))
    c2 = state.clients[1]
    assert c2.app.commit.offsets == ((0, 0),) and c2.app.waiting == "reconcile"
    state = _go(buggy, state, ("commit_deliver", 1), ("commit_read", 1))
    c2 = state.clients[1]
    assert c2.owned == 0 and c2.status == "ACKNOWLEDGING" and state.logs[0].committed == 0
    ghost, = c2.app.cursors
    assert (ghost.position, ghost.processed, ghost.revoking, ghost.unfetchable) == (1, 0, True, True)
    state = _go(buggy, state, ("process", 1))
    assert state.clients[1].app.cursors == () and state.logs[0].done == 1


def test_a_claim_names_the_partition_of_a_second_topic_with_another_partition_count():
    """t0 has 1 partition and t1 has 2: bit 2 is t1-1 (the scope's partition index)."""
    from groupcheck.model.consumer_group.delivery_claims import no_record_lost
    from groupcheck.model.delivery import Log
    scope = S(partitions=(1, 2), records=True, max_records=1)
    state = MODEL.init_states(scope)[0]
    broken = Log(end=1, committed=1, base=0, fetcher=0, done=0, excused=0)
    state = state._replace(logs=state.logs[:2] + (broken,))
    assert no_record_lost(scope, state) == "t1-1 offset 0 is below the committed offset 1 but no owner processed it"


def test_one_connection_and_no_close_or_reconcile_across_the_applications_work():
    """close() waits for the application to process what poll returned; an interval commit
    queued behind a heartbeat waits for it (one connection, in order); the reconciliation
    waits for the client's own commit in flight."""
    scope = S(partitions=(1,), records=True, max_records=2, operations=("roll",), budget=1)
    state = _go(scope, MODEL.init_states(scope)[0], ("send", 0), ("send", 1), ("handle", 1), ("deliver", 1),
                ("reconcile", 1), "produce", ("poll", 1))
    assert state.clients[1].status == "ACKNOWLEDGING" and "roll" not in _kinds(scope, state, 1)
    state = _go(scope, state, ("process", 1))
    assert "roll" in _kinds(scope, state, 1)
    state = _go(scope, state, ("send", 1), ("auto_commit", 1))
    assert "commit_deliver" not in _kinds(scope, state, 1)
    state = _go(scope, state, ("handle", 0), ("handle", 1))
    assert "commit_deliver" in _kinds(scope, state, 1)
    state = _go(scope, state, ("deliver", 1))
    assert state.clients[1].status == "RECONCILING" and "reconcile" not in _kinds(scope, state, 1)
    state = _go(scope, state, ("commit_deliver", 1), ("commit_read", 1))
    assert "reconcile" in _kinds(scope, state, 1)


def test_the_coordinator_removing_a_member_excuses_what_it_processed_and_the_fence_drops_its_cursors():
    scope = S(members=1, partitions=(1,), records=True, max_records=1, faults=("session_timeout",), budget=1)
    state = _go(scope, MODEL.init_states(scope)[0], "send", "handle", "deliver", "reconcile", "produce", "poll",
                "process")
    assert state.logs[0].done == 1 and state.logs[0].excused == 0
    state = _go(scope, state, "session_timeout")
    assert state.logs[0].excused == 1
    state = _go(scope, state, "send", "handle", "deliver")      # UNKNOWN_MEMBER_ID: onPartitionsLost
    assert state.clients[0].status == "JOINING" and state.clients[0].app.cursors == ()


def test_onpartitionslost_drops_the_cursors_and_excuses_their_records():
    from groupcheck.model.consumer_group.delivery_steps import follow
    from groupcheck.model.consumer_group.member import Callback
    from groupcheck.model.delivery import Cursor, Log, new_app
    app = new_app()._replace(cursors=(Cursor(partition=0, position=2, processed=2, unfetchable=False, revoking=False),))
    logs = (Log(end=2, committed=-1, base=0, fetcher=1, done=3, excused=0),)
    app, logs = follow(app, logs, (Callback(kind="lost", partitions=1),))
    assert app.cursors == () and logs[0].excused == 3


def test_a_lost_commit_answer_spends_the_budget_and_excuses():
    scope = S(members=1, partitions=(1,), records=True, max_records=1, faults=("lose_response",), budget=1)
    state = _go(scope, MODEL.init_states(scope)[0], "send", "handle", "deliver", "reconcile", "produce", "poll",
                "process", "auto_commit", "commit_deliver")
    assert state.logs[0].committed == 1 and state.logs[0].excused == 0
    state = _go(scope, state, "lose_commit_reply")
    assert state.logs[0].excused == 1 and state.budget == 0 and state.clients[0].app.reply is None


def test_a_stale_commit_before_revocation_is_retried_with_the_latest_positions_and_epoch():
    """KAFKA-16033's fix (CommitRequestManager: "auto-commit before revocation should retry with
    latest consumed offsets"): a hand-made phase 1 whose commit carries an older epoch."""
    scope = S(partitions=(1,), records=True, max_records=2)
    state = _go(scope, MODEL.init_states(scope)[0], *HANDOVER, ("reconcile", 1))
    c2 = state.clients[1]
    stale = c2.app._replace(commit=c2.app.commit._replace(generation=0, offsets=((0, 0),)))
    state = state._replace(clients=(state.clients[0], c2._replace(app=stale)))
    state = _go(scope, state, ("commit_deliver", 1))
    assert state.clients[1].app.reply == "STALE_MEMBER_EPOCH" and state.logs[0].committed == -1
    state = _go(scope, state, ("commit_read", 1))
    c2 = state.clients[1]
    assert c2.status == "RECONCILING" and c2.owned == 1 and c2.app.waiting == "reconcile"
    assert c2.app.commit.generation == 1 and c2.app.commit.offsets == ((0, 1),)


def test_itf_and_text_show_the_logs_and_applications_only_with_records():
    from groupcheck.model.consumer_group.render import describe_action, describe_state, state_to_itf
    scope = S(partitions=(1,), records=True, max_records=2)
    state = MODEL.init_states(scope)[0]
    for move in HANDOVER + (("reconcile", 1),):
        kind, slot = move if isinstance(move, tuple) else (move, None)
        action = next(a for a in MODEL.actions(scope, state) if a.kind == kind and (slot is None or a.slot == slot))
        assert describe_action(scope, state, action)
        state, _ = MODEL.step(scope, state, action)
    itf = state_to_itf(scope, state)
    assert itf["logs"]["#map"][0][0] == "t0-0" and "app" in itf["clients"][1]
    text = describe_state(scope, state)
    assert "t0-0 end 1 committed -1" in text and "app " in text
    assert describe_action(scope, state, next(a for a in MODEL.actions(scope, state) if a.kind == "commit_deliver")) \
        == "the coordinator handles C2's OffsetCommit (epoch 1)"
    off = S(partitions=(1,))
    plain = MODEL.init_states(off)[0]
    assert "logs" not in state_to_itf(off, plain) and "app" not in state_to_itf(off, plain)["clients"][0]
    assert "app " not in describe_state(off, plain)

"""The record layer in the classic consumer model (issue 30): the scope fields, the record
actions, the onJoinPrepare prepare phase, the guards records add, and the known bug
KAFKA-14196 caught by BFS. Each guard test fails when its guard is deleted."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.checker import bfs
from groupcheck.model import delivery
from groupcheck.model.consumer import MODEL, NO_MEMBER, Config, ConsumerScope, from_dict, to_dict
from groupcheck.model.core import Step, check_step
from groupcheck.model.scopes import ScopeError

RANGE = (Config(("range",)),)
EAGER_AUTO = ConsumerScope(partitions=(1,), records=True, max_records=2, commit_policy="auto", faults=(), budget=0,
                           plan=RANGE, max_generation=3)
COOP_AUTO = replace(EAGER_AUTO, plan=(Config(),))

GOLDEN = {"members": 2, "partitions": [2], "max_generation": 4, "budget": 1,
          "faults": ["crash", "pause", "lose_response"], "operations": [],
          "plan": [{"assignors": ["cooperative-sticky"], "version": 3}], "profile": "kafka-3.5+",
          "behaviour": {"claim_resolution": "per-partition-generation", "validate_builtin": False, "withhold": True,
                        "leader_cooperative_aware": True, "fenced_clears_owned": True,
                        "lost_on_deleted_partitions": False, "apply_late_sync": False},
          "start": "empty"}


# ---------------------------------------------------------------- scope

def test_the_default_scope_writes_as_before_records():
    assert to_dict(ConsumerScope()) == GOLDEN


def test_record_fields_are_written_only_with_records_and_read_back():
    d = to_dict(EAGER_AUTO)
    assert (d["records"], d["max_records"], d["commit_policy"], d["offset_reset"]) == (True, 2, "auto", "earliest")
    assert "delivery" not in d["behaviour"]
    assert from_dict(d) == EAGER_AUTO
    variant = replace(EAGER_AUTO, profile="custom", behaviour=replace(EAGER_AUTO.behaviour, delivery=("kafka-14196",)))
    assert to_dict(variant)["behaviour"]["delivery"] == ["kafka-14196"]
    assert from_dict(to_dict(variant)) == variant


@pytest.mark.parametrize("change,message", [
    ({"commit_policy": "none"}, "scope.commit_policy: needs records: true"),
    ({"max_records": 3}, "scope.max_records: needs records: true"),
    ({"behaviour": {"delivery": ["kafka-14196"]}, "profile": "custom"}, "scope.behaviour.delivery: needs records: true"),
    ({"records": True, "max_records": 4}, "scope.max_records: 4 is outside 1..3"),
    ({"records": True, "commit_policy": "often"}, "scope.commit_policy: unknown commit policy 'often'"),
    ({"records": True, "offset_reset": "none"}, "scope.offset_reset: unknown offset reset 'none'"),
    ({"records": True, "behaviour": {"delivery": ["kafka-1"]}, "profile": "custom"},
     "scope.behaviour.delivery: unknown delivery switch 'kafka-1'"),
])
def test_bad_record_fields_are_named(change, message):
    with pytest.raises(ScopeError, match=message):
        from_dict({**GOLDEN, **change})


def test_without_records_no_state_carries_the_layer():
    state = MODEL.init_states(ConsumerScope())[0]
    assert state.logs is None and all(c.app is None for c in state.consumers)
    state = MODEL.init_states(EAGER_AUTO)[0]
    assert state.logs == delivery.new_logs(1) and all(c.app == delivery.new_app() for c in state.consumers)


# ---------------------------------------------------------------- driving the model

def _kinds(scope, state, slot):
    return [a.kind for a in MODEL.actions(scope, state) if a.slot == slot]


def do(scope, state, *moves):
    """Take each ``(kind, slot)`` (``produce`` takes the partition as slot) in turn; each must be enabled."""
    for kind, slot in moves:
        enabled = MODEL.actions(scope, state)
        match = [a for a in enabled if a.kind == kind and (a.slot == slot or kind == "produce" and a.arg == slot)]
        assert match, f"{kind} {slot} not enabled: {[(a.kind, a.slot) for a in enabled]}"
        state, _ = MODEL.step(scope, state, match[0])
    return state


def _joined_alone(scope):
    """C1 joined alone (generation 1), owns t0-0, and has processed record 0 (position 1)."""
    state = MODEL.init_states(scope)[0]
    return do(scope, state, ("join", 0), ("deliver", 0), ("receive", 0), ("deliver", 0), ("receive", 0),
              ("deliver", 0), ("receive", 0), ("produce", 0), ("poll", 0), ("process", 0))


def _rebalance_requested(scope):
    """Then C2 joins and C1's heartbeat answers REBALANCE_IN_PROGRESS: C1 must rejoin."""
    state = do(scope, _joined_alone(scope), ("join", 1), ("deliver", 1), ("receive", 1), ("deliver", 1),
               ("heartbeat", 0), ("deliver", 0), ("receive", 0))
    assert state.consumers[0].status == "idle" and state.consumers[0].needs_join_prepare
    return state


# ---------------------------------------------------------------- the prepare phase

def test_eager_prepare_phase_marks_commits_and_waits_then_joins():
    state = _rebalance_requested(EAGER_AUTO)
    state, events = MODEL.step(EAGER_AUTO, state, next(a for a in MODEL.actions(EAGER_AUTO, state)
                                                       if a.kind == "join" and a.slot == 0))
    c = state.consumers[0]
    assert events == () and c.outbox == () and c.status == "idle" and c.needs_join_prepare
    assert c.app.waiting == delivery.PREPARE and c.app.commit.offsets == ((0, 1),)
    assert c.app.cursors[0].revoking and c.app.cursors[0].unfetchable
    assert "join" not in _kinds(EAGER_AUTO, state, 0)               # onJoinPrepare returned false
    state = do(EAGER_AUTO, state, ("produce", 0))
    assert "poll" not in _kinds(EAGER_AUTO, state, 0)               # pending revocation: nothing fetched
    state = do(EAGER_AUTO, state, ("commit_deliver", 0))
    assert state.logs[0].committed == 1
    state, events = MODEL.step(EAGER_AUTO, state, next(a for a in MODEL.actions(EAGER_AUTO, state)
                                                       if a.kind == "commit_read"))
    c = state.consumers[0]
    assert [e.kind for e in events] == ["revoked"] and c.awaiting == "JoinGroup" and c.app.cursors == ()


def test_cooperative_prepare_phase_marks_nothing():
    state = do(COOP_AUTO, _rebalance_requested(COOP_AUTO), ("join", 0))
    app = state.consumers[0].app
    assert app.waiting == delivery.PREPARE and not app.cursors[0].revoking and not app.cursors[0].unfetchable


def test_the_prepare_answer_is_read_inside_poll():
    state = do(COOP_AUTO, _rebalance_requested(COOP_AUTO), ("join", 0), ("produce", 0), ("commit_deliver", 0),
               ("poll", 0))
    assert "commit_read" not in _kinds(COOP_AUTO, state, 0)
    state = do(COOP_AUTO, state, ("process", 0))
    assert "commit_read" in _kinds(COOP_AUTO, state, 0)


# ---------------------------------------------------------------- the guards records add

def test_join_waits_for_the_application_to_be_inside_poll():
    state = do(EAGER_AUTO, _rebalance_requested(EAGER_AUTO), ("produce", 0), ("poll", 0))
    assert "join" not in _kinds(EAGER_AUTO, state, 0)
    assert "join" in _kinds(EAGER_AUTO, do(EAGER_AUTO, state, ("process", 0)), 0)


def test_a_sync_group_response_waits_for_the_application_to_be_inside_poll():
    state = do(COOP_AUTO, _rebalance_requested(COOP_AUTO), ("join", 0), ("commit_deliver", 0), ("commit_read", 0),
               ("deliver", 0), ("receive", 0), ("deliver", 0))
    assert state.consumers[0].inbox[0].kind == "SyncGroupResponse"
    state = do(COOP_AUTO, state, ("produce", 0), ("poll", 0))
    assert "receive" not in _kinds(COOP_AUTO, state, 0)
    assert "receive" in _kinds(COOP_AUTO, do(COOP_AUTO, state, ("process", 0)), 0)


def test_bounce_waits_for_the_application_to_be_inside_poll():
    scope = replace(EAGER_AUTO, plan=RANGE * 2)
    state = do(scope, _joined_alone(scope), ("produce", 0), ("poll", 0))
    assert "bounce" not in _kinds(scope, state, 0)
    assert "bounce" in _kinds(scope, do(scope, state, ("process", 0)), 0)


def test_auto_commit_only_inside_poll_when_stable_and_the_connection_is_free():
    state = do(EAGER_AUTO, _joined_alone(EAGER_AUTO), ("produce", 0), ("poll", 0))
    assert "auto_commit" not in _kinds(EAGER_AUTO, state, 0)              # holds record 1
    state = do(EAGER_AUTO, state, ("process", 0))
    assert "auto_commit" in _kinds(EAGER_AUTO, state, 0)
    assert "auto_commit" not in _kinds(EAGER_AUTO, do(EAGER_AUTO, state, ("heartbeat", 0)), 0)   # a request queued
    joining = do(COOP_AUTO, _rebalance_requested(COOP_AUTO), ("join", 0), ("commit_deliver", 0), ("commit_read", 0),
                 ("deliver", 0), ("produce", 0), ("poll", 0), ("process", 0))
    assert joining.consumers[0].status == "joining" and not joining.consumers[0].outbox
    assert "auto_commit" not in _kinds(COOP_AUTO, joining, 0)             # generationIfStable() is null


def test_heartbeat_and_join_wait_for_a_commit_in_flight_and_its_answer():
    state = do(EAGER_AUTO, _joined_alone(EAGER_AUTO), ("auto_commit", 0))
    assert "heartbeat" not in _kinds(EAGER_AUTO, state, 0)
    state = do(EAGER_AUTO, state, ("commit_deliver", 0))
    assert "heartbeat" not in _kinds(EAGER_AUTO, state, 0)
    assert "heartbeat" in _kinds(EAGER_AUTO, do(EAGER_AUTO, state, ("commit_read", 0)), 0)


def test_after_processing_commits_before_the_next_poll():
    scope = replace(EAGER_AUTO, commit_policy="after-processing")
    state = _joined_alone(scope)
    assert state.consumers[0].app.waiting == delivery.COMMITTING
    assert _kinds(scope, state, 0) == ["heartbeat", "commit"]
    state = do(scope, state, ("produce", 0))
    assert "poll" not in _kinds(scope, state, 0)               # polls again only after its commitSync
    state = do(scope, state, ("commit", 0))
    assert state.logs[0].committed == 1 and state.consumers[0].app.waiting == ""
    assert "poll" in _kinds(scope, state, 0)


def test_sync_on_revoke_commits_before_the_cursors_drop():
    scope = replace(EAGER_AUTO, commit_policy="sync-on-revoke")
    state = do(scope, _rebalance_requested(scope), ("join", 0))
    assert state.logs[0].committed == 1 and state.consumers[0].app.cursors == ()


def test_member_removal_excuses_what_the_member_processed():
    scope = replace(EAGER_AUTO, faults=("pause",), budget=1)
    state = do(scope, _joined_alone(scope), ("pause", 0), ("session_timeout", 0))
    assert state.logs[0].excused == state.logs[0].done == 0b1


def test_a_crash_excuses_and_ends_the_application():
    scope = replace(EAGER_AUTO, faults=("crash",), budget=1)
    state = do(scope, _joined_alone(scope), ("crash", 0))
    assert state.logs[0].excused == 0b1 and state.consumers[0].app is None
    assert do(scope, state, ("restart", 0)).consumers[0].app == delivery.new_app()


# ---------------------------------------------------------------- reference scopes and KAFKA-14196

SMALL_EAGER_AUTO = replace(EAGER_AUTO, max_records=1)
KAFKA_14196 = replace(SMALL_EAGER_AUTO, profile="custom",
                      behaviour=replace(SMALL_EAGER_AUTO.behaviour, delivery=("kafka-14196",)))


def test_kafka_14196_returns_records_of_partitions_pending_revocation():
    assert bfs(MODEL, SMALL_EAGER_AUTO, symmetry=True).violation is None
    report = bfs(MODEL, KAFKA_14196, symmetry=True)
    v = report.violation
    assert (v.property, v.message) == ("fetch_stops_at_revocation",
                                       "t0-0 was fetched from or processed by member 1 after its revocation started")
    assert len(v.path) - 1 == 18


def test_cooperative_auto_commit_redelivers_without_a_fault():
    """The design's expected finding, confirmed: Kafka 3.9's onJoinComplete revokes without an
    auto-commit, so records processed during a cooperative rebalance are redelivered; the
    model's candidate fix (commit before the cooperative revocation) passes the same scope."""
    from groupcheck.properties.known_bugs.consumer import variant
    finding = variant("cooperative-auto-commit-redelivers")
    v = bfs(MODEL, finding.buggy_scope(), symmetry=True).violation
    assert v.property == "no_duplicate_without_failure" and len(v.path) - 1 == 36
    fixed = bfs(MODEL, finding.fixed_scope(), symmetry=True)
    assert fixed.violation is None and fixed.complete


def test_a_zombie_processing_is_excused_and_takes_nothing_over():
    scope = replace(EAGER_AUTO, faults=("pause",), budget=1)
    state = do(scope, _joined_alone(scope), ("join", 1), ("deliver", 1), ("receive", 1), ("deliver", 1),
               ("pause", 0), ("session_timeout", 0))
    assert state.group.member(1) is None                       # C1 (m1) is a zombie now
    state = do(scope, state, ("resume", 0), ("produce", 0), ("poll", 0))
    assert state.logs[0].fetcher == 1
    state = do(scope, state, ("process", 0))
    assert state.logs[0].done == 0b11 and state.logs[0].excused == 0b11


def test_a_commit_the_client_fails_itself_sends_nothing_and_excuses():
    scope = replace(COOP_AUTO, commit_policy="after-processing")
    state = do(scope, _rebalance_requested(scope), ("commit", 0), ("join", 0), ("produce", 0), ("poll", 0),
               ("process", 0))
    assert state.consumers[0].status == "joining"              # a rebalance in progress: no generationIfStable()
    state, events = MODEL.step(scope, state, next(a for a in MODEL.actions(scope, state) if a.kind == "commit"))
    assert events == () and state.logs[0].committed == 1 and state.logs[0].excused == 0b11


def test_a_zombies_offset_fetch_takes_nothing_over():
    scope = replace(EAGER_AUTO, faults=("pause",), budget=1)
    state = MODEL.init_states(scope)[0]
    state = do(scope, state, ("join", 0), ("deliver", 0), ("receive", 0), ("deliver", 0), ("receive", 0),
               ("deliver", 0), ("receive", 0),                                  # C1 owns t0-0, position unknown
               ("join", 1), ("deliver", 1), ("receive", 1), ("deliver", 1), ("pause", 0), ("session_timeout", 0),
               ("receive", 1), ("deliver", 1), ("receive", 1), ("poll", 1))    # C2 owns t0-0 and fetched
    assert state.logs[0].fetcher == 2
    state = do(scope, state, ("resume", 0), ("poll", 0))                     # zombie C1's OffsetFetch
    assert state.consumers[0].app.cursors[0].position == 0 and state.logs[0].fetcher == 2


def _prepare_answered(scope, error):
    """C1 in onJoinPrepare, its commit delivered and answered ``error`` (set by hand)."""
    state = do(scope, _rebalance_requested(scope), ("join", 0), ("commit_deliver", 0))
    c = state.consumers[0]
    return state._replace(consumers=(c._replace(app=c.app._replace(reply=error)),) + state.consumers[1:])


def test_a_retriable_prepare_answer_commits_again_with_the_latest_positions():
    state = do(COOP_AUTO, _prepare_answered(COOP_AUTO, "COORDINATOR_NOT_AVAILABLE"), ("produce", 0), ("poll", 0),
               ("process", 0), ("commit_read", 0))
    app = state.consumers[0].app
    assert app.waiting == delivery.PREPARE and app.commit.offsets == ((0, 2),) and app.reply is None
    assert state.consumers[0].outbox == ()


def test_a_lost_commit_answer_spends_the_budget_excuses_and_onjoinprepare_commits_again():
    """lose_commit_reply (fault lose_response): the OffsetCommit's answer never comes, the
    request times out (retriable): onJoinPrepare sends a new commit of the latest positions;
    what C1 processed may come again (excused)."""
    scope = replace(COOP_AUTO, faults=("lose_response",), budget=1)
    state = do(scope, _rebalance_requested(scope), ("join", 0), ("commit_deliver", 0))
    assert state.logs[0].committed == 1 and state.logs[0].excused == 0
    assert "lose_commit_reply" not in _kinds(replace(scope, faults=()), state, 0)
    state = do(scope, state, ("produce", 0), ("poll", 0), ("process", 0), ("lose_commit_reply", 0))
    app = state.consumers[0].app
    assert state.budget == 0 and state.logs[0].excused == 0b11
    assert app.reply is None and app.waiting == delivery.PREPARE and app.commit.offsets == ((0, 2),)
    assert "lose_commit_reply" not in _kinds(scope, do(scope, state, ("commit_deliver", 0)), 0)   # budget spent


def test_a_lost_interval_commit_answer_is_dropped():
    scope = replace(EAGER_AUTO, faults=("lose_response",), budget=1, max_records=1)
    state = do(scope, _joined_alone(scope), ("auto_commit", 0), ("commit_deliver", 0), ("lose_commit_reply", 0))
    c = state.consumers[0]
    assert c.app.reply is None and c.app.waiting == "" and c.status == "stable" and state.logs[0].excused == 1


MAX_POLL = replace(COOP_AUTO, faults=("max_poll",), budget=1)
RDKAFKA = replace(MAX_POLL, profile="custom", behaviour=replace(MAX_POLL.behaviour, delivery=("librdkafka-5604",)))


def _stuck_mid_rebalance(scope):
    """C1 rejoins (its onJoinPrepare commit answered, JoinGroup sent), then polls a record and
    does not process it: its application is stuck while the rebalance is in progress."""
    state = do(scope, _rebalance_requested(scope), ("join", 0), ("commit_deliver", 0), ("commit_read", 0),
               ("deliver", 0), ("produce", 0), ("poll", 0))
    c = state.consumers[0]
    assert c.awaiting == "JoinGroup" and not c.needs_join_prepare and c.owned == 1
    return state


def test_max_poll_needs_records():
    with pytest.raises(ScopeError, match="scope.faults: max_poll needs records: true"):
        from_dict({**GOLDEN, "faults": ["max_poll"]})


def test_max_poll_only_while_the_application_is_stuck_in_its_records():
    state = _rebalance_requested(MAX_POLL)
    assert "max_poll" not in _kinds(MAX_POLL, state, 0)        # C1 processed everything: inside poll
    state = _stuck_mid_rebalance(MAX_POLL)
    assert "max_poll" in _kinds(MAX_POLL, state, 0)


def test_max_poll_leaves_resets_and_the_next_join_loses_the_partitions():
    """The rule keep_lost_in_rebalance, reference: LeaveGroup, the member reset, onJoinPrepare
    again: onPartitionsLost(t0-0) and a JoinGroup owning nothing; what C1 processed is excused."""
    state = do(MAX_POLL, _stuck_mid_rebalance(MAX_POLL), ("max_poll", 0))
    c = state.consumers[0]
    assert state.group.member(1) is None and c.member_id == NO_MEMBER and c.generation == -1 and c.needs_join_prepare
    assert state.budget == 0 and state.logs[0].excused == 0b1
    state = do(MAX_POLL, state, ("process", 0))
    state, events = MODEL.step(MAX_POLL, state, next(a for a in MODEL.actions(MAX_POLL, state)
                                                     if a.kind == "join" and a.slot == 0))
    assert [(e.kind, e.partitions) for e in events] == [("lost", 1)] and state.consumers[0].owned == 0


def test_max_poll_strikes_only_a_member_of_the_group():
    """A member max.poll.interval.ms already reset (no member id) has left: with budget to
    spare, the fault is not enabled again while it still holds its unprocessed record."""
    scope = replace(MAX_POLL, budget=2)
    state = do(scope, _stuck_mid_rebalance(scope), ("max_poll", 0))
    c = state.consumers[0]
    assert c.member_id == NO_MEMBER and state.budget == 1 and c.app.cursors[0].processed != c.app.cursors[0].position
    assert not any(a.kind == "max_poll" and a.slot == 0 for a in MODEL.actions(scope, state))


def test_librdkafka_5604_drops_the_lost_flag_when_a_rebalance_is_in_progress():
    """keep_lost_in_rebalance flipped: the reset member keeps needsJoinPrepare false, so its next
    JoinGroup claims t0-0 with no onPartitionsLost."""
    state = do(RDKAFKA, _stuck_mid_rebalance(RDKAFKA), ("max_poll", 0), ("process", 0))
    c = state.consumers[0]
    assert c.member_id == NO_MEMBER and not c.needs_join_prepare
    state, events = MODEL.step(RDKAFKA, state, next(a for a in MODEL.actions(RDKAFKA, state)
                                                    if a.kind == "join" and a.slot == 0))
    assert not any(e.kind == "lost" for e in events) and state.consumers[0].owned == 1


def test_librdkafka_5604_counterexample():
    from groupcheck.properties.known_bugs.consumer import VARIANTS
    v = next(v for v in VARIANTS if v.key == "librdkafka-5604")
    violation = bfs(MODEL, v.buggy_scope()).violation
    assert violation.property == "lost_only_when_fenced" and len(violation.path) - 1 == 21
    assert violation.message == "C1 rejoined after a reset still claiming {t0-0}"


def test_a_fencing_prepare_answer_resets_and_loses_the_partitions():
    prev = _prepare_answered(EAGER_AUTO, "ILLEGAL_GENERATION")
    action = next(a for a in MODEL.actions(EAGER_AUTO, prev) if a.kind == "commit_read")
    state, events = MODEL.step(EAGER_AUTO, prev, action)
    assert [e.kind for e in events] == ["fenced", "lost"]
    # lost_only_when_fenced and callbacks_before_join see the reset the answer made
    assert check_step(MODEL, EAGER_AUTO, Step(prev=prev, action=action, index=0, next=state, events=events)) == []
    c = state.consumers[0]
    assert c.generation == -1 and c.awaiting == "JoinGroup" and c.app.cursors == ()
    assert state.logs[0].excused == 0b1


def test_the_record_layer_is_shown_only_in_records_scopes():
    plain = ConsumerScope()
    itf = MODEL.view.state_to_itf(plain, MODEL.init_states(plain)[0])
    assert "logs" not in itf and all("app" not in c for c in itf["consumers"])
    state = do(EAGER_AUTO, _joined_alone(EAGER_AUTO), ("produce", 0), ("poll", 0))
    itf = MODEL.view.state_to_itf(EAGER_AUTO, state)
    assert itf["logs"] == {"#map": [["t0-0", {"end": 2, "committed": -1, "base": 0, "fetcher": 1,
                                              "done": {"#set": [0]}, "excused": {"#set": []}}]]}
    assert itf["consumers"][0]["app"]["cursors"] == {"#map": [["t0-0", {"position": 2, "processed": 1,
                                                                         "unfetchable": False, "revoking": False}]]}
    text = MODEL.view.describe_state(EAGER_AUTO, state)
    assert "app t0-0@1/2" in text and text.endswith("t0-0 end 2 committed -1 base 0 done {0} excused {}")
    poll = next(a for a in MODEL.actions(EAGER_AUTO, state) if a.kind == "process")
    assert MODEL.view.describe_action(EAGER_AUTO, state, poll) == "C1 (m1): process t0-0"


def test_kafka_9741_commits_from_the_revoke_callback_with_the_previous_generation():
    from groupcheck.model.core import replay
    scope = ConsumerScope(partitions=(2,), records=True, max_records=1, commit_policy="sync-on-revoke", faults=(),
                          budget=0, max_generation=3)
    buggy = replace(scope, profile="custom", behaviour=replace(scope.behaviour, delivery=("kafka-9741",)))
    assert bfs(MODEL, scope, symmetry=True).violation is None
    v = bfs(MODEL, buggy, symmetry=True).violation
    assert v.property == "no_duplicate_without_failure" and len(v.path) - 1 == 36
    _, steps = replay(MODEL, buggy, v.path)
    (step, event), = [(s, e) for s in steps for e in s.events if e.kind == "offset_commit"]
    member = step.next.consumers[event.slot]
    # the one field the rule writes: the callback's commit carries the generation before onJoinComplete's
    assert event.note == "ILLEGAL_GENERATION" and event.commit.generation == member.generation - 1
    assert step.next.group.member(member.member_id) is not None     # a current member: no fault excuses it


def test_the_offsets_track():
    assert MODEL.view.offsets(ConsumerScope(), MODEL.init_states(ConsumerScope())[0]) == {}
    state = do(EAGER_AUTO, _joined_alone(EAGER_AUTO), ("produce", 0), ("poll", 0))
    assert MODEL.view.offsets(EAGER_AUTO, state) == {"t0-0": {"end": 2, "committed": -1, "base": 0, "done": [0],
                                                              "excused": [], "positions": {"C1": [1, 2]}}}


def test_the_witness_of_a_fault_between_processing_and_committing():
    from groupcheck.model.consumer.properties import sometimes_killed_before_commit
    scope = replace(EAGER_AUTO, faults=("crash",), budget=1)
    state = _joined_alone(scope)
    assert sometimes_killed_before_commit(scope, state) is None
    assert sometimes_killed_before_commit(scope, do(scope, state, ("crash", 0))) == (
        "t0-0: a fault struck after processing, before committing")
    assert sometimes_killed_before_commit(scope, do(scope, state, ("auto_commit", 0), ("commit_deliver", 0),
                                                    ("crash", 0))) is None      # committed first
    assert sometimes_killed_before_commit(ConsumerScope(), MODEL.init_states(ConsumerScope())[0]) is None

"""groupcheck.api, Kafka Streams: the leader's StreamsPartitionAssignor#assign on Kafka's terms."""
from __future__ import annotations

import pytest

from groupcheck.api import ApiError, StreamsAssignFailed, StreamsSubscription as Sub, TaskId, assign_streams

TASKS = [TaskId(0, p) for p in range(3)]


def t(*partitions: int) -> tuple[TaskId, ...]:
    return tuple(TaskId(0, p) for p in partitions)


def test_a_current_group_gets_the_latest_version_and_keeps_its_previous_tasks():
    out = assign_streams({"a": Sub("3.9", prev_tasks=t(1)), "b": Sub("3.9", prev_tasks=t(0, 2))},
                         leader="a", tasks=TASKS)
    assert {m: (a.version, a.commonly_supported_version, a.error_code) for m, a in out.items()} == {
        "a": (11, 11, 0), "b": (11, 11, 0)}
    assert sorted(out["a"].active_tasks + out["b"].active_tasks) == TASKS
    assert t(1) == out["a"].active_tasks[:1] and set(t(0, 2)) & set(out["b"].active_tasks)


def test_kip_268_version_probing_by_a_2_3_leader():
    """A 2.3 leader meets a 3.9 (v11) subscription: the future member gets an empty
    assignment encoded in the group's version (4), the others keep their tasks
    (StreamsPartitionAssignor#versionProbingAssignment, 2.1-2.3)."""
    out = assign_streams({"a": Sub("2.3", prev_tasks=t(0, 1)), "b": Sub("3.9", prev_tasks=t(2))},
                         leader="a", tasks=TASKS)
    assert out["a"].version == 4 and out["a"].active_tasks == t(0, 1)
    assert (out["b"].version, out["b"].commonly_supported_version, out["b"].active_tasks) == (4, 4, ())


def test_a_2_4_leader_places_a_future_member_in_a_normal_assignment():
    """Kafka 2.4-2.5 put future members into a dummy client and hand everyone a normal
    assignment (StreamsPartitionAssignorTest#shouldReturnNormalAssignmentForOldAndFutureInstancesDuringVersionProbing)."""
    out = assign_streams({"a": Sub("2.4", prev_tasks=t(0, 1)), "b": Sub("3.9", prev_tasks=t(2))},
                         leader="a", tasks=TASKS)
    assert {a.version for a in out.values()} == {5}
    assert sorted(out["a"].active_tasks + out["b"].active_tasks) == sorted(t(0, 1, 2))


def test_a_2_6_plus_leader_answers_a_future_next_to_a_v2_subscription_with_assignment_error():
    out = assign_streams({"a": Sub("3.9"), "b": Sub("3.9", upgrade_from="1.1"), "c": Sub("next")},
                         leader="a", tasks=TASKS)
    assert {a.error_code for a in out.values()} == {3}
    assert out["b"].version == 11          # errorAssignment: the leader's latest version


def test_a_v2_group_gets_no_commonly_supported_version():
    out = assign_streams({"a": Sub("1.1"), "b": Sub("1.1")}, leader="a", tasks=TASKS)
    assert {(a.version, a.commonly_supported_version) for a in out.values()} == {(2, None)}


def test_a_pre_2_0_leader_cannot_decode_a_newer_subscription():
    """KAFKA-6054: the leader's thread dies."""
    with pytest.raises(StreamsAssignFailed, match="cannot decode a v11 subscription"):
        assign_streams({"a": Sub("1.1"), "b": Sub("3.9")}, leader="a", tasks=TASKS)


def test_cooperative_withholding_of_a_task_another_member_still_owns():
    """KIP-429: b still runs 0_0 and 0_1; the task moving to a is withheld and a is asked
    to rebalance again at once."""
    out = assign_streams({"a": Sub("3.9"), "b": Sub("3.9", prev_tasks=t(0, 1, 2), owned_tasks=t(0, 1, 2))},
                         leader="a", tasks=TASKS)
    assert out["a"].active_tasks == () and out["a"].rebalance_now
    assert len(out["b"].active_tasks) == 2


def test_threads_of_one_process_form_one_client_and_standbys_go_elsewhere():
    subs = {"a1": Sub("3.9", process_id="A"), "a2": Sub("3.9", process_id="A"), "b1": Sub("3.9", process_id="B")}
    out = assign_streams(subs, leader="b1", tasks=TASKS, standby_replicas=1)
    active_a = set(out["a1"].active_tasks + out["a2"].active_tasks)
    assert active_a.isdisjoint(out["a1"].standby_tasks + out["a2"].standby_tasks)
    assert set(out["b1"].active_tasks).isdisjoint(out["b1"].standby_tasks)
    assert active_a | set(out["b1"].active_tasks) == set(TASKS)


@pytest.mark.parametrize("call, field", [
    (lambda: assign_streams({"a": Sub("9.9")}, leader="a", tasks=TASKS), "subscriptions['a'].release"),
    (lambda: assign_streams({"a": Sub("3.9", upgrade_from="5.0")}, leader="a", tasks=TASKS),
     "subscriptions['a'].upgrade_from"),
    (lambda: assign_streams({"a": Sub("3.9", prev_tasks=[(1, 0)])}, leader="a", tasks=TASKS),
     "subscriptions['a'].prev_tasks"),
    (lambda: assign_streams({"a": Sub("3.9")}, leader="z", tasks=TASKS), "leader"),
    (lambda: assign_streams({"a": Sub("3.9")}, leader="a", tasks=[]), "tasks"),
    (lambda: assign_streams({"a": Sub("3.9", process_id="P"), "b": Sub("2.4", process_id="P")}, leader="a",
                            tasks=TASKS), "subscriptions['b'].release"),
    (lambda: assign_streams({"a": Sub("3.9")}, leader="a", tasks=TASKS, profile="x"), "profile"),
    (lambda: Sub("3.9", used_version=0), "StreamsSubscription.used_version"),
    (lambda: Sub("3.9", owned_tasks=["0_1"]), "StreamsSubscription.owned_tasks[0]"),
])
def test_bad_input_raises_api_error_naming_the_field(call, field):
    with pytest.raises(ApiError) as e:
        call()
    assert str(e.value).startswith(field), str(e.value)

"""Each built-in target on a small budget: the reference passes (the self-check), the
library targets run, and kafka-python's round robin is caught failing on unequal
subscriptions. Long campaigns are ``groupcheck conform --target all``, not a test."""
import pytest

from groupcheck.console import Limits
from groupcheck.conform import driver, verdict
from groupcheck.conform.roles.assignor import targets

SMALL = driver.Settings(walks=5, walk_length=40, progress_every=1e9, only=("kip-792-zombies",))


def run(name, settings=SMALL):
    return driver.run_target(targets.builtin(name), settings, Limits(100_000, 120, "4GiB"))


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in targets.builtin_names() if n.startswith("reference:")])
def test_the_reference_passes_its_own_scenarios(name):
    r = run(name)
    data = verdict.summary(r)
    assert r.divergences == [], [(d.property, d.message) for d in r.divergences]
    assert data["invocations"] > 0 and data["info"] == 0
    assert all(s["cut"] is None and not s["not_run"] for s in data["scopes"])
    statuses = {p["property"]: p["status"] for p in data["properties"]}
    assert statuses["no_double_ownership"] == statuses["assignment_valid"] == "held"


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in targets.builtin_names() if not n.startswith(("reference:", "librdkafka:"))])
def test_library_targets_run_their_scenarios_on_a_small_budget(name):
    r = run(name)
    data = verdict.summary(r)
    assert data["distinct_inputs"] > 10 and data["states"] > 1000
    # kip-792-zombies has equal subscriptions only: none of these libraries diverges there
    assert r.divergences == [], [(d.property, d.message) for d in r.divergences]


def test_kafka_python_roundrobin_fails_on_unequal_subscriptions():
    r = run("kafka-python:roundrobin", driver.Settings(walks=0, progress_every=1e9, only=("metadata",)))
    first = r.divergences[0]
    assert first.property == "assignor_answers" and "KeyError" in first.message
    assert len(first.path) - 1 == 15          # BFS: the shortest scenario


def test_kafka_python_cooperative_sticky_keeps_a_stale_claim():
    r = run("kafka-python:cooperative-sticky",
            driver.Settings(walks=0, progress_every=1e9, only=("stale-claims-old-clients",)))
    assert [d.property for d in r.divergences] == ["generation_aware_claims"]
    assert "whose claim is of generation -1, while" in r.divergences[0].message


def test_a_cooperative_only_assignor_cannot_take_kip_429s_two_bounce_upgrade():
    r = run("kafka-python:cooperative-sticky",
            driver.Settings(walks=0, progress_every=1e9, only=("two-bounce-upgrade",)))
    assert "no rebalance protocol in common" in r.scopes[0].not_run


def test_aiokafka_sticky_class_attributes_are_reset_between_calls():
    from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
    StickyPartitionAssignor.member_assignment = ["stale"]
    t = targets.builtin("aiokafka:sticky")
    a = t.make()
    out = a.invoke("assignor", "assign", {"topics": {"t0": 1}, "members": [
        {"member_id": "consumer-001", "topics": ["t0"], "owned_partitions": [], "generation": -1, "user_data": None}]})
    assert out.ok and StickyPartitionAssignor.member_assignment is None
    assert t.claims_from == "user_data"


def test_unknown_target_names_the_known_ones():
    with pytest.raises(targets.UnknownTarget, match="known: reference:range"):
        targets.builtin("kafka-python:nope")


def test_hypothesis_drives_the_same_model_when_asked():
    r = run("reference:range", driver.Settings(walks=0, bfs=False, hypothesis=5, walk_length=30, progress_every=1e9,
                                               only=("kip-792-zombies",)))
    modes = [x.mode for x in r.scopes[0].reports]
    assert modes == ["hypothesis"] and r.scopes[0].reports[0].states >= 5 and r.divergences == []

"""Scopes from JSON, both protocols: nothing is coerced, every error names its field
path; partial behaviours override their profile; every override is labelled."""
from __future__ import annotations

import json

import pytest

from groupcheck.protocols import PROTOCOLS, get
from groupcheck.model import scopes
from groupcheck.model.consumer import scope as consumer
from groupcheck.model.scopes import ScopeError, profile_label
from groupcheck.model.streams_classic import scope as streams
from groupcheck.properties.known_bugs import consumer as consumer_bugs
from groupcheck.properties.known_bugs import streams_classic as streams_bugs


@pytest.mark.parametrize("d, message", [
    ({"partitions": "12"}, 'scope.partitions: expected a list, got "12"'),
    ({"partitions": [2, "1"]}, 'scope.partitions[1]: expected an integer, got "1"'),
    ({"members": 3.7}, "scope.members: expected an integer, got 3.7"),
    ({"members": True}, "scope.members: expected an integer, got true"),
    ({"members": "3"}, 'scope.members: expected an integer, got "3"'),
    ({"behaviour": {"withhold": "no"}}, 'scope.behaviour.withhold: expected true or false, got "no"'),
    ({"behaviour": {"withhold": 0}}, "scope.behaviour.withhold: expected true or false, got 0"),
    ({"behaviour": {"withold": False}}, "scope.behaviour: unknown key 'withold'; known: claim_resolution, "),
    ({"behaviour": {"claim_resolution": 1}}, "scope.behaviour.claim_resolution: expected a string, got 1"),
    ({"plan": [{"assignors": ["range"]}, {"assignors": ["range"], "verison": 2}]},
     "scope.plan[1]: unknown key 'verison'; known: assignors, version"),
    ({"plan": [{"assignors": "range"}]}, 'scope.plan[0].assignors: expected a list, got "range"'),
    ({"plan": [{"version": 2}]}, "scope.plan[0]: missing 'assignors'"),
    ({"plan": [{"assignors": ["range"], "version": "2"}]}, 'scope.plan[0].version: expected an integer, got "2"'),
    ({"plan": ["range"]}, 'scope.plan[0]: expected an object, got "range"'),
    ({"start": None}, "scope.start: expected a string, got null"),
    ({"faults": "crash"}, 'scope.faults: expected a list, got "crash"'),
    ({"max_generation": 10 ** 400}, "scope.max_generation: 1000000000000000000000000000000000000... is out of range"),
    ({"members": 2, "Members": 3}, "scope: unknown key 'Members'; known: members, partitions, "),
])
def test_consumer_scopes_are_never_coerced(d, message):
    with pytest.raises(ScopeError) as info:
        consumer.from_dict(d)
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize("d, message", [
    ({"tasks": "3"}, 'scope.tasks: expected an integer, got "3"'),
    ({"instances": False}, "scope.instances: expected an integer, got false"),
    ({"initial": 1.5}, "scope.initial: expected an integer, got 1.5"),
    ({"behaviour": {"honour_upgrade_from": "yes"}},
     'scope.behaviour.honour_upgrade_from: expected true or false, got "yes"'),
    ({"behaviour": {"probin": "kip-268"}}, "scope.behaviour: unknown key 'probin'; known: probing, "),
    ({"plan": ["2.3", {"release": "3.9", "upgrade.from": "2.3"}]},
     "scope.plan[1]: unknown key 'upgrade.from'; known: release, upgrade_from"),
    ({"plan": [["2.3"]]}, "scope.plan[0]: expected an object, got a list"),
])
def test_streams_scopes_are_never_coerced(d, message):
    with pytest.raises(ScopeError) as info:
        streams.from_dict(d)
    assert str(info.value).startswith(message), str(info.value)


def _all_scopes():
    for name in PROTOCOLS:
        p = get(name)
        for scope in p.default_scopes().values():
            yield p.model, scope
            for profile in p.profiles:
                yield p.model, p.with_profile(scope, profile)
    for v in consumer_bugs.VARIANTS:
        yield get("consumer").model, v.buggy_scope()
    for v in streams_bugs.VARIANTS:
        yield get("streams-classic").model, v.buggy_scope()


def test_every_scope_survives_json_and_back():
    checked = 0
    for model, scope in _all_scopes():
        d = json.loads(json.dumps(model.view.scope_to_dict(scope)))
        assert model.view.scope_from_dict(d) == scope, scope
        checked += 1
    assert checked > 30


def test_a_partial_behaviour_overrides_the_named_profile():
    scope = consumer.from_dict({"profile": "kafka-3.1-3.4", "behaviour": {"withhold": False}})
    assert scope.behaviour.claim_resolution == "highest-generation-only"     # kept from the profile
    assert scope.behaviour.withhold is False
    custom = consumer.from_dict({"profile": "custom", "behaviour": {"apply_late_sync": True}})
    assert custom.behaviour == consumer.Behaviour(apply_late_sync=True)     # over the defaults
    s = streams.from_dict({"profile": "kip-268", "behaviour": {"follower_downgrades": False}})
    assert s.behaviour == streams.Behaviour(probing="kip-268", follower_downgrades=False)


@pytest.mark.parametrize("make, label", [
    (lambda: consumer.ConsumerScope(), "kafka-3.5+"),
    (lambda: consumer.with_profile(consumer.ConsumerScope(), "kafka-3.0.0"), "kafka-3.0.0"),
    (lambda: consumer.from_dict({"behaviour": {"withhold": False}}), "kafka-3.5+ + withhold=false"),
    (lambda: consumer.from_dict({"profile": "kafka-3.1-3.4", "behaviour": {"withhold": False, "apply_late_sync": True}}),
     "kafka-3.1-3.4 + withhold=false + apply_late_sync=true"),
    # "custom": the nearest profile and what differs from it
    (lambda: consumer.from_dict({"profile": "custom", "behaviour": {"claim_resolution": "trust-all"}}),
     "kafka-3.5+ + claim_resolution=trust-all"),
    (lambda: consumer.from_dict({"profile": "custom", "behaviour": consumer.to_dict(
        consumer.with_profile(consumer.ConsumerScope(), "kafka-2.4-2.8"))["behaviour"]}), "kafka-2.4-2.8"),
    (lambda: streams.from_dict({"profile": "custom", "behaviour": {"probing": "kip-268",
                                                                   "leader_final_rebalance": False}}),
     "kip-268 + leader_final_rebalance=false"),
    (lambda: streams.from_dict({"profile": "release"}), "release"),
])
def test_profile_label_names_every_override(make, label):
    assert profile_label(make()) == label


def test_known_bug_variants_are_never_labelled_as_a_plain_profile():
    for v in consumer_bugs.VARIANTS + streams_bugs.VARIANTS:
        scope = v.buggy_scope()
        label = profile_label(scope)
        if scope.behaviour in scope.known_profiles.values():      # a release's shipped bug
            assert label in scope.known_profiles and scope.known_profiles[label] == scope.behaviour
        else:
            assert " + " in label, (v.key, label)


def test_converters_name_the_path_they_are_given():
    read = scopes.list_of(scopes.optional(scopes.integer))
    assert read([1, None, 3], "x") == (1, None, 3)
    with pytest.raises(ScopeError, match=r"^x\[2\]: expected an integer, got \"3\"$"):
        read([1, None, "3"], "x")

"""The Streams-on-classic release table (model/streams_classic/releases.py) and its scope
(scope.py): metadata versions per release, probing families, upgrade.from, the 2.4
cooperative switch, and scope validation / (de)serialisation.

Facts: ../shared/kafka-behavior.md A1 and KIP-268."""
from __future__ import annotations

from dataclasses import replace

import pytest

from groupcheck.model.streams_classic import MODEL
from groupcheck.model.streams_classic import releases as rel
from groupcheck.model.streams_classic.scope import (
    PROFILES,
    Behaviour,
    Config,
    ScopeError,
    StreamsScope,
    family,
    from_dict,
    to_dict,
    validate,
    with_profile,
)

# ------------------------------------------------------------------------------ the release table

LATEST = {
    "0.10.0": 1,
    "0.10.1": 2, "0.10.2": 2, "0.11.0": 2, "1.0": 2, "1.1": 2,
    "2.0": 3,
    "2.1": 4, "2.2": 4, "2.3": 4,
    "2.4": 5,
    "2.5": 6,
    "2.6.0": 7,
    "2.6.1": 8, "2.7": 8,
    "2.8": 9,
    "3.0": 10, "3.1": 10,
    "3.2": 11, "3.3": 11, "3.4": 11, "3.5": 11, "3.6": 11, "3.7": 11, "3.8": 11, "3.9": 11,
    "4.0": 11, "4.1": 11,
}


@pytest.mark.parametrize("name, latest", sorted(LATEST.items()))
def test_latest_supported_version_by_release(name, latest):
    assert rel.release(name).latest == latest
    assert rel.release(name).name == name


def test_the_table_has_exactly_these_releases_plus_next():
    assert set(rel.RELEASES) == set(LATEST) | {"next"}


def test_next_is_one_version_above_the_latest_release():
    assert rel.LATEST_RELEASE == "4.1"
    assert rel.release("next").latest == rel.release(rel.LATEST_RELEASE).latest + 1 == 12
    assert rel.release("next").family == rel.KAFKA_26
    assert rel.later("4.1", "next") and not rel.later("next", "4.1")


def test_versions_never_decrease_along_the_release_order():
    names = [n for n in rel.RELEASES]
    versions = [rel.release(n).latest for n in names]
    assert versions == sorted(versions)
    assert all(rel.later(a, b) for a, b in zip(names, names[1:]))


def test_2_6_alias_names_the_bug_fix_release():
    assert rel.release("2.6") == rel.release("2.6.1")
    assert rel.release("2.6").latest == 8


def test_unknown_release_is_a_key_error_listing_the_known_ones():
    with pytest.raises(KeyError, match="unknown Kafka Streams release '2.9'.*3.9"):
        rel.release("2.9")


@pytest.mark.parametrize("name, family", [
    ("0.10.0", rel.PRE_PROBING), ("0.10.1", rel.PRE_PROBING), ("1.0", rel.PRE_PROBING), ("1.1", rel.PRE_PROBING),
    ("2.0", rel.KIP_268), ("2.1", rel.KIP_268), ("2.3", rel.KIP_268), ("2.4", rel.KAFKA_26), ("2.5", rel.KAFKA_26),
    ("2.6.0", rel.KAFKA_26), ("2.6.1", rel.KAFKA_26), ("2.8", rel.KAFKA_26), ("3.9", rel.KAFKA_26),
    ("4.1", rel.KAFKA_26), ("next", rel.KAFKA_26),
])
def test_probing_family(name, family):
    assert rel.release(name).family == family


def test_the_first_probeable_version_is_2_0s():
    assert rel.EARLIEST_PROBEABLE_VERSION == rel.release("2.0").latest == 3


# ------------------------------------------------------------------------------ subscription_version

@pytest.mark.parametrize("upgrade_from, version", [
    (None, 11),
    ("0.10.0", 1),
    ("0.10.1", 2), ("0.10.2", 2), ("0.11.0", 2), ("1.0", 2), ("1.1", 2),
    # 2.0 and later: upgrade.from only switches the protocol (or FK-join compat); metadata unchanged
    ("2.0", 11), ("2.3", 11), ("2.4", 11), ("2.6", 11), ("3.1", 11), ("3.8", 11),
])
def test_subscription_version_of_3_9_for_every_upgrade_from(upgrade_from, version):
    assert rel.subscription_version("3.9", upgrade_from) == version


def test_every_upgrade_from_value_maps_to_1_2_or_latest():
    for value in rel.UPGRADE_FROM:
        want = 1 if value == "0.10.0" else 2 if rel.later(value, "2.0") else 11
        assert rel.subscription_version("4.1", value) == want, value


@pytest.mark.parametrize("name, upgrade_from, version", [
    ("0.10.1", "0.10.0", 1),      # the KAFKA-6054 backport
    ("1.1", "0.10.0", 1),
    ("1.1", None, 2),
    ("2.0", "1.1", 2),
    ("2.0", "0.10.0", 1),
    ("2.0", None, 3),
    ("2.3", "0.11.0", 2),
    ("next", "0.10.0", 1),
    ("next", "3.8", 12),
    ("next", None, 12),
])
def test_subscription_version_across_releases(name, upgrade_from, version):
    assert rel.subscription_version(name, upgrade_from) == version


# ------------------------------------------------------------------------------ rebalance protocol

@pytest.mark.parametrize("name, upgrade_from, protocol", [
    ("0.10.0", None, rel.EAGER),
    ("1.1", "0.10.0", rel.EAGER),
    ("2.0", None, rel.EAGER),
    ("2.3", None, rel.EAGER),
    ("2.4", None, rel.COOPERATIVE),
    ("2.4", "2.3", rel.EAGER),
    ("2.4", "2.0", rel.EAGER),
    ("2.4", "1.1", rel.EAGER),
    ("3.9", "0.10.0", rel.EAGER),
    ("3.9", "2.3", rel.EAGER),
    ("3.9", "2.4", rel.COOPERATIVE),
    ("3.9", "3.8", rel.COOPERATIVE),
    ("3.9", None, rel.COOPERATIVE),
    ("next", None, rel.COOPERATIVE),
])
def test_rebalance_protocol(name, upgrade_from, protocol):
    assert rel.rebalance_protocol(name, upgrade_from) == protocol


def test_cooperative_from_2_4_exactly():
    coop = [n for n in rel.RELEASES if rel.release(n).cooperative]
    assert coop[0] == "2.4"
    assert all(rel.later("2.3", n) for n in coop)
    assert not any(rel.release(n).cooperative for n in rel.RELEASES if not rel.later("2.3", n))


# ------------------------------------------------------------------------------ accepted upgrade.from values

@pytest.mark.parametrize("name, value", [
    ("0.10.1", "0.10.0"), ("0.11.0", "0.10.0"), ("1.1", "0.10.0"),
    ("2.0", "0.10.0"), ("2.0", "1.1"), ("2.3", "0.10.2"), ("2.3", "1.1"),
    ("2.4", "2.3"), ("2.4", "0.10.0"), ("2.6.1", "2.5"), ("2.7", "2.6"), ("3.9", "3.8"), ("4.1", "2.3"),
    ("next", "3.8"),
])
def test_accepted_upgrade_from(name, value):
    assert rel.accepts_upgrade_from(name, value)


@pytest.mark.parametrize("name, value, why", [
    ("0.10.0", "0.10.0", "0.10.0 has no upgrade.from config"),
    ("0.10.1", "0.10.1", "not an earlier release"),
    ("1.1", "0.10.1", "the backport accepts only 0.10.0"),
    ("1.1", "1.0", "the backport accepts only 0.10.0"),
    ("2.0", "2.0", "not an earlier release"),
    ("2.3", "2.0", "2.0-2.3 accept only 0.10.0..1.1 (KIP-268)"),
    ("2.3", "2.2", "2.0-2.3 accept only 0.10.0..1.1 (KIP-268)"),
    ("2.4", "2.4", "not an earlier release"),
    ("2.4", "2.5", "a later release"),
    ("3.9", "3.9", "3.9 is no upgrade.from value"),
    ("3.9", "2.6.1", "the value names a release line: 2.6"),
    ("2.6.0", "2.6", "its own release line"),
    ("2.6.1", "2.6", "its own release line"),
    ("3.9", "next", "not a release line"),
    ("3.9", "", "empty"),
    ("3.9", "1.2", "no such release"),
])
def test_rejected_upgrade_from(name, value, why):
    assert not rel.accepts_upgrade_from(name, value), why


def test_2_4_and_later_accept_every_earlier_release_line():
    for name in ("2.4", "3.0", "4.1"):
        accepted = [v for v in rel.UPGRADE_FROM if rel.accepts_upgrade_from(name, v)]
        assert accepted == [v for v in rel.UPGRADE_FROM if rel.later(v, name)]


# ------------------------------------------------------------------------------ scope: validation

def bad(**changes) -> ScopeError:
    with pytest.raises(ScopeError) as info:
        validate(replace(StreamsScope(), **changes))
    return info.value


@pytest.mark.parametrize("changes, field", [
    (dict(instances=0), "instances"),
    (dict(instances=6), "instances"),
    (dict(threads=0), "threads"),
    (dict(threads=4, instances=1), "threads"),
    (dict(threads=3, instances=3), "threads"),            # 9 members > 6
    (dict(tasks=0), "tasks"),
    (dict(tasks=9), "tasks"),
    (dict(standbys=3), "standbys"),                       # == instances
    (dict(standbys=-1), "standbys"),
    (dict(initial=0), "initial"),
    (dict(initial=4), "initial"),
    (dict(plan=()), "plan"),
    (dict(plan=(Config("9.9"),)), "plan[0].release"),
    (dict(plan=(Config("2.3"), Config("2.9"))), "plan[1].release"),
    (dict(plan=(Config("2.3"), Config("3.9", "3.9"))), "plan[1].upgrade_from"),
    (dict(plan=(Config("2.3", "2.2"), Config("3.9"))), "plan[0].upgrade_from"),
    (dict(plan=(Config("1.1"), Config("2.0"), Config("2.3", "2.0"))), "plan[2].upgrade_from"),
    (dict(task_assignor="balanced"), "task_assignor"),
    (dict(start="running"), "start"),
    (dict(faults=("crash", "partition")), "faults"),
    (dict(operations=("bounce", "resize")), "operations"),
    (dict(budget=-1), "budget"),
    (dict(budget=5), "budget"),
    (dict(max_generation=0), "max_generation"),
    (dict(max_generation=31), "max_generation"),
    (dict(profile="fast"), "profile"),
    (dict(behaviour=Behaviour(probing="pre-probing")), "behaviour.probing"),
])
def test_every_scope_error_names_its_field(changes, field):
    err = bad(**changes)
    assert str(err).startswith(f"scope.{field}: ")


def test_rejected_upgrade_from_message_names_release_and_value():
    err = bad(plan=(Config("2.3"), Config("3.9", "3.9")))
    assert "Kafka Streams 3.9 rejects upgrade.from='3.9'" in str(err)


def test_valid_scopes_are_returned_unchanged():
    for scope in (StreamsScope(), StreamsScope(instances=1, standbys=0, initial=1),
                  StreamsScope(instances=2, threads=3, plan=(Config("2.6"),)),
                  StreamsScope(plan=(Config("1.1"), Config("2.0", "1.1"), Config("2.0")), profile="custom"),
                  StreamsScope(task_assignor="learner", operations=("scale_up", "scale_down"), budget=4)):
        assert validate(scope) is scope


def test_the_default_scope_is_valid():
    assert validate(MODEL.view.default_scope()) == StreamsScope()


# ------------------------------------------------------------------------------ scope: from_dict / to_dict

def test_from_dict_rejects_unknown_keys_naming_them():
    with pytest.raises(ScopeError, match=r"^scope: unknown keys 'members', 'topics'; known: instances, threads, "):
        from_dict({"instances": 2, "members": 2, "topics": 1})


def test_from_dict_rejects_a_non_object():
    with pytest.raises(ScopeError, match="^scope: expected an object, got a list$"):
        from_dict([("instances", 2)])


@pytest.mark.parametrize("d, message", [
    ({"instances": "two"}, 'scope.instances: expected an integer, got "two"'),
    ({"instances": "2"}, 'scope.instances: expected an integer, got "2"'),     # no coercion
    ({"instances": 2.0}, "scope.instances: expected an integer, got 2.0"),
    ({"threads": True}, "scope.threads: expected an integer, got true"),
    ({"tasks": None}, "scope.tasks: expected an integer, got null"),
    ({"initial": "x"}, 'scope.initial: expected an integer, got "x"'),
    ({"plan": [{"upgrade_from": "2.3"}]}, "scope.plan[0]: missing 'release'"),
    ({"plan": ["2.3", {"release": "3.9", "upgrade_form": "2.3"}]},
     "scope.plan[1]: unknown key 'upgrade_form'; known: release, upgrade_from"),
    ({"plan": [{"release": 3.9}]}, "scope.plan[0].release: expected a string, got 3.9"),
    ({"plan": [{"release": "3.9", "upgrade_from": 2.3}]}, "scope.plan[0].upgrade_from: expected a string, got 2.3"),
    ({"plan": "2.3"}, 'scope.plan: expected a list, got "2.3"'),
    ({"plan": 3}, "scope.plan: expected a list, got 3"),
    ({"behaviour": {"probing": "release", "speed": 1}}, "scope.behaviour: unknown key 'speed'; known: probing, "),
    ({"behaviour": {"follower_downgrades": "no"}}, 'scope.behaviour.follower_downgrades: expected true or false, got "no"'),
    ({"behaviour": 5}, "scope.behaviour: expected an object, got 5"),
    ({"faults": 7}, "scope.faults: expected a list, got 7"),
    ({"faults": ["crash", 1]}, "scope.faults[1]: expected a string, got 1"),
    ({"operations": 1}, "scope.operations: expected a list, got 1"),
    ({"max_generation": "many"}, 'scope.max_generation: expected an integer, got "many"'),
    ({"budget": 10 ** 20}, "scope.budget: 100000000000000000000 is out of range"),
])
def test_from_dict_rejects_malformed_values_naming_the_field(d, message):
    with pytest.raises(ScopeError) as info:
        from_dict(d)
    assert str(info.value).startswith(message), str(info.value)


def test_from_dict_validates_what_it_builds():
    with pytest.raises(ScopeError, match=r"^scope\.plan\[1\]\.upgrade_from: "):
        from_dict({"plan": [{"release": "2.3"}, {"release": "3.9", "upgrade_from": "3.9"}]})
    with pytest.raises(ScopeError, match=r"^scope\.instances: 7 is outside 1\.\.5"):
        from_dict({"instances": 7})


def test_from_dict_accepts_plain_release_strings():
    scope = from_dict({"plan": ["2.3", {"release": "3.9", "upgrade_from": "2.3"}], "instances": 2})
    assert scope.plan == (Config("2.3"), Config("3.9", "2.3"))
    assert scope.instances == 2


@pytest.mark.parametrize("scope", [
    StreamsScope(),
    StreamsScope(instances=2, threads=2, tasks=4, standbys=1, initial=1, task_assignor="learner",
                 start="empty", faults=("crash",), operations=("bounce", "scale_up"), budget=2, max_generation=9),
    StreamsScope(plan=(Config("1.1"), Config("2.0", "1.1"), Config("2.0"))),
    with_profile(StreamsScope(), rel.KIP_268),
    StreamsScope(profile="custom", behaviour=Behaviour(advertise_group_min=False, follower_downgrades=False)),
])
def test_to_dict_from_dict_round_trip(scope):
    d = to_dict(scope)
    assert from_dict(d) == scope
    assert MODEL.view.scope_from_dict(MODEL.view.scope_to_dict(scope)) == scope
    assert isinstance(d["plan"], list) and isinstance(d["behaviour"], dict)


def test_to_dict_is_json_shaped():
    import json
    d = to_dict(StreamsScope(plan=(Config("2.3"), Config("3.9", "2.3"))))
    assert json.loads(json.dumps(d)) == d
    assert d["plan"] == [{"release": "2.3", "upgrade_from": None}, {"release": "3.9", "upgrade_from": "2.3"}]


def test_from_dict_profile_alone_brings_its_behaviour():
    assert from_dict({"profile": rel.KAFKA_26}).behaviour == Behaviour(probing=rel.KAFKA_26)
    given = {"probing": rel.KIP_268, "advertise_group_min": False}
    assert from_dict({"profile": "custom", "behaviour": given}).behaviour == Behaviour(**given)


# ------------------------------------------------------------------------------ profiles

@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_with_profile_sets_name_and_behaviour(profile):
    scope = with_profile(StreamsScope(), profile)
    assert scope.profile == profile and scope.behaviour == PROFILES[profile]
    assert validate(scope) is scope


def test_with_profile_rejects_an_unknown_one():
    with pytest.raises(ScopeError, match="unknown profile 'eager'; known: release, kip-268, kafka-2.6\\+"):
        with_profile(StreamsScope(), "eager")


def test_profiles_override_the_family_only_from_2_0_on():
    kip = with_profile(StreamsScope(), rel.KIP_268)
    new = with_profile(StreamsScope(), rel.KAFKA_26)
    plain = StreamsScope()
    assert family(kip, "3.9") == rel.KIP_268 and family(new, "2.3") == rel.KAFKA_26
    assert family(plain, "3.9") == rel.KAFKA_26 and family(plain, "2.3") == rel.KIP_268
    for scope in (kip, new, plain):
        assert family(scope, "1.1") == rel.PRE_PROBING

"""The model API contract: determinism, replay, clear errors."""
from __future__ import annotations

import random

import pytest

from groupcheck.model.consumer import MODEL
from groupcheck.model.consumer.scope import ConsumerScope
from groupcheck.model.core import PathError, replay

SCOPE = ConsumerScope(members=3, budget=2, faults=("crash", "pause", "lose_response", "timeout"))


def random_path(seed: int, length: int = 60) -> list[int]:
    rng = random.Random(seed)
    state = MODEL.init_states(SCOPE)[0]
    path = [0]
    for _ in range(length):
        enabled = MODEL.actions(SCOPE, state)
        if not enabled:
            break
        i = rng.randrange(len(enabled))
        path.append(i)
        state, _ = MODEL.step(SCOPE, state, enabled[i])
    return path


@pytest.mark.parametrize("seed", range(5))
def test_a_path_replays_to_identical_states(seed):
    path = random_path(seed)
    first_a, steps_a = replay(MODEL, SCOPE, path)
    first_b, steps_b = replay(MODEL, SCOPE, path)
    assert first_a == first_b
    assert [s.next for s in steps_a] == [s.next for s in steps_b]
    assert [s.events for s in steps_a] == [s.events for s in steps_b]


@pytest.mark.parametrize("seed", range(3))
def test_actions_are_deterministic_and_states_hashable(seed):
    path = random_path(seed)
    _, steps = replay(MODEL, SCOPE, path)
    for s in steps:
        assert MODEL.actions(SCOPE, s.prev) == MODEL.actions(SCOPE, s.prev)
        hash(s.next)
        hash(MODEL.canonical(SCOPE, s.next))


def test_canonical_form_ignores_which_slot_a_consumer_sits_in():
    path = random_path(7, 40)
    _, steps = replay(MODEL, SCOPE, path)
    state = steps[-1].next
    order = [2, 0, 1]
    where = {old: new for new, old in enumerate(order)}
    group = state.group
    swapped = state._replace(
        consumers=tuple(state.consumers[i] for i in order),
        group=group._replace(members=tuple(m._replace(slot=where[m.slot]) for m in group.members)))
    assert swapped != state or len(set(state.consumers)) < 3
    assert MODEL.canonical(SCOPE, swapped) == MODEL.canonical(SCOPE, state)


def test_bad_paths_fail_with_a_message_naming_the_step():
    with pytest.raises(PathError, match="initial-state index 3"):
        replay(MODEL, SCOPE, [3])
    with pytest.raises(PathError, match="step 2: action index 99 out of range"):
        replay(MODEL, SCOPE, [0, 0, 99])
    with pytest.raises(PathError, match="at least the initial-state index"):
        replay(MODEL, SCOPE, [])


def test_unknown_property_names_the_known_ones():
    with pytest.raises(KeyError, match="no_double_ownership"):
        MODEL.property("nope")


def test_every_invariant_quotes_its_source():
    """Each claim quotes the KIP sentence it enforces, or Kafka's source where the KIP is
    silent (the coordinator's rebalance triggers: KIP-429 needs "No changes ... from the
    broker side")."""
    for prop in MODEL.properties:
        if prop.kind != "sometimes":
            assert ("KIP-" in prop.doc or "Kafka's" in prop.doc) and '"' in prop.doc, prop.name


def test_a_stable_start_is_a_settled_reachable_group():
    from groupcheck.model.consumer.properties import quiescent
    scope = ConsumerScope(members=3, start="stable")
    (state,) = MODEL.init_states(scope)
    assert quiescent(scope, state)
    assert sorted(bin(c.owned).count("1") for c in state.consumers) == [0, 1, 1]
    assert state.budget == scope.budget and state.calm == 0

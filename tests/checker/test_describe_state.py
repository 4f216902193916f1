"""describe_state: the story ends with the state in which the property broke, consumers
named C1, C2, ... (with their member id), Streams threads S1, S1-2, ..."""
from __future__ import annotations

from dataclasses import fields, replace

from groupcheck import traces
from groupcheck.checker import bfs
from groupcheck.model.consumer import MODEL as CONSUMER
from groupcheck.model.core import View, replay
from groupcheck.model.streams_classic import MODEL as STREAMS
from groupcheck.properties.known_bugs.consumer import variant
from groupcheck.properties.known_bugs import streams_classic as streams_bugs


def _last(model, scope, path):
    first, steps = replay(model, scope, path)
    return steps[-1].next if steps else first


def test_consumer_state_names_the_group_and_every_consumer():
    scope = variant("KIP-429-no-withholding").buggy_scope()
    path = bfs(CONSUMER, scope).violation.path
    assert CONSUMER.view.describe_state(scope, _last(CONSUMER, scope, path)).splitlines() == [
        "group Stable, generation 2, leader m1, protocol cooperative-sticky, members m1 {t0-0}, m2 {t0-1}",
        "C1 (m1): syncing; generation 2; owns {t0-0, t0-1}; awaits SyncGroup; inbox SyncGroupResponse({t0-0})",
        "C2 (m2): stable; generation 2; owns {t0-1}; awaits nothing; inbox empty",
    ]
    first = CONSUMER.init_states(scope)[0]
    assert CONSUMER.view.describe_state(scope, first).splitlines() == [
        "group Empty, generation 0, leader none, protocol none, members none",
        "C1: idle; generation -1; owns {}; awaits nothing; inbox empty",
        "C2: idle; generation -1; owns {}; awaits nothing; inbox empty",
    ]


def test_streams_state_names_the_group_and_every_thread():
    v = streams_bugs.variant("KAFKA-8649")
    scope = replace(v.buggy_scope(), threads=2)
    path = bfs(STREAMS, scope).violation.path
    state = _last(STREAMS, scope, path)
    lines = STREAMS.view.describe_state(scope, state).splitlines()
    g = state.group
    assert lines[0].startswith(f"group {g.status}, generation {g.generation}, leader S")
    assert len(lines) == 1 + scope.instances * scope.threads
    for slot, line in enumerate(lines[1:]):
        m = state.members[slot]
        name = f"S{slot // 2 + 1}-{slot % 2 + 1}"
        release = scope.plan[state.instances[slot // 2].stage].release
        assert line.startswith(f"{name} [{release}]: {m.status}; uses v{m.used}; generation {m.generation}; ")
        assert "active [" in line and "standby [" in line and "awaits " in line
        assert ("inbox empty" in line) == (m.inbox is None)


def test_the_story_ends_with_the_state_where_the_property_broke():
    scope = variant("KIP-429-no-withholding").buggy_scope()
    v = bfs(CONSUMER, scope).violation
    lines = traces.story(CONSUMER, scope, v.path, v.message).splitlines()
    state = CONSUMER.view.describe_state(scope, _last(CONSUMER, scope, v.path)).splitlines()
    assert lines[-len(state) - 1:] == [f"state after step {len(v.path) - 1}:"] + ["  " + s for s in state]
    steps = lines[1:-len(state) - 1]
    assert steps and all("consumer " not in line for line in steps), steps     # C1, C2: one name
    assert "C2 (m2) receives SyncGroupResponse({t0-1})" in "\n".join(steps)


def test_a_model_without_describe_state_keeps_its_story():
    scope = variant("KIP-429-no-withholding").buggy_scope()
    bare = replace(CONSUMER, view=View(**{f.name: getattr(CONSUMER.view, f.name) for f in fields(View)
                                           if f.name != "describe_state"}))
    assert bare.view.describe_state(scope, CONSUMER.init_states(scope)[0]) == ""
    story = traces.story(bare, scope, [0, 0])
    assert story.splitlines() == ["consumer counterexample, 1 steps", "  1. C1: join"]

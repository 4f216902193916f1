"""``stateful.tighten``: the windowed post-pass that shortens a failing path Hypothesis
found (after ``prune``) to BFS's shortest where a short window shows a way."""
from __future__ import annotations

from groupcheck.checker import bfs
from groupcheck.model.core import first_violation, replay
from groupcheck.model.streams_classic import MODEL
from groupcheck.properties.stateful import prune, tighten
from groupcheck.properties.known_bugs.streams_classic import variant

# what a seeded hunt of KAFKA-8649-prev-tasks found, after ``prune``: 12 steps, where
# BFS's shortest takes 7 (``prune`` deletes steps and cannot replace a detour)
FOUND = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]


def test_tighten_shortens_a_found_path_to_bfs_shortest_keeping_its_property():
    v = variant("KAFKA-8649-prev-tasks")
    scope = v.buggy_scope()
    assert first_violation(MODEL, scope, *replay(MODEL, scope, FOUND))[0] == "no_task_active_twice"
    assert prune(MODEL, scope, FOUND, "no_task_active_twice") == FOUND
    tight = tighten(MODEL, scope, FOUND, "no_task_active_twice")
    assert len(tight) == len(bfs(MODEL, scope).violation.path) == 8
    assert first_violation(MODEL, scope, *replay(MODEL, scope, tight))[0] == "no_task_active_twice"


def test_tighten_leaves_a_shortest_path_alone():
    v = variant("KAFKA-8649-prev-tasks")
    shortest = bfs(MODEL, v.buggy_scope()).violation.path
    assert tighten(MODEL, v.buggy_scope(), shortest, v.expect) == shortest

"""Regression test written by `groupcheck regression` from streams-classic-warm-ups-scale_down_completes-0495caae-2.itf.json:
an instance told it is leaving while its assignment was in flight must rejoin to say so (seed 002), not settle running every task.

Replays the trace's path through the streams-classic model with the scope it was found in;
asserts that no property is violated along the path (the bug stays fixed).
"""
from groupcheck.regression import first_violation

PROTOCOL = 'streams-classic'
SCOPE = {'instances': 3,
 'threads': 1,
 'tasks': 3,
 'standbys': 1,
 'initial': 2,
 'plan': [{'release': '3.9', 'upgrade_from': None}],
 'task_assignor': 'learner',
 'start': 'stable',
 'faults': ['crash'],
 'operations': ['scale_up', 'scale_down'],
 'budget': 2,
 'max_generation': 16,
 'profile': 'release',
 'behaviour': {'probing': 'release',
               'honour_upgrade_from': True,
               'advertise_group_min': True,
               'follower_downgrades': True,
               'leader_final_rebalance': True}}
PATH = [0, 0, 0, 1, 0, 0, 0, 4, 0]


def test_no_property_violated_along_the_path():
    found = first_violation(PROTOCOL, SCOPE, PATH)
    assert found is None, f"{found.property} violated at step {found.step}: {found.message}"

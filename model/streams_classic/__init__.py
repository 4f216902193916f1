"""Kafka Streams on the classic group protocol: metadata versions and version probing
(KIP-268), upgrade.from and the 2.4 cooperative switch (KIP-429), warm-up (learner)
tasks (KIP-429). ``MODEL`` is its model API.

The names below (``__all__``) are what tools may import from this package; its modules
are its own business (tests/api/test_public_api.py holds groupcheck/ to that).
"""
from __future__ import annotations

from ..core import Model, View
from . import scope as _scope
from .components import (EARLIEST_PROBEABLE_VERSION, LEADER_FAILURE, PRE_PROBING, RELEASES, UPGRADE_FROM,
                         accepts_upgrade_from, first_version, fresh, leader_assign, rebalance_protocol, release,
                         subscription_version)
from .plans import upgrade_scope
from .properties import PROPERTIES, REBALANCES_ALLOWED
from .render import describe_action, describe_event, describe_state, owners, state_to_itf
from .scope import PROFILES, Config, StreamsScope, from_dict, to_dict, validate, with_profile
from .state import (ASSIGNMENT_ERROR, OFF, PREPARING, SYNCING, UP, Group, Instance, State, Subscription)
from .step import ACTION_KINDS, BUDGETED, CAP, actions, canonical, init_states, is_terminal_ok, quiescent, step, within_bounds

MODEL = Model(
    name="streams-classic",
    init_states=init_states,
    actions=actions,
    step=step,
    properties=PROPERTIES,
    canonical=canonical,
    within_bounds=within_bounds,
    is_terminal_ok=is_terminal_ok,
    view=View(
        default_scope=StreamsScope,
        scope_from_dict=_scope.from_dict,
        scope_to_dict=_scope.to_dict,
        state_to_itf=state_to_itf,
        describe_action=describe_action,
        describe_event=describe_event,
        describe_state=describe_state,
        owners=owners,
    ),
    action_kinds=ACTION_KINDS,
    fault_kinds=tuple(sorted(BUDGETED)),
    progress_kinds=("join", "assign", "receive", "caught_up", "stop", "start"),
    settled=is_terminal_ok,
)

__all__ = [
    # the model, its scope, profiles and upgrade plans
    "MODEL", "StreamsScope", "Config", "PROFILES", "from_dict", "to_dict", "validate", "with_profile", "upgrade_scope",
    "quiescent", "CAP",
    # rebalances_bounded's bound: rounds in a row with nothing in between (the spec's RebalancesAllowed)
    "REBALANCES_ALLOWED",
    # its state, as the assignor API, upgrade-plan and the spec mapping read it
    "State", "Group", "Instance", "Subscription", "ASSIGNMENT_ERROR", "OFF", "PREPARING", "SYNCING", "UP",
    # the conformance components (components.py)
    "EARLIEST_PROBEABLE_VERSION", "LEADER_FAILURE", "PRE_PROBING", "RELEASES", "UPGRADE_FROM",
    "accepts_upgrade_from", "first_version", "fresh", "leader_assign", "rebalance_protocol", "release",
    "subscription_version",
]

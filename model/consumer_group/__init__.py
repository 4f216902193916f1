"""KIP-848 consumer groups: the ConsumerGroupHeartbeat RPC, group / assignment / member epochs
on the shared epoch core (``model/epochs/``), server-side assignors, reconciliation, the Java
consumer's member, static membership, records and replay, failover. See README.md.

The names below (``__all__``) are what tools may import from this package; its modules
are its own business (tests/api/test_public_api.py holds groupcheck/ to that).
"""
from __future__ import annotations

from ..core import Model, View
from . import scope as _scope
from .components import (Cluster, heartbeat, new_group, new_target, offset_commit, on_response, partition_index,
                         partition_names, reconcile)
from .profiles import PROFILES
from .properties import PROPERTIES
from .render import describe_action, describe_event, describe_state, offsets, owners, state_to_itf
from .scope import ConsumerGroupScope, from_dict, to_dict, validate, with_profile
from .state import ERROR_NAMES, ConsumerGroupHeartbeat, TopicPartitions
from .step import K, ACTION_KINDS, BUDGETED, PROGRESS, actions, canonical, init_states, converged_group, is_terminal_ok, settled, step, within_bounds
from .world import Handled, State

MODEL = Model(
    name="consumer-group",
    init_states=init_states,
    actions=actions,
    step=step,
    properties=PROPERTIES,
    canonical=canonical,
    within_bounds=within_bounds,
    is_terminal_ok=is_terminal_ok,
    view=View(
        default_scope=ConsumerGroupScope,
        scope_from_dict=_scope.from_dict,
        scope_to_dict=_scope.to_dict,
        state_to_itf=state_to_itf,
        describe_action=describe_action,
        describe_event=describe_event,
        describe_state=describe_state,
        owners=owners,
        offsets=offsets,
    ),
    action_kinds=ACTION_KINDS,
    fault_kinds=tuple(sorted(BUDGETED)),
    progress_kinds=PROGRESS,
    settled=settled,
    converged=converged_group,
)

__all__ = [
    # the model, its scope and profiles
    "MODEL", "ConsumerGroupScope", "PROFILES", "from_dict", "to_dict", "validate", "with_profile",
    # the rule numbers the spec states as constants (the spec mapping supplies them)
    "K",
    # its state and messages, as conformance, the spec mapping and trace-check read them
    "State", "Handled", "ConsumerGroupHeartbeat", "TopicPartitions", "ERROR_NAMES",
    # the conformance components (components.py)
    "Cluster", "heartbeat", "new_group", "new_target", "offset_commit", "on_response", "partition_index",
    "partition_names", "reconcile",
]

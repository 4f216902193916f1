"""KIP-1071 streams groups: the StreamsGroupHeartbeat RPC, group / assignment / member
epochs on the shared epoch core (``model/epochs/``), topology epochs and fencing,
NOT_READY states, reconciliation of active, standby and warm-up tasks.

README.md says what exists and what comes next. The names below (``__all__``) are what
tools may import from this package; its modules are its own business
(tests/api/test_public_api.py holds groupcheck/ to that).
"""
from __future__ import annotations

from ..core import Model, View
from . import scope as _scope
from .components import Cluster, heartbeat, new_group, new_target, on_response
from .group import Group, task_index
from .profiles import PROFILES
from .properties import PROPERTIES
from .render import describe_action, describe_event, describe_state, owners, state_to_itf
from .state import (ERRORS, STATUS_NAMES, StreamsGroupHeartbeat, StreamsGroupHeartbeatResponse, Subtopology, TaskIds,
                    TopicInfo, Topology)
from .scope import MAX_PARTITIONS, StreamsGroupScope, from_dict, to_dict, validate, with_profile
from .step import K, ACTION_KINDS, BUDGETED, PROGRESS, actions, canonical, init_states, converged_group, is_terminal_ok, settled, step, within_bounds
from .step import index as scope_task_index
from .world import State

MODEL = Model(
    name="streams-group",
    init_states=init_states,
    actions=actions,
    step=step,
    properties=PROPERTIES,
    canonical=canonical,
    within_bounds=within_bounds,
    is_terminal_ok=is_terminal_ok,
    view=View(
        default_scope=StreamsGroupScope,
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
    progress_kinds=PROGRESS,
    settled=settled,
    converged=converged_group,
)

__all__ = [
    # the model, its scope and profiles
    "MODEL", "StreamsGroupScope", "PROFILES", "from_dict", "to_dict", "validate", "with_profile",
    # its state, as the spec mapping reads it; the task index a scope's group holds; the most
    # partitions a source topic may have (the spec's MaxPartitions)
    "State", "Group", "scope_task_index", "MAX_PARTITIONS", "K",
    # the conformance components (components.py)
    "Cluster", "heartbeat", "new_group", "new_target", "on_response",
    # the StreamsGroupHeartbeat messages and codes, and the task index of a group, as
    # conformance builds requests and reads answers (roles/group_coordinator/compare_1071.py)
    "StreamsGroupHeartbeat", "StreamsGroupHeartbeatResponse", "Topology", "Subtopology", "TopicInfo", "TaskIds",
    "ERRORS", "STATUS_NAMES", "task_index",
]

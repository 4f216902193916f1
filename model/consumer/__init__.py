"""The classic consumer group protocol: group coordinator + ConsumerCoordinator
(KIP-429 cooperative rebalancing, KIP-792 generations). ``MODEL`` is its model API.

The names below (``__all__``) are what tools may import from this package; its modules
are its own business (tests/api/test_public_api.py holds groupcheck/ to that).
"""
from __future__ import annotations

from ..core import Model, View
from . import scope as _scope
from .components import (Outcome, chain, claim_of, handle_request, maybe_complete_join, new_group, protocol_of,
                         rebalance_timeout, receive, remove_member, run_assignor, select_protocol, sends_leave_group,
                         unreachable)
from .probes import (COORDINATOR_NOT_AVAILABLE, NO_OFFSET, DescribeGroups, DescribeGroupsResponse, OffsetCommit,
                     OffsetCommitResponse, OffsetFetch, OffsetFetchResponse, describe_group, offset_commit,
                     offset_commit_error, offset_fetch, stored_after)
from .properties import PROPERTIES, converged, quiescent
from .render import describe_action, describe_event, describe_state, offsets, owners, state_to_itf
from .scope import PROFILES, Behaviour, Config, ConsumerScope, from_dict, to_dict, validate, with_profile
from .state import (DOWN, EMPTY, ILLEGAL_GENERATION, NO_MEMBER, NONE, PREPARING, REBALANCE_IN_PROGRESS, STABLE, Heartbeat,
                    JoinGroup, LeaveGroup, State, Subscription, SyncGroup)
from .step import CALM_CAP, ACTION_KINDS, BUDGETED, actions, canonical, init_states, is_terminal_ok, step, within_bounds

MODEL = Model(
    name="consumer",
    init_states=init_states,
    actions=actions,
    step=step,
    properties=PROPERTIES,
    canonical=canonical,
    within_bounds=within_bounds,
    is_terminal_ok=is_terminal_ok,
    view=View(
        default_scope=ConsumerScope,
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
    progress_kinds=("receive", "deliver", "join", "restart", "resume"),
    settled=quiescent,
    converged=converged,
)

__all__ = [
    # the model, its scope and profiles
    "MODEL", "ConsumerScope", "Config", "Behaviour", "PROFILES", "from_dict", "to_dict", "validate", "with_profile",
    # the rule number the spec states as a constant (the spec mapping supplies it)
    "CALM_CAP",
    # its state and messages, as conformance and the spec mapping read them
    "State", "Subscription", "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup",
    "DOWN", "EMPTY", "PREPARING", "STABLE", "NO_MEMBER", "NONE", "ILLEGAL_GENERATION", "REBALANCE_IN_PROGRESS",
    # the conformance components (components.py)
    "Outcome", "chain", "claim_of", "handle_request", "maybe_complete_join", "new_group", "protocol_of",
    "rebalance_timeout", "receive", "remove_member", "run_assignor", "select_protocol", "sends_leave_group",
    "unreachable",
    # requests that do not move the group (probes.py): commits, fetches, DescribeGroups
    "OffsetCommit", "OffsetFetch", "DescribeGroups", "OffsetCommitResponse", "OffsetFetchResponse",
    "DescribeGroupsResponse", "COORDINATOR_NOT_AVAILABLE", "NO_OFFSET", "offset_commit_error", "offset_commit",
    "offset_fetch", "describe_group", "stored_after", "quiescent",
]

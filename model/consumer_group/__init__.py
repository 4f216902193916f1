"""KIP-848 consumer groups: the ConsumerGroupHeartbeat RPC, group / assignment / member epochs
on the shared epoch core (``model/epochs/``), server-side assignors, reconciliation, the Java
consumer's member, static membership, records and replay, failover. See README.md."""
from __future__ import annotations

from ..core import Model, View
from . import scope as _scope
from .properties import PROPERTIES
from .render import describe_action, describe_event, describe_state, owners, state_to_itf
from .scope import ConsumerGroupScope
from .step import ACTION_KINDS, BUDGETED, PROGRESS, actions, canonical, init_states, is_terminal_ok, settled, step, within_bounds

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
    ),
    action_kinds=ACTION_KINDS,
    fault_kinds=tuple(sorted(BUDGETED)),
    progress_kinds=PROGRESS,
    settled=settled,
)

"""The classic consumer group protocol: group coordinator + ConsumerCoordinator
(KIP-429 cooperative rebalancing, KIP-792 generations). ``MODEL`` is its model API."""
from __future__ import annotations

from ..core import Model, View
from . import scope as _scope
from .properties import PROPERTIES, quiescent
from .render import describe_action, describe_event, describe_state, owners, state_to_itf
from .scope import ConsumerScope
from .step import ACTION_KINDS, BUDGETED, actions, canonical, init_states, is_terminal_ok, step, within_bounds

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
    ),
    action_kinds=ACTION_KINDS,
    fault_kinds=tuple(sorted(BUDGETED)),
    progress_kinds=("receive", "deliver", "join", "restart", "resume"),
    settled=quiescent,
)

"""Kafka Streams on the classic group protocol: metadata versions and version probing
(KIP-268), upgrade.from and the 2.4 cooperative switch (KIP-429), warm-up (learner)
tasks (KIP-429). ``MODEL`` is its model API."""
from __future__ import annotations

from ..core import Model, View
from . import scope as _scope
from .properties import PROPERTIES
from .render import describe_action, describe_event, describe_state, owners, state_to_itf
from .scope import StreamsScope
from .step import ACTION_KINDS, BUDGETED, actions, canonical, init_states, is_terminal_ok, step, within_bounds

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

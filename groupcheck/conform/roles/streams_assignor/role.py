"""The streams-assignor role as the conformance driver runs it (``roles.Role``)."""
from __future__ import annotations

from groupcheck.model.streams_classic import MODEL, to_dict

from .. import Role
from ..driven import command_for
from . import targets
from .recorder import PER_INVOCATION, Recorder, conform_model
from .scenarios import configurable, excluded, scopes

ROLE = Role("streams-assignor", Recorder, conform_model, scopes, excluded, configurable, MODEL, PER_INVOCATION,
            targets.resolve, to_dict, "the streams-classic model",
            command=command_for(targets, scopes, "--role streams-assignor"))

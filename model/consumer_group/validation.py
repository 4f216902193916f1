"""ConsumerGroupHeartbeat request validation, per profile, in Kafka's order of checks and with
Kafka's messages.

    validate(request, profile, assignors) -> Error | None

Kafka 4.0+: ``GroupCoordinatorService#throwIfConsumerGroupHeartbeatRequestIsInvalid`` before
the request reaches the coordinator shard; 3.7 / 3.8: the same checks in
``GroupMetadataManager#throwIfConsumerGroupHeartbeatRequestIsInvalid`` (apache/kafka tag 3.7.0,
checked there), in another order (GroupId, InstanceId, RackId first; MemberId with the epoch
branches, also at -2; names non-empty at join). A regex that does not compile is
INVALID_REGULAR_EXPRESSION: under the KIP profile here (last), in 4.0+ in the coordinator once the
member is known and only for a regex no member uses yet (GroupMetadataManager#
maybeUpdateRegularExpressions calls ``throwIfRegularExpressionIsInvalid``).

Each rule is a ``Rule`` written against ``Ops`` (``PY`` here, z3's in
``properties/smt/consumer_group_request_validation.py``) over a ``View`` (the facts of the
request the rules read), so one rule list is run here and proved there. Kafka's
``throwIfEmptyString`` treats a blank string (Java ``trim().isEmpty()``) as empty; so does every
profile here.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable, NamedTuple

from ..epochs.rules import PY, Ops   # the rule language the z3 queries share
from .profiles import MEMBER_ID_ALWAYS, REGEX_REJECTED, REGEX_SYNC, profile as _profile
from .state import ERRORS, JOIN_EPOCH, LEAVE_EPOCH, LEAVE_STATIC_EPOCH, ConsumerGroupHeartbeat

INVALID_REQUEST = "INVALID_REQUEST"


class Error(NamedTuple):
    """An error response: the code's name (a key of ``state.ERRORS``) and Kafka's message."""

    code: str
    message: str | None

    @property
    def error_code(self) -> int:
        return ERRORS[self.code]


class View(NamedTuple):
    """What the rules read of a request."""

    epoch: Any
    member_blank: Any
    group_blank: Any
    instance_null: Any
    instance_blank: Any
    rack_blank: Any
    rebalance_timeout_ms: Any
    partitions_null: Any
    partitions_empty: Any
    names_null: Any
    names_empty: Any
    regex_null: Any
    regex_invalid: Any
    assignor_unknown: Any


_JAVA_WHITESPACE = "".join(chr(c) for c in range(33))   # what Java's String#trim removes


def _blank(s: str | None) -> bool:
    return s is not None and s.strip(_JAVA_WHITESPACE) == ""


def regex_compiles(regex: str) -> bool:
    try:
        re.compile(regex)
    except re.error:
        return False
    return True


def view(r: ConsumerGroupHeartbeat, assignors: tuple[str, ...]) -> View:
    return View(epoch=r.member_epoch, member_blank=_blank(r.member_id), group_blank=_blank(r.group_id),
                instance_null=r.instance_id is None, instance_blank=_blank(r.instance_id),
                rack_blank=_blank(r.rack_id), rebalance_timeout_ms=r.rebalance_timeout_ms,
                partitions_null=r.topic_partitions is None, partitions_empty=not r.topic_partitions,
                names_null=r.subscribed_topic_names is None, names_empty=not r.subscribed_topic_names,
                regex_null=r.subscribed_topic_regex is None,
                regex_invalid=r.subscribed_topic_regex is not None and not regex_compiles(r.subscribed_topic_regex),
                assignor_unknown=r.server_assignor is not None and r.server_assignor not in assignors)


class Rule(NamedTuple):
    name: str
    code: str
    fires: Callable[[View, Ops], Any]
    message: Callable[[ConsumerGroupHeartbeat, tuple], str | None]


def _const(text: str):
    return lambda r, assignors: text


_MEMBER_ID = _const("MemberId can't be empty.")
_GROUP = Rule("group_id", INVALID_REQUEST, lambda v, o: v.group_blank, _const("GroupId can't be empty."))
_INSTANCE = Rule("instance_id_empty", INVALID_REQUEST, lambda v, o: v.instance_blank,
                 _const("InstanceId can't be empty."))
_RACK = Rule("rack_id_empty", INVALID_REQUEST, lambda v, o: v.rack_blank, _const("RackId can't be empty."))
_TIMEOUT = Rule("rebalance_timeout_at_join", INVALID_REQUEST,
                lambda v, o: o.And(v.epoch == JOIN_EPOCH, v.rebalance_timeout_ms == -1),
                _const("RebalanceTimeoutMs must be provided in first request."))
_PARTITIONS = Rule("topic_partitions_at_join", INVALID_REQUEST,
                   lambda v, o: o.And(v.epoch == JOIN_EPOCH, o.Or(v.partitions_null, o.Not(v.partitions_empty))),
                   _const("TopicPartitions must be empty when (re-)joining."))
_STATIC_LEAVE = Rule("instance_id_at_static_leave", INVALID_REQUEST,
                     lambda v, o: o.And(v.epoch == LEAVE_STATIC_EPOCH, v.instance_null),
                     _const("InstanceId can't be null."))
_EPOCH = Rule("member_epoch", INVALID_REQUEST, lambda v, o: v.epoch < LEAVE_STATIC_EPOCH,
              _const("MemberEpoch is invalid."))
_ASSIGNOR = Rule("server_assignor", "UNSUPPORTED_ASSIGNOR", lambda v, o: v.assignor_unknown,
                 lambda r, a: f"ServerAssignor {r.server_assignor} is not supported. Supported assignors: "
                              f"{', '.join(a)}.")
_REGEX_INVALID = Rule("regex_invalid", "INVALID_REGULAR_EXPRESSION", lambda v, o: v.regex_invalid,
                      lambda r, a: f"SubscribedTopicRegex `{r.subscribed_topic_regex}` is not a valid regular "
                                   "expression.")
# 3.7 / 3.8: the request schema had no SubscribedTopicRegex (apache/kafka #14956 removed it;
# KAFKA-17592 added it back, first rejected with this message, then resolved in 4.0).
_REGEX_UNSUPPORTED = Rule("regex_unsupported", INVALID_REQUEST, lambda v, o: o.Not(v.regex_null),
                          _const("SubscribedTopicRegex is not supported yet."))


@lru_cache(maxsize=None)
def rules(p) -> tuple[Rule, ...]:
    """The profile's rules in its order of checks."""
    p = _profile(p)
    if p.join_needs_nonempty_names:   # 3.7.0 / 3.8.0 GroupMetadataManager
        return (_GROUP, _INSTANCE, _RACK, _REGEX_UNSUPPORTED,
                Rule("member_id", INVALID_REQUEST,
                     lambda v, o: o.And(v.member_blank, o.Or(v.epoch > 0, v.epoch == LEAVE_EPOCH,
                                                             v.epoch == LEAVE_STATIC_EPOCH)), _MEMBER_ID),
                _TIMEOUT, _PARTITIONS,
                Rule("names_at_join", INVALID_REQUEST,
                     lambda v, o: o.And(v.epoch == JOIN_EPOCH, o.Or(v.names_null, v.names_empty)),
                     _const("SubscribedTopicNames must be set in first request.")),
                _STATIC_LEAVE, _EPOCH, _ASSIGNOR)
    if p.member_id_required == MEMBER_ID_ALWAYS:   # v1+: CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION
        member = Rule("member_id", INVALID_REQUEST, lambda v, o: v.member_blank, _MEMBER_ID)
    else:   # v0: "memberEpoch > 0 || memberEpoch == LEAVE_GROUP_MEMBER_EPOCH"; the KIP: not at join
        member = Rule("member_id", INVALID_REQUEST, lambda v, o: o.And(v.member_blank, v.epoch != JOIN_EPOCH),
                      _MEMBER_ID)
    names = Rule("subscription_at_join", INVALID_REQUEST,
                 lambda v, o: o.And(v.epoch == JOIN_EPOCH, v.names_null, v.regex_null),
                 _const("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining."))
    out = [member, _GROUP, _INSTANCE, _RACK, _TIMEOUT, _PARTITIONS, names, _STATIC_LEAVE, _EPOCH, _ASSIGNOR]
    if p.regex == REGEX_REJECTED:
        out.append(_REGEX_UNSUPPORTED)
    elif p.regex == REGEX_SYNC:   # the KIP profile: refused with the request
        out.append(_REGEX_INVALID)
    # 4.0+: compiled in the coordinator, only when no member uses the regex yet
    # (maybeUpdateRegularExpressions; ``coordinator_update.invalid_new_regex``)
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def validate(request: ConsumerGroupHeartbeat, profile="kip-848", assignors: tuple[str, ...] | None = None
             ) -> Error | None:
    """The error ``request`` is answered with before the group is looked up, or None.
    ``assignors``: the broker's server assignors (None: the profile's)."""
    p = _profile(profile)
    names = p.assignors if assignors is None else tuple(assignors)
    v = view(request, names)
    for rule in rules(p):
        if rule.fires(v, PY):
            return Error(rule.code, rule.message(request, names))
    return None


__all__ = ["Error", "Ops", "PY", "Rule", "View", "rules", "validate", "view", "regex_compiles"]

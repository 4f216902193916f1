"""The member side of a KIP-848 consumer group: what the Java consumer (``group.protocol=
consumer``) sends in its ConsumerGroupHeartbeat and what it does with the response.

Sources (apache/kafka, clients/src/main/java/org/apache/kafka/clients/consumer/internals/):

* ``AbstractMembershipManager#onHeartbeatSuccess``: a response is ignored while LEAVING or
  when not in the group; otherwise the member takes the member id and ``updateMemberEpoch``,
  and a non-null assignment replaces ``currentTargetAssignment``
  (``processAssignmentReceived``): RECONCILING if it differs from the current assignment,
  else STABLE (from RECONCILING or JOINING).
* ``AbstractMembershipManager#maybeReconcile``: "revokedPartitions = owned - assigned",
  "addedPartitions = assigned - owned"; "Execute commit -> onPartitionsRevoked ->
  onPartitionsAssigned": ``ConsumerMembershipManager#signalReconciliationStarted`` runs
  ``commitRequestManager.maybeAutoCommitSyncBeforeRevocation`` (an OffsetCommit with the
  member's epoch), and "Auto-commit request before reconciling new assignment failed. Will
  proceed with the reconciliation anyway."; then ``revokeAndAssign``, then ACKNOWLEDGING.
  The callbacks run in the application's ``poll`` (``stalled``: it does not poll).
* ``AbstractMembershipManager#onHeartbeatRequestSent``: ACKNOWLEDGING -> STABLE (or
  RECONCILING if the target moved on); LEAVING -> UNSUBSCRIBED once the leave heartbeat is sent.
* ``AbstractMembershipManager#transitionToFenced`` (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID):
  ``resetEpoch``, ``invokeOnPartitionsLostCallback(assignedPartitions)``, ``clearSubscription``,
  then ``transitionToJoining`` with the same member id (KIP-1082). ``transitionToFatal``
  (UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID, INVALID_REQUEST, UNSUPPORTED_ASSIGNOR,
  GROUP_MAX_SIZE_REACHED, INVALID_REGULAR_EXPRESSION, GROUP_ID_NOT_FOUND...): onPartitionsLost, stop.
* ``AbstractMembershipManager#leaveGroup``: PREPARE_LEAVING, "If the member is part of the
  group (epoch > 0), this will invoke onPartitionsRevoked ... If the member is not part of
  the group anymore (epoch <= 0) onPartitionsLost", then ``transitionToSendingLeaveGroup``:
  "leaveEpoch = groupInstanceId.isPresent() ? LEAVE_GROUP_STATIC_MEMBER_EPOCH :
  LEAVE_GROUP_MEMBER_EPOCH" (-2 / -1). ``AsyncKafkaConsumer#close`` first commits (auto-commit).
* ``ConsumerHeartbeatRequestManager.HeartbeatState#buildRequestData``: group id, member id,
  member epoch and instance id always; "RebalanceTimeoutMs - only sent when joining",
  "SubscribedTopicNames - only sent if it has changed since the last heartbeat",
  "ServerAssignor - sent when joining or if it has changed", "TopicPartitions - sent when
  joining or with the first heartbeat after a new assignment from the server was reconciled";
  ``heartbeatState.reset()`` after a failed or error heartbeat makes the next one send all.

Client switches (``CLIENT_SWITCHES``, the known-bug variants): ``kafka-16375`` (a reconciliation
under way is not abandoned when the member is fenced and rejoins; fixed in 3.8 by apache/kafka
#15579's ``rejoinedWhileReconciliationInProgress``), ``kafka-16251`` (the fenced member
rejoins before onPartitionsLost completed: it still runs its partitions while joining; fixed in
3.8 by apache/kafka #15392).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from .state import JOIN_EPOCH, LEAVE_EPOCH, LEAVE_STATIC_EPOCH, ConsumerGroupHeartbeat
from .world import (ACKNOWLEDGING, DOWN, FATAL, IN_GROUP, JOINING, LEAVING, RECONCILING, STABLE, UNSUBSCRIBED,
                    Client, Reply, SentFields)

# ConsumerHeartbeatRequestManager#onErrorResponse: these errors fence the member (it rejoins);
# the retriable ones (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS)
# retry; every other error is fatal.
REJOIN_ERRORS = ("FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID")
RETRIABLE_ERRORS = ("COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR", "COORDINATOR_LOAD_IN_PROGRESS")
REBALANCE_TIMEOUT_MS = 300000    # max.poll.interval.ms's default: the rebalance timeout the client sends


class ClientRules(NamedTuple):
    """The client's rules where known bugs differ (each True is the fixed behaviour)."""

    abort_reconciliation_on_fence: bool = True   # KAFKA-16375's fix (3.8)
    lost_before_rejoin: bool = True               # KAFKA-16251's fix (3.8)
    # not Kafka: the model's candidate fix for the finding "unreconciled-assignment-released"
    # (properties/known_bugs/consumer_group.py): while RECONCILING, the heartbeat reports the
    # partitions it is about to assign as owned too, so the coordinator waits for their revocation
    report_target_while_reconciling: bool = False


CLIENT_SWITCHES = {
    "kafka-16375": lambda r: r._replace(abort_reconciliation_on_fence=False),
    "kafka-16251": lambda r: r._replace(lost_before_rejoin=False),
    "report-target-while-reconciling": lambda r: r._replace(report_target_while_reconciling=True),
}


def client_rules(switches=()) -> ClientRules:
    """The client's rules with the client switches among ``switches`` applied (others ignored)."""
    r = ClientRules()
    for name in switches:
        if name in CLIENT_SWITCHES:
            r = CLIENT_SWITCHES[name](r)
    return r


class Subscription(NamedTuple):
    """What the client subscribes to: topic names, or a regex (SubscriptionPattern)."""

    names: Optional[tuple[str, ...]]
    regex: Optional[str]
    assignor: str
    instance_id: Optional[str]


def running(c: Client) -> bool:
    return c.status in (JOINING, LEAVING) + IN_GROUP


def new_client(incarnation: int, status: str = JOINING, sub: int = 0) -> Client:
    return Client(status=status, incarnation=incarnation, epoch=0, owned=0, target=0, sub=sub, sent=None, request=None,
                  reply=None)


def request(c: Client, member_id: str, group_id: str, s: Subscription, to_tps,
            rules: ClientRules = ClientRules()) -> ConsumerGroupHeartbeat:
    """The heartbeat ``c`` sends now (HeartbeatState#buildRequestData). Leaving: epoch -1, or
    -2 for a static member. Joining or after an error (``sent`` None): every field, its owned
    partitions (empty: "TopicPartitions must be empty when (re-)joining."). Otherwise the
    epoch, and the subscription / owned partitions only if they changed since last sent.
    ``to_tps``: a partitions bitmask as TopicPartitions."""
    base = dict(group_id=group_id, member_id=member_id, instance_id=s.instance_id)
    if c.status == LEAVING:
        return ConsumerGroupHeartbeat(member_epoch=LEAVE_STATIC_EPOCH if s.instance_id else LEAVE_EPOCH, **base)
    epoch = JOIN_EPOCH if c.status == JOINING else c.epoch
    every = c.status == JOINING or c.sent is None
    sent_owned, sent_sub = (None, None) if every else c.sent
    fields = {}
    if every:
        fields.update(rebalance_timeout_ms=REBALANCE_TIMEOUT_MS, server_assignor=s.assignor)
    if every or sent_sub != c.sub:
        fields.update(subscribed_topic_names=s.names, subscribed_topic_regex=s.regex)
    owned = c.owned
    if rules.report_target_while_reconciling and c.status == RECONCILING:
        owned |= c.target
    if every or sent_owned != owned:
        fields["topic_partitions"] = to_tps(owned)
    return ConsumerGroupHeartbeat(member_epoch=epoch, **base, **fields)


def after_send(c: Client, r: ConsumerGroupHeartbeat, reported: Optional[int]) -> Client:
    """onHeartbeatRequestSent: ACKNOWLEDGING -> STABLE, or RECONCILING if the target moved on;
    the leave heartbeat, once sent, ends the membership (LEAVING -> UNSUBSCRIBED; a client
    closed to restart is DOWN). The fields sent are remembered (sentFields); ``reported``: the
    owned partitions the request carried (None: not sent)."""
    if c.status == LEAVING:
        return c._replace(status=UNSUBSCRIBED if c.sub < 0 else DOWN, epoch=0, request=r, sent=None)
    status = c.status
    if status == ACKNOWLEDGING:
        status = STABLE if c.target == c.owned else RECONCILING
    owned = reported if reported is not None else (c.owned if c.sent is None else c.sent.owned)
    return c._replace(status=status, request=r, sent=SentFields(owned=owned, sub=c.sub))


class Callback(NamedTuple):
    """A rebalance-listener callback the client ran: onPartitionsRevoked / Assigned / Lost."""

    kind: str                  # "revoked", "assigned" or "lost"
    partitions: int


class Commit(NamedTuple):
    """The offset commit of the owned partitions before a revocation or a close."""

    kind: str                  # "commit"
    partitions: int
    epoch: int                 # the member epoch it carried
    error: str                 # the coordinator's answer ("" accepted)


def _commit(c: Client, error: str) -> tuple:
    return (Commit(kind="commit", partitions=c.owned, epoch=c.epoch, error=error),) if c.owned else ()


def fenced(c: Client, rules: ClientRules = ClientRules()) -> tuple[Client, tuple]:
    """transitionToFenced: epoch 0, onPartitionsLost(owned), clearSubscription, JOINING with the
    same member id. ``kafka-16251``: the member rejoins before the callback ran (it still runs
    its partitions; they are dropped when the join is answered). ``kafka-16375``: a
    reconciliation under way is not abandoned (its target stays, applied after the rejoin)."""
    keep_target = c.target if (not rules.abort_reconciliation_on_fence and c.status == RECONCILING) else 0
    if not rules.lost_before_rejoin:
        return c._replace(status=JOINING, epoch=0, target=keep_target, sent=None), ()
    out = c._replace(status=JOINING, epoch=0, owned=0, target=keep_target, sent=None)
    return out, ((Callback(kind="lost", partitions=c.owned),) if c.owned else ())


def fatal(c: Client) -> tuple[Client, tuple]:
    """transitionToFatal: onPartitionsLost(owned), then the consumer stops."""
    lost = (Callback(kind="lost", partitions=c.owned),) if c.owned else ()
    return c._replace(status=FATAL, owned=0, target=0), lost


def on_response(c: Client, reply: Reply, rules: ClientRules = ClientRules()) -> tuple[Client, tuple]:
    """What the client does with a heartbeat response; returns it and the callbacks it ran."""
    c = c._replace(reply=None)
    if reply.error in REJOIN_ERRORS:
        return fenced(c, rules)
    if reply.error in RETRIABLE_ERRORS:
        return c._replace(sent=None), ()
    if reply.error:
        return fatal(c)
    if c.status not in (JOINING,) + IN_GROUP or reply.epoch < 0:
        return c, ()      # "Ignoring heartbeat response received from broker" (leaving / not in group)
    callbacks = ()
    if c.status == JOINING and not rules.lost_before_rejoin and c.owned and c.epoch == 0:
        # kafka-16251: the late callback
        callbacks, c = (Callback(kind="lost", partitions=c.owned),), c._replace(owned=0)
    c = c._replace(epoch=reply.epoch)
    if reply.assignment is None:
        return (c._replace(status=STABLE) if c.status == JOINING and c.owned == c.target else c), callbacks
    if reply.assignment != c.target:
        # a new target, even one equal to what it owns: reconciled and acknowledged (KAFKA-16185's
        # local epochs, 3.8: "resending the topic partitions whenever the local assignment,
        # including its local epoch is changed")
        return c._replace(target=reply.assignment, status=RECONCILING), callbacks
    if c.status == JOINING:
        return c._replace(status=STABLE if c.owned == c.target else RECONCILING), callbacks
    return c, callbacks


def can_reconcile(c: Client, rules: ClientRules = ClientRules()) -> bool:
    """maybeReconcile runs in poll: RECONCILING, polling; ``kafka-16375``: also a stale
    reconciliation left over from before a rejoin."""
    if c.stalled:
        return False
    return c.status == RECONCILING or (not rules.abort_reconciliation_on_fence and c.status == JOINING
                                       and c.target != c.owned)


def reconcile(c: Client, commit_error: str, commit: bool = True) -> tuple[Client, tuple]:
    """maybeReconcile: commit (the coordinator's answer ``commit_error``; the reconciliation
    goes on either way), onPartitionsRevoked(owned - target), onPartitionsAssigned(target -
    owned), then ACKNOWLEDGING (a stale reconciliation under ``kafka-16375`` leaves the client
    JOINING). ``commit`` False: the record layer made its commits itself (delivery_steps.py)."""
    revoked, added = c.owned & ~c.target, c.target & ~c.owned
    callbacks = _commit(c, commit_error) if commit else ()
    callbacks += ((Callback(kind="revoked", partitions=revoked),) if revoked else ())
    callbacks += ((Callback(kind="assigned", partitions=added),) if added else ())
    status = ACKNOWLEDGING if c.status == RECONCILING else c.status
    # the local assignment changed: its next heartbeat reports the owned partitions
    sent = None if c.sent is None else SentFields(owned=-1, sub=c.sent.sub)
    return c._replace(status=status, owned=c.target, sent=sent), callbacks


def close(c: Client, commit_error: str, for_good: bool, commit: bool = True) -> tuple[Client, tuple]:
    """close(): commit (auto-commit), then leaveGroup: onPartitionsRevoked (epoch > 0) or
    onPartitionsLost (epoch <= 0) of what it owns, then LEAVING. ``for_good``: the process
    will not restart (``sub`` -1 marks it so that ``after_send`` ends UNSUBSCRIBED).
    ``commit`` False: the record layer made its commit itself (delivery_steps.py)."""
    callbacks = _commit(c, commit_error) if commit else ()
    if c.owned:
        callbacks += (Callback(kind="revoked" if c.epoch > 0 else "lost", partitions=c.owned),)
    out = c._replace(status=LEAVING, owned=0, target=0, sub=-1 if for_good else c.sub, stalled=False)
    return out, callbacks


__all__ = ["CLIENT_SWITCHES", "REJOIN_ERRORS", "Callback", "ClientRules", "Commit", "Subscription", "after_send",
           "can_reconcile", "client_rules", "close", "fatal", "fenced", "new_client", "on_response", "reconcile", "request",
           "running"]

"""One stream thread's side of the protocol: the JoinGroup it sends and what it does
with the assignment it gets (StreamsPartitionAssignor#onAssignment plus the rebalance
listener), per release family (``../shared/kafka-behavior.md`` A1)."""
from __future__ import annotations

from typing import NamedTuple

from . import releases as rel
from .scope import Config, StreamsScope, family
from .state import Assignment, Member, Subscription


def subscribe(scope: StreamsScope, cfg: Config, m: Member, leaving: bool) -> tuple[Member, int]:
    """JoinGroup: build the SubscriptionInfo and revoke what this protocol revokes up
    front. EAGER revokes every active task; COOPERATIVE revokes only the tasks "being
    learned" elsewhere (seed 002: "Every time when a rebalance begins, the task owners
    will revoke the being learned tasks"). Returns the member and the tasks revoked."""
    protocol = rel.rebalance_protocol(cfg.release, cfg.upgrade_from)
    latest = rel.release(cfg.release).latest
    revoked = m.active if protocol == rel.EAGER else m.active & m.learned
    owned = 0 if protocol == rel.EAGER else m.active & ~revoked
    sub = Subscription(m.used, latest if m.used >= rel.EARLIEST_PROBEABLE_VERSION else m.used,
                       protocol, owned, m.prev, m.standby, m.learning, m.ready, leaving)
    return m._replace(active=m.active & ~revoked, learned=m.learned & ~revoked, sub=sub), revoked


class Processed(NamedTuple):
    member: Member
    rejoin: bool
    note: str


def on_assignment(scope: StreamsScope, cfg: Config, m: Member, a: Assignment) -> Processed:
    """Apply assignment ``a``: adopt its tasks and update the used version.

    The tasks are taken in every case ("the assignment is applied anyway"); what differs
    by family is the version handling and whether the thread rejoins at once.
    """
    own = rel.release(cfg.release)
    fam = family(scope, cfg.release)
    if a.version > own.latest:
        return Processed(m._replace(failure=f"cannot decode a v{a.version} assignment (knows up to "
                                            f"v{own.latest})"), False, "unreadable assignment")
    if a.error:
        return Processed(m._replace(failure=f"{a.error}: the thread shuts down"), False, a.error)
    used, rejoin, note = m.used, a.followup, ""
    downgrade = scope.behaviour.follower_downgrades
    if fam == rel.KAFKA_26:
        if a.version > m.used or a.supported > own.latest:
            return Processed(m._replace(failure=f"TaskAssignmentException: received v{a.version} assignment, "
                                                f"supported v{a.supported}, while using v{m.used}"),
                             False, "TaskAssignmentException")
        if a.version >= rel.EARLIEST_PROBEABLE_VERSION:
            if a.supported > m.used:
                used, rejoin, note = a.supported, True, f"upgrades to v{a.supported} and rejoins"
            elif a.version < m.used:
                used = a.supported if downgrade else m.used
                rejoin, note = True, f"downgrades to v{used} and rejoins"
    elif fam == rel.KIP_268 and a.version > m.used:
        # 2.0+ onAssignment: "Sent a version X subscription but got an assignment with
        # higher version Y"
        return Processed(m._replace(failure=f"IllegalStateException: sent a v{m.used} subscription, got a "
                                            f"v{a.version} assignment"), False, "IllegalStateException")
    elif fam == rel.KIP_268 and a.version >= rel.EARLIEST_PROBEABLE_VERSION:
        if a.version < m.used:
            # version probing: "it can downgrade to X (in-memory flag) and resends a new
            # Subscription with old version X" via unsubscribe()/subscribe()/poll(). An
            # older assignment advertising more: take the leader's supported version.
            used = (a.version if a.version == a.supported else a.supported) if downgrade else m.used
            # KIP-268 rejoins only on the probing answer and leaves the final rebalance to
            # the leader; Kafka 2.1-2.5 rejoin whenever the assignment is older than the
            # subscription (onAssignment: "... and trigger new rebalance")
            if a.version == a.supported or scope.behaviour.probing == "release":
                rejoin = True
            note = f"probed: uses v{used}" + (" and rejoins" if rejoin else " from the next rebalance")
        elif a.supported > m.used:
            # "checks the leaders supported-version and update its downgraded used-version"
            used, note = a.supported, f"will use v{a.supported} from the next rebalance"
    return Processed(m._replace(used=used, generation=a.generation, active=a.active, prev=a.active,
                                standby=a.standby, learning=a.learning, ready=m.ready & a.learning,
                                learned=a.learned, inbox=None),
                     rejoin, note)

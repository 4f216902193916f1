"""One stream thread's side of the protocol: the JoinGroup it sends and what it does
with the assignment it gets (StreamsPartitionAssignor#onAssignment plus StreamThread's
rebalance listener), per release family (``../shared/kafka-behavior.md`` A1; the
README's audit table lists every branch).

``on_assignment`` never lets a Python error escape on any assignment: what Kafka would
throw becomes the thread's ``failure`` (it dies), with the exception's name."""
from __future__ import annotations

from typing import NamedTuple

from . import releases as rel
from .scope import Config, StreamsScope, family
from .state import Assignment, Member, Subscription

PROBEABLE = rel.EARLIEST_PROBEABLE_VERSION


def subscribe(scope: StreamsScope, cfg: Config, m: Member, leaving: bool) -> tuple[Member, int]:
    """JoinGroup: build the SubscriptionInfo and revoke what this protocol revokes up
    front. EAGER revokes every active task; COOPERATIVE revokes only the tasks "being
    learned" elsewhere (KIP-429: "Every time when a rebalance begins, the task owners
    will revoke the being learned tasks"). Returns the member and the tasks revoked.

    A thread whose used version is above its release's LATEST (KAFKA-8649 left a 2.0
    thread there) cannot build its SubscriptionInfo: the constructor throws
    IllegalArgumentException "version must be between 1 and LATEST" (SubscriptionInfo,
    2.0.1) and the thread dies; the member comes back with ``failure`` set."""
    protocol = rel.rebalance_protocol(cfg.release, cfg.upgrade_from)
    latest = rel.release(cfg.release).latest
    if not 1 <= m.used <= latest:
        return m._replace(failure=f"IllegalArgumentException: SubscriptionInfo version must be between 1 and "
                                  f"{latest}; was: {m.used}"), 0
    revoked = m.active if protocol == rel.EAGER else m.active & m.learned
    owned = 0 if protocol == rel.EAGER else m.active & ~revoked
    sub = Subscription(used=m.used, latest=latest if m.used >= PROBEABLE else m.used, protocol=protocol, owned=owned,
                       prev=m.prev, standby=m.standby, learning=m.learning, ready=m.ready, leaving=leaving)
    return m._replace(active=m.active & ~revoked, learned=m.learned & ~revoked, sub=sub), revoked


class Processed(NamedTuple):
    member: Member
    rejoin: bool
    note: str


class _Versions(NamedTuple):
    """What the version checks decide: the used version afterwards, whether the thread
    rejoins at once, whether it creates the assignment's tasks, and a note."""
    used: int
    rejoin: bool
    apply: bool
    note: str


def on_assignment(scope: StreamsScope, cfg: Config, m: Member, a: Assignment) -> Processed:
    """Process assignment ``a``: decode it, check the error code and the versions, then
    create its tasks (or not) and update the used version."""
    if a is None:
        raise TypeError("member.on_assignment: no assignment to process (the member's inbox is empty); "
                        "call it with the SyncGroup response the leader handed this member")
    own = rel.release(cfg.release)
    fam = family(scope, cfg.release)
    if not 1 <= a.version <= own.latest:
        # AssignmentInfo.decode: "Unknown assignment data version" (0.10.x-1.1), "Unable to
        # decode assignment data" (2.0+), both TaskAssignmentException
        return _dies(m, f"TaskAssignmentException: cannot decode a v{a.version} assignment (knows up to "
                        f"v{own.latest})",
                     "unreadable assignment")
    # commonlySupportedVersion is on the wire from v3 only (v1/v2 decode it as UNKNOWN)
    supported = a.supported if a.version >= PROBEABLE else 0
    if a.error:
        return _error_code(scope, own, fam, m, a)
    if fam == rel.KAFKA_26:
        v = _kafka_26(scope, own, m, a.version, supported)
    elif fam == rel.KIP_268 and scope.behaviour.probing == rel.KIP_268:
        v = _kip_268_text(scope, m, a.version, supported)
    elif fam == rel.KIP_268 and own.kafka_8649_fix and scope.behaviour.advertise_group_min:
        v = _kafka_21(scope, own, m, a.version, supported)
    elif fam == rel.KIP_268:
        v = _kafka_20(scope, m, a.version, supported)
    else:
        v = _Versions(m.used, False, True, "")       # pre-probing: no version logic
    if isinstance(v, str):
        return _dies(m, v, v.split(":")[0])
    rejoin = v.rejoin or a.followup
    if not v.apply:
        # 2.0-2.3: onAssignment returns before setAssignmentMetadata and StreamThread's
        # onPartitionsAssigned skips createTasks (versionProbingFlag / VERSION_PROBING); the
        # revocation of the enforced rebalance skips suspend, so prevTasks stay as they were
        # (the thread, EAGER, suspended its active tasks when it joined: it runs none now)
        return Processed(m._replace(used=v.used, generation=a.generation, active=0, learned=0, inbox=None),
                         rejoin, v.note + "; creates no task")
    return Processed(m._replace(used=v.used, generation=a.generation, active=a.active, prev=a.active,
                                standby=a.standby, learning=a.learning, ready=m.ready & a.learning,
                                learned=a.learned, inbox=None),
                     rejoin, v.note)


def _dies(m: Member, failure: str, note: str) -> Processed:
    return Processed(m._replace(failure=failure), False, note)


def _error_code(scope: StreamsScope, own: rel.Release, fam: str, m: Member, a: Assignment) -> Processed:
    """onAssignment records a non-zero errCode and returns before creating tasks (2.1+).
    2.7+ StreamsRebalanceListener#onPartitionsAssigned then throws TaskAssignmentException
    for ASSIGNMENT_ERROR; earlier releases know no such code (2.6.3's listener acts only on
    INCOMPLETE_SOURCE_TOPIC_METADATA): the thread carries on without the assignment's tasks,
    and a COOPERATIVE one revokes what it owned (the assignment has no partition) and
    rejoins (ConsumerCoordinator#onJoinComplete)."""
    knows = own.assignment_error or (fam == rel.KAFKA_26 and scope.behaviour.probing == rel.KAFKA_26)
    if knows:
        return _dies(m, f"{a.error}: TaskAssignmentException, the thread dies", a.error)
    return Processed(m._replace(generation=a.generation, active=0, learned=0, inbox=None), bool(m.active),
                     f"ignores unknown error code {a.error}")


def _kafka_26(scope: StreamsScope, own: rel.Release, m: Member, version: int, supported: int) -> _Versions | str:
    """2.4+ (maybeUpdateSubscriptionVersion, validateMetadataVersions; 2.4.1-3.9): from v3,
    (a) commonlySupported above used: upgrade to it, (b) received below used: downgrade to
    commonlySupported; either rejoins at once (VERSION_PROBING in 2.4-2.5,
    nextScheduledRebalanceMs 0 from 2.6). The tasks are created anyway."""
    bad = _kafka_21_checks(own, m, version, supported)
    if bad:
        return bad
    if version < PROBEABLE:
        return _Versions(m.used, False, True, "")
    if supported > m.used:
        return _Versions(supported, True, True, f"upgrades to v{supported} and rejoins")
    if version < m.used:
        used = supported if scope.behaviour.follower_downgrades else m.used
        return _Versions(used, True, True, f"downgrades to v{used} and rejoins")
    return _Versions(m.used, False, True, "")


def _kafka_21_checks(own: rel.Release, m: Member, version: int, supported: int) -> str:
    """validateMetadataVersions (2.1+)."""
    if version > m.used:
        return (f"TaskAssignmentException: sent a v{m.used} subscription but got an assignment with higher "
                f"version v{version}")
    if supported > own.latest:
        return (f"TaskAssignmentException: commonly supported v{supported} is above what v{own.latest} "
                f"code supports")
    return ""


def _kafka_21(scope: StreamsScope, own: rel.Release, m: Member, version: int, supported: int) -> _Versions | str:
    """2.1-2.3 with KAFKA-8649's fix (2.3.1): the checks and version rules of 2.4+, but a
    version change returns from onAssignment with VERSION_PROBING before the tasks are
    created; StreamThread then enforces the rebalance."""
    v = _kafka_26(scope, own, m, version, supported)
    if isinstance(v, str) or not v.rejoin:
        return v
    return v._replace(apply=False)


def _kafka_20(scope: StreamsScope, m: Member, version: int, supported: int) -> _Versions | str:
    """Kafka 2.0 (2.0.1; 2.1-2.3 with KAFKA-8649's switch off). A received version above
    used is an IllegalStateException. Below used (from v3) is version probing: take the
    received version if it equals the leader's supported one, else the supported one;
    set versionProbingFlag, create no task, rejoin. At used (v3), a higher leader
    supported version is taken for the next rebalance, unchecked (KAFKA-8649)."""
    if version > m.used:
        return f"IllegalStateException: sent a v{m.used} subscription, got a v{version} assignment"
    if version < PROBEABLE:
        return _Versions(m.used, False, True, "")
    if version < m.used:
        used = (version if version == supported else supported) if scope.behaviour.follower_downgrades else m.used
        return _Versions(used, True, False, f"probed: uses v{used} and rejoins")
    if supported > m.used:
        return _Versions(supported, False, True, f"will use v{supported} from the next rebalance")
    return _Versions(m.used, False, True, "")


def _kip_268_text(scope: StreamsScope, m: Member, version: int, supported: int) -> _Versions | str:
    """The kip-268 profile: KIP-268's "Detailed upgrade protocol". The follower that gets
    the probing answer (version == supported, below what it sent) "can downgrade to X
    [...] and resends a new Subscription with old version X"; any other assignment makes
    it "check the leaders supported-version and update its downgraded used-version if
    possible", from the next rebalance (the leader triggers the final one). The KIP says
    nothing of the tasks: they are taken."""
    if version > m.used:
        return f"IllegalStateException: sent a v{m.used} subscription, got a v{version} assignment"
    if version < PROBEABLE:
        return _Versions(m.used, False, True, "")
    if version < m.used:
        used = (version if version == supported else supported) if scope.behaviour.follower_downgrades else m.used
        rejoin = version == supported
        return _Versions(used, rejoin, True,
                         f"probed: uses v{used}" + (" and rejoins" if rejoin else " from the next rebalance"))
    if supported > m.used:
        return _Versions(supported, False, True, f"will use v{supported} from the next rebalance")
    return _Versions(m.used, False, True, "")

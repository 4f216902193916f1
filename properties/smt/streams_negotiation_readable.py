"""(e) negotiation_never_unreadable: the version a Streams leader negotiates is one every
member can read, and no member leaves it using a version it does not support.

KIP-268: "As long as the leader (before or after upgrade) receives at least one old
version X Subscription it always sends version Assignment X back", and "If an upgraded
instance receives an Assignment it always checks the leaders supported-version and
update its downgraded "used-version" if possible."

The mix is ``_streams.mix`` (N members, member 0 leads, every profile, the leader's and
each member's family as ``scope.family`` gives it). ``negotiate`` encodes the version
rules of ``leader.assign``: pre-probing leader + future subscription -> assign() throws;
kip-268 leader + future + minReceived < 3 -> assign() throws; kafka-2.6+ leader + future
+ minReceived < 3 -> ASSIGNMENT_ERROR to all when the leader answers with it (2.7+, or
the kafka-2.6+ profile), encoded at (version, supported) = (LATEST, LATEST) of the leader
(``StreamsPartitionAssignor#errorAssignment``), else assign() throws (2.4-2.6); kip-268 +
future -> future members get (LATEST, LATEST) (KIP-268, Kafka 2.0, KAFKA-8649's switch
off) or, under the release profile with KAFKA-8649's fix (2.1+), (minReceived,
minSupported); the rest (minReceived, advertised); otherwise everyone gets (minReceived,
advertised), supported 0 below v3, where a kip-268 leader advertises its own LATEST
without the fix (2.0, or the switch off) and minSupported with it; under the kip-268
profile a kip-268 leader whose minReceived (>= 3) is below what it advertises sets the
follow-up (the final rebalance) on its own assignment. ``receive`` encodes
``member.on_assignment`` (the readability checks, the new used version and whether the
thread rejoins at once): a kip-268 member under the release profile with the fix (2.1+)
follows the kafka-2.6+ member's rules, one without it (2.0) Kafka 2.0's, one under the
kip-268 profile the KIP's text; ``follower_downgrades`` and ``leader_final_rebalance``
are quantified; ``decodable`` is its first check (version <= the member's LATEST), which
it makes before it looks at an error code.

The ASSIGNMENT_ERROR answer is outside the claims below: it is at the leader's LATEST, so
a member on an older release cannot decode it (``decodable`` false), and one that can
shuts down on the error code; either way the thread dies, which is what the answer is
for (the model's ``no_thread_dies`` reports it). Claims, for every member handed a
non-error assignment (the leader did not throw):

* ``readable_by_every_receiver``: its version <= the member's LATEST, and for a
  kafka-2.6+ member (or a 2.1+ kip-268 one under the release profile) also version <=
  used and supported <= LATEST, for any other kip-268 member version <= used (the checks
  that throw);
* ``version_not_above_used``: its version <= the member's used version (Kafka's 2.x and
  2.6+ ``onAssignment`` throw "Sent a version X subscription but got an assignment with
  higher version Y"; ``member.on_assignment`` checks it for kip-268 and kafka-2.6+
  members, so this claim covers the pre-probing members the model lets through);
* ``used_within_latest``: the used version after applying it is <= the member's LATEST.

Bound: N = 1..12 members, LATEST in 1..12 (every value ``RELEASES`` has), used in
1..LATEST (``used="startup"``: LATEST, or 1/2 as upgrade.from caps it). Weakened rules
(all SAT):

* ``leader-latest-version``: encode at the leader's LATEST, not minReceived - an older
  member cannot decode it (breaks ``readable_by_every_receiver``, ``version_not_above_used``);
* ``kafka-8649``: KAFKA-8649's fix switched off (``advertise_group_min=False``): a
  kip-268 leader advertises its own LATEST and its members follow 2.0's rules - an older
  kip-268 member bumps its used version past what it supports (breaks only
  ``used_within_latest``: the assignment itself stays readable, its version is still
  minReceived <= every receiver's used version). A member at minReceived takes the
  advertised version whether or not ``follower_downgrades`` holds; one above it (the
  assignment is older than its subscription) takes it only when it does, and otherwise
  keeps its used version;
* ``max-supported``: advertise the highest latestSupportedVersion, not the lowest - a
  kafka-2.6+ member below it throws, an older kip-268 member over-upgrades (breaks
  ``readable_by_every_receiver``, ``used_within_latest``).

``profile(weakened)`` checks each claim on its own and shows which ones a rule breaks.

Not a weakening: ``min-received-over-all`` (minReceived over every subscription,
future ones included, as 2.0+ code computes it) proves too - a future usedVersion is
above the leader's LATEST >= the leader's own usedVersion, so it never is the minimum.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import z3

from . import _streams as s
from ._common import Instance, Result, pick_weakening, run, run_per_claim, value

NAME = "negotiation_never_unreadable"
MAX_MEMBERS = 12
WEAKENINGS = ("leader-latest-version", "kafka-8649", "max-supported")
EQUIVALENT = ("min-received-over-all",)
NO_ERROR, ERROR, LEADER_FAILS = "assignment", "ASSIGNMENT_ERROR", "leader fails"


class Negotiated(NamedTuple):
    leader_fails: z3.BoolRef
    error: z3.BoolRef                 # every member gets ASSIGNMENT_ERROR
    version: list[z3.ArithRef]        # per member: the AssignmentInfo version
    supported: list[z3.ArithRef]      # per member: latestSupported/commonlySupported (0 below v3)
    followup: list[z3.BoolRef]        # per member: the leader asks it to rejoin at once
    defs: list[z3.BoolRef]            # definitions of the view's names (premises)



def _max(xs):
    out = xs[0]
    for x in xs[1:]:
        out = z3.If(x > out, x, out)
    return out


def negotiate(m: s.Mix, weakened: str | None = None,
              final_rebalance: z3.BoolRef | bool = True) -> Negotiated:
    """The (version, supported, followup) ``leader.assign`` hands each member, or
    failure/error; ``final_rebalance`` is ``Behaviour.leader_final_rebalance``. (The
    cooperative follow-up for withheld tasks depends on task ownership, which the mix
    does not have: members here own nothing.)"""
    v = s.view(m)
    fam, top = v.leader_family, v.leader_latest
    received, defs = v.min_received, list(v.defs)
    if weakened == "min-received-over-all":
        received = z3.Int("min_received_all")
        defs += [z3.And([received <= u for u in m.used]), z3.Or([received == u for u in m.used])]
    old = received < s.PROBEABLE
    error = z3.And(fam == s.K26, v.any_future, old, v.leader_errors)
    fails = z3.Or(z3.And(fam == s.PRE, v.any_future), z3.And(fam != s.PRE, v.any_future, old, z3.Not(error)))
    fixed = fixed_8649(top, weakened)
    advertised = z3.If(z3.And(fam == s.KIP, z3.Not(fixed)), top, v.min_supported)
    if weakened == "max-supported":
        advertised = _max(m.sub_latest)
    supported = z3.If(old, z3.IntVal(0), advertised)
    encoded = top if weakened == "leader-latest-version" else received
    probing = z3.And(fam == s.KIP, v.any_future)
    # the ASSIGNMENT_ERROR answer, and the KIP's / 2.0's empty probing answer: at the
    # leader's LATEST; 2.1+'s probing answer under the release profile: (minReceived, minSupported)
    answer_at_top = z3.Not(z3.And(s.profile_probing(m, "release"), fixed))
    at_top = [z3.Or(error, z3.And(probing, f, answer_at_top)) for f in v.future]
    # KIP-268's final rebalance: only the kip-268 profile's leader triggers it (Kafka's
    # 2.1-2.5 members do it themselves, see ``receive``)
    final = z3.And(fam == s.KIP, z3.Not(v.any_future), s.profile_probing(m, s.FAMILIES[s.KIP]), final_rebalance,
                   z3.Not(old), received < advertised)
    return Negotiated(fails, error, [z3.If(e, top, encoded) for e in at_top],
                      [z3.If(e, top, supported) for e in at_top],
                      [final if i == 0 else z3.BoolVal(False) for i in range(len(m.used))], defs)


def fixed_8649(latest: z3.ArithRef, weakened: str | None) -> z3.BoolRef:
    """``Release.kafka_8649_fix`` (2.1+: LATEST >= 4 among the 2.0+ releases) and the
    switch on (``kafka-8649`` weakens it off)."""
    return z3.And(latest >= 4, z3.BoolVal(weakened != "kafka-8649"))


class Received(NamedTuple):
    readable: z3.BoolRef      # no check throws (for a non-error assignment)
    used_after: z3.ArithRef   # the used version afterwards
    rejoin: z3.BoolRef        # the thread rejoins at once
    decodable: z3.BoolRef     # the first check: version <= the member's LATEST


def receive(family: z3.ArithRef, latest: z3.ArithRef, used: z3.ArithRef, version: z3.ArithRef,
            supported: z3.ArithRef, downgrade: z3.BoolRef, followup: z3.BoolRef = z3.BoolVal(False),
            release_profile: z3.BoolRef = z3.BoolVal(True), fixed: z3.BoolRef = z3.BoolVal(True)) -> Received:
    """``member.on_assignment`` for a non-error assignment (``decodable`` for any).
    ``release_profile``: the scope's probing is ``release`` (each release's own rules);
    ``fixed``: the member's release ships KAFKA-8649's fix and the switch is on."""
    decodable = version <= latest
    # kafka-2.6+ rules: 2.4+, and 2.1-2.3 with the fix (2.3.1: validateMetadataVersions,
    # maybeUpdateSubscriptionVersion); they differ only in the tasks, which are not encoded
    k26_rules = z3.Or(family == s.K26, z3.And(family == s.KIP, release_profile, fixed))
    kip_rules = z3.And(family == s.KIP, z3.Not(k26_rules))
    readable = z3.And(decodable,
                      z3.Or(z3.Not(k26_rules), z3.And(version <= used, supported <= latest)),
                      z3.Or(z3.Not(kip_rules), version <= used))
    probe = version >= s.PROBEABLE
    older = version < used
    k26 = z3.If(supported > used, supported, z3.If(older, z3.If(downgrade, supported, used), used))
    # kip-268 (2.0, or the kip-268 profile), older than the subscription: "used = version if
    # version == supported else supported" (follower_downgrades off: keeps its used
    # version); otherwise "update its downgraded used-version if possible"
    kip = z3.If(older, z3.If(downgrade, z3.If(version == supported, version, supported), used),
                z3.If(supported > used, supported, used))
    after = z3.If(probe, z3.If(k26_rules, k26, z3.If(kip_rules, kip, used)), used)
    # kafka-2.6+ rules: rejoins on an upgrade or a downgrade; 2.0: on every assignment older
    # than its subscription (versionProbingFlag); the KIP's text: on the probing answer only
    k26_rejoin = z3.Or(supported > used, older)
    kip_rejoin = z3.And(older, z3.Or(version == supported, release_profile))
    rejoin = z3.Or(followup, z3.And(probe, z3.If(k26_rules, k26_rejoin, z3.And(kip_rules, kip_rejoin))))
    return Received(readable, after, rejoin, decodable)


class Encoded(NamedTuple):
    mix: s.Mix
    negotiated: Negotiated
    downgrade: z3.BoolRef             # Behaviour.follower_downgrades
    final_rebalance: z3.BoolRef       # Behaviour.leader_final_rebalance
    readable: list[z3.BoolRef]
    used_after: list[z3.ArithRef]
    rejoin: list[z3.BoolRef]
    decodable: list[z3.BoolRef]
    premises: list[z3.BoolRef]


def encode(n: int, weakened: str | None = None, used: str = "any") -> Encoded:
    m = s.mix(n)
    final_rebalance = z3.Bool("leader_final_rebalance")
    neg = negotiate(m, weakened, final_rebalance)
    downgrade = z3.Bool("follower_downgrades")
    release_profile = s.profile_probing(m, "release")
    got = [receive(m.family[i], m.latest[i], m.used[i], neg.version[i], neg.supported[i], downgrade,
                   neg.followup[i], release_profile, fixed_8649(m.latest[i], weakened))
           for i in range(n)]
    return Encoded(m, neg, downgrade, final_rebalance, [r.readable for r in got], [r.used_after for r in got],
                   [r.rejoin for r in got], [r.decodable for r in got], s.domain(m, used) + neg.defs)


def instance(n: int, weakened: str | None = None, used: str = "any") -> Instance:
    e = encode(n, weakened, used)
    neg = e.negotiated
    delivered = z3.And(z3.Not(neg.leader_fails), z3.Not(neg.error))
    claims = {
        "readable_by_every_receiver": z3.And([z3.Implies(delivered, r) for r in e.readable]),
        "version_not_above_used": z3.And([z3.Implies(delivered, ver <= u)
                                          for ver, u in zip(neg.version, e.mix.used)]),
        "used_within_latest": z3.And([z3.Implies(z3.And(delivered, r), a <= lat)
                                      for r, a, lat in zip(e.readable, e.used_after, e.mix.latest)]),
    }

    def describe(model: z3.ModelRef) -> dict[str, Any]:
        out = s.describe_mix(model, e.mix)
        outcome = (LEADER_FAILS if value(model, neg.leader_fails)
                   else ERROR if value(model, neg.error) else NO_ERROR)
        out["follower_downgrades"] = value(model, e.downgrade)
        out["outcome"] = outcome
        if outcome == NO_ERROR:
            out["version"] = [value(model, x) for x in neg.version]
            out["supported"] = [value(model, x) for x in neg.supported]
            out["readable"] = [value(model, x) for x in e.readable]
            out["used_after"] = [value(model, x) for x in e.used_after]
        return out

    return Instance(e.premises, claims, describe, {"members": n})


def bound(max_members: int = MAX_MEMBERS, used: str = "any") -> str:
    what = "1..LATEST" if used == "any" else "LATEST or 1/2 (upgrade.from)"
    return (f"N=1..{max_members} members, LATEST 1..{s.max_version()}, used {what}, "
            f"profiles {'/'.join(s.PROFILE_NAMES)}")


def prove(max_members: int = MAX_MEMBERS, used: str = "any", weakened: bool | str = False) -> Result:
    """All claims for N = 1..max_members; ``weakened`` picks a rule from WEAKENINGS
    (or EQUIVALENT, which proves)."""
    w = pick_weakening(weakened, WEAKENINGS + EQUIVALENT)
    return run(NAME, bound(max_members, used), w,
               (instance(n, w, used) for n in range(1, max_members + 1)))


def profile(weakened: str | None = None, max_members: int = MAX_MEMBERS, used: str = "any") -> dict[str, Result]:
    """Each claim checked on its own under ``weakened``: which ones the rule keeps."""
    w = pick_weakening(weakened, WEAKENINGS + EQUIVALENT)
    return run_per_claim(NAME, bound(max_members, used), w, lambda n: instance(n, w, used),
                         range(1, max_members + 1))

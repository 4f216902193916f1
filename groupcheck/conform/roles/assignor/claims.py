"""What the protocol fixes about one assignment, judged per invocation.

Each claim looks at one ``assign`` input (the JSON of ``schema/assignor.schema.json``)
and the implementation's answer, and returns None (holds), a message (violated), or
``NOT_APPLICABLE`` when the input is outside the claim's reach (a COOPERATIVE rule on
an EAGER round, balance with unequal subscriptions). Choices the protocol leaves to
the assignor (which of two balanced members gets a partition, member order among
equals, stickiness) are never judged.
"""
from __future__ import annotations

from typing import Any, Callable

NOT_APPLICABLE = "n/a"   # = recording.NOT_APPLICABLE; this module imports nothing of groupcheck: repro.py copies it into standalone scripts
EAGER, COOPERATIVE = "EAGER", "COOPERATIVE"

TP = tuple  # (topic, partition)


def _tp(x: Any) -> TP:
    return (x[0], x[1])


def _subscribed(arg: dict) -> dict[TP, set[str]]:
    """Every existing partition of a subscribed topic -> the members subscribed to it."""
    out: dict[TP, set[str]] = {}
    for m in arg["members"]:
        for t in m["topics"]:
            for p in range(arg["topics"].get(t, 0)):
                out.setdefault((t, p), set()).add(m["member_id"])
    return out


def _claimants(arg: dict) -> dict[TP, list[tuple[str, int]]]:
    """partition -> [(member, generation of its ownedPartitions claim)]."""
    out: dict[TP, list[tuple[str, int]]] = {}
    for m in arg["members"]:
        for x in m["owned_partitions"]:
            out.setdefault(_tp(x), []).append((m["member_id"], m["generation"]))
    return out


def _owners(answer: dict) -> dict[TP, list[str]]:
    out: dict[TP, list[str]] = {}
    for mid, tps in answer.items():
        for x in tps:
            out.setdefault(_tp(x), []).append(mid)
    return out


def assignment_valid(arg: dict, answer: dict, mode: str, contract: str | None) -> str | None:
    """ConsumerPartitionAssignor#assign's contract: an assignment names only members of
    the group and partitions that exist; each partition goes to at most one member, and
    only to a member subscribed to its topic. (That every subscribed partition is
    assigned, but for cooperative withholding, is ``no_partition_withheld``.)"""
    members = {m["member_id"] for m in arg["members"]}
    unknown = sorted(set(answer) - members)
    if unknown:
        return f"assigns to {', '.join(unknown)}, not a member of the group"
    subscribed = _subscribed(arg)
    for tp, owners in sorted(_owners(answer).items()):
        if not 0 <= tp[1] < arg["topics"].get(tp[0], 0):
            return f"assigns {tp[0]}-{tp[1]}, which does not exist (cluster {arg['topics']})"
        if len(owners) > 1:
            return f"{tp[0]}-{tp[1]} assigned to {len(owners)} members: {', '.join(sorted(owners))}"
        if owners[0] not in subscribed.get(tp, ()):
            return f"{tp[0]}-{tp[1]} assigned to {owners[0]}, which is not subscribed to {tp[0]}"
    return None


def _withholding_reason(tp: TP, claims: list[tuple[str, int]], takers: set[str]) -> str | None:
    """Why a COOPERATIVE round may leave ``tp`` unassigned, or None when nothing justifies it.

    Its previous owner is the claimant of the highest generation among the partition's
    claims (KIP-792; several at that generation: contested, every one must revoke it, as
    Java's ``partitionsWithMultiplePreviousOwners``). The partition waits only when it
    is moving away from that owner, so it needs a taker: a subscribed member other than
    the owner."""
    if not claims:
        return None
    top = max(g for _, g in claims)
    owners = {m for m, g in claims if g == top}
    if len(owners) > 1:
        return "contested"
    if takers - owners:
        return "moving"
    return None


def no_partition_withheld(arg: dict, answer: dict, mode: str, contract: str | None) -> str | None:
    """No partition is left unassigned when some member subscribes to it and nobody must
    give it up first. EAGER: every member revoked everything before joining, so every
    subscribed partition is assigned. COOPERATIVE (KIP-429): a partition waits a round
    only while its previous owner must revoke it: "For maybe-revoking-partitions, check
    if the owner has changed. If yes, exclude them from the assigned-partitions list to
    the new owner. The old owner will realize it does not own it any more, revoke it and
    then trigger another rebalance for these partitions to finally be reassigned";
    ready-to-migrate partitions ("not previously owned by any one") are "safe to move
    them to the new member immediately". The previous owner is the claimant of the
    highest generation (KIP-792: "the only thing the lead cared about, is the highest
    generation of the ownedPartitions among all the consumers";
    ``AbstractStickyAssignor.allSubscriptionsEqual``: a lower generation's claim leaves
    it with the higher, two claims of one generation go to
    ``partitionsWithMultiplePreviousOwners``), and the partition moves only if another
    member subscribes to it (``CooperativeStickyAssignor.adjustAssignment`` removes a
    partition in ``partitionsTransferringOwnership`` from its *new* owner). So an
    unassigned subscribed partition that nobody claims, or whose only possible taker is
    its own sole owner, is withheld without a cooperative reason. Kafka's leader does not
    catch it: ``ConsumerCoordinator#validateCooperativeAssignment`` checks only that no
    partition is both added and revoked, and ``maybeUpdateGroupSubscription`` only warns,
    per topic ("The following subscribed topics are not assigned to any members"); the
    partition is consumed by nobody until the next rebalance."""
    subscribed = _subscribed(arg)
    assigned = set(_owners(answer))
    claimants = _claimants(arg) if mode == COOPERATIVE else {}
    withheld = []
    for tp, takers in sorted(subscribed.items()):
        if tp in assigned or _withholding_reason(tp, claimants.get(tp, []), takers):
            continue
        withheld.append(tp)
    if not withheld:
        return None
    why = ("nobody claims it or its sole owner is its only taker" if mode == COOPERATIVE
           else "an EAGER round withholds nothing")
    return f"{', '.join(f'{t}-{p}' for t, p in withheld)} subscribed and assigned to nobody ({why})"


def validate_cooperative_assignment(arg: dict, answer: dict, mode: str, contract: str | None) -> str | None:
    """ConsumerCoordinator#validateCooperativeAssignment (KIP-429): no partition is both
    added to one member and revoked from another in one round ("Assignor supporting the
    COOPERATIVE protocol violates its requirements")."""
    if mode != COOPERATIVE:
        return NOT_APPLICABLE
    added, revoked = set(), set()
    for m in arg["members"]:
        owned = {_tp(x) for x in m["owned_partitions"]}
        mine = {_tp(x) for x in answer.get(m["member_id"], ())}
        added |= mine - owned
        revoked |= owned - mine
    both = sorted(added & revoked)
    if both:
        return f"{', '.join(f'{t}-{p}' for t, p in both)} both added to one member and revoked from another in one round"
    return None


def generation_aware_claims(arg: dict, answer: dict, mode: str, contract: str | None) -> str | None:
    """KIP-792 (the generation of an ownedPartitions claim, subscription v2): of two
    claims on one partition the one of the lower generation is stale, so it must not keep
    a partition that a member of a higher generation also claims (KAFKA-12984,
    KAFKA-14639). Applies to COOPERATIVE rounds whose claimants carry generations."""
    if mode != COOPERATIVE:
        return NOT_APPLICABLE
    owners = _owners(answer)
    judged = False
    for tp, claims in sorted(_claimants(arg).items()):
        if len(claims) < 2:
            continue
        top = max(g for _, g in claims)
        if top < 0 or all(g == top for _, g in claims):
            continue
        judged = True
        for holder in owners.get(tp, ()):
            gen = next((g for m, g in claims if m == holder), None)
            if gen is not None and gen < top:
                newer = [m for m, g in claims if g == top]
                return (f"{tp[0]}-{tp[1]} given to {holder}, whose claim is of generation {gen}, while "
                        f"{', '.join(newer)} claims it at generation {top}")
    return None if judged else NOT_APPLICABLE


def assignment_balanced(arg: dict, answer: dict, mode: str, contract: str | None) -> str | None:
    """Balance where the assignor's contract states it: RoundRobinAssignor and KIP-54's
    StickyAssignor with every member subscribed to the same topics give counts within 1
    of each other; cooperative-sticky's final assignment is balanced, so a round that
    withholds nothing is too (the per-invocation form of the model's sticky_balanced)."""
    if contract is None or len(arg["members"]) < 2:
        return NOT_APPLICABLE
    topics = {tuple(sorted(m["topics"])) for m in arg["members"]}
    if len(topics) != 1:
        return NOT_APPLICABLE
    if contract == "complete" and set(_owners(answer)) != set(_subscribed(arg)):
        return NOT_APPLICABLE          # a round that withholds is not balanced yet
    counts = {m["member_id"]: len(answer.get(m["member_id"], ())) for m in arg["members"]}
    if max(counts.values()) - min(counts.values()) > 1:
        return "counts differ by more than 1 with equal subscriptions: " + ", ".join(f"{m}:{n}" for m, n in counts.items())
    return None


# the per-invocation claims, in the order they are reported
CLAIMS: dict[str, Callable[[dict, dict, str, str | None], str | None]] = {
    "assignment_valid": assignment_valid,
    "no_partition_withheld": no_partition_withheld,
    "validate_cooperative_assignment": validate_cooperative_assignment,
    "generation_aware_claims": generation_aware_claims,
    "assignment_balanced": assignment_balanced,
}
# claims about the implementation's answering itself
ANSWERS_DOC = ("an assignor answers every valid input: a definite error (fail) on a valid "
               "subscription set is a divergence; info (timeout, crash) is never judged")
DETERMINISTIC_DOC = ("ConsumerPartitionAssignor#assign is a function of its input (cluster, "
                     "subscriptions): the same input answered twice gets the same assignment")
DOCS = {"assignor_answers": ANSWERS_DOC, "deterministic": DETERMINISTIC_DOC,
        **{name: (f.__doc__ or "").strip() for name, f in CLAIMS.items()}}


def judge(arg: dict, answer: dict, mode: str, contract: str | None) -> dict[str, str | None]:
    """Every per-invocation claim on one answer: name -> None, message or NOT_APPLICABLE."""
    return {name: claim(arg, answer, mode, contract) for name, claim in CLAIMS.items()}

"""The claim ``no_partition_withheld``: a subscribed partition goes unassigned only while
its previous owner must revoke it (KIP-429), judged on crafted inputs and on a run: a
broken assignor that withholds without a cooperative reason is caught, the reference
cooperative-sticky (which withholds on purpose) is not."""
from groupcheck.console import Limits
from groupcheck.conform import driver, verdict
from groupcheck.conform.roles.assignor import claims, targets

COOP, EAGER = claims.COOPERATIVE, claims.EAGER


def member(mid, topics, owned=(), generation=-1, version=3):
    return {"member_id": mid, "version": version, "topics": list(topics),
            "owned_partitions": [list(x) for x in owned], "generation": generation, "user_data": None}


def arg(*members, topics=None):
    return {"topics": topics or {"t0": 2}, "members": list(members)}


def withheld(a, answer, mode=COOP):
    return claims.no_partition_withheld(a, answer, mode, None)


def test_an_unclaimed_partition_assigned_to_nobody_is_withheld():
    a = arg(member("c1", ["t0"]), member("c2", ["t0"]))
    assert withheld(a, {"c1": [["t0", 0]], "c2": []}) == (
        "t0-1 subscribed and assigned to nobody (nobody claims it or its sole owner is its only taker)")
    assert withheld(a, {"c1": [["t0", 0]], "c2": [["t0", 1]]}) is None


def test_an_eager_round_withholds_nothing_even_a_claimed_partition():
    a = arg(member("c1", ["t0"], owned=[("t0", 1)], generation=2), member("c2", ["t0"]))
    assert withheld(a, {"c1": [["t0", 0]], "c2": []}, EAGER) == (
        "t0-1 subscribed and assigned to nobody (an EAGER round withholds nothing)")


def test_a_partition_moving_away_from_its_owner_may_wait():
    """KIP-429's legitimate withholding: c1 owns t0-1, it is moving to c2."""
    a = arg(member("c1", ["t0"], owned=[("t0", 0), ("t0", 1)], generation=2), member("c2", ["t0"]))
    assert withheld(a, {"c1": [["t0", 0]], "c2": []}) is None


def test_a_contested_partition_may_wait_even_for_its_claimants():
    """Two claims at one generation: both must revoke (partitionsWithMultiplePreviousOwners)."""
    a = arg(member("c1", ["t0"], owned=[("t0", 0)], generation=3), member("c2", ["t0"], owned=[("t0", 0)], generation=3))
    assert withheld(a, {"c1": [["t0", 1]], "c2": []}) is None


def test_a_sole_owner_that_is_the_only_taker_is_not_made_to_wait():
    """c1 owns t0-0 and only c1 subscribes to t0: nothing to move, nobody must give it up."""
    a = arg(member("c1", ["t0"], owned=[("t0", 0)], generation=2), member("c2", ["t1"]), topics={"t0": 1, "t1": 1})
    assert withheld(a, {"c1": [], "c2": [["t1", 0]]}) == (
        "t0-0 subscribed and assigned to nobody (nobody claims it or its sole owner is its only taker)")


def test_a_stale_claimant_does_not_make_the_current_owner_wait_for_itself():
    """c1 claims t0-0 at generation 5, c2 at 3 (stale): c1 is the owner. With c2 not
    subscribed to t0 there is no taker but c1, so it may not wait; once c2 subscribes, it
    may (moving from c1 to c2)."""
    a = arg(member("c1", ["t0"], owned=[("t0", 0)], generation=5), member("c2", ["t1"], owned=[("t0", 0)], generation=3),
            topics={"t0": 1, "t1": 1})
    assert withheld(a, {"c1": [], "c2": [["t1", 0]]}) is not None
    a["members"][1]["topics"] = ["t0", "t1"]
    assert withheld(a, {"c1": [], "c2": [["t1", 0]]}) is None


def test_a_partition_nobody_subscribes_to_is_not_required():
    a = arg(member("c1", ["t1"], owned=[("t0", 0)], generation=2), topics={"t0": 1, "t1": 1})
    assert withheld(a, {"c1": [["t1", 0]]}) is None


def test_the_claim_is_listed_in_the_verdict_and_docs():
    assert "no_partition_withheld" in claims.CLAIMS and "KIP-429" in claims.DOCS["no_partition_withheld"]


def run(target, scope):
    return driver.run_target(target, driver.Settings(walks=0, progress_every=1e9, only=(scope,)),
                             Limits(100_000, 120, "4GiB"))


def test_a_broken_assignor_that_withholds_from_a_sole_owner_is_caught():
    r = run(targets.python_assignor("groupcheck.conform.targets.broken.assignors:WithholdsEveryClaim"), "kip-792-zombies")
    assert [d.property for d in r.divergences][:1] == ["no_partition_withheld"], [(d.property, d.message)
                                                                                for d in r.divergences]
    rows = {p["property"]: p for p in verdict.summary(r)["properties"]}
    assert rows["no_partition_withheld"]["status"] == "violated"
    assert rows["validate_cooperative_assignment"]["status"] == "held"


def test_the_reference_cooperative_sticky_withholds_only_for_a_reason():
    """The reference withholds partitions on purpose (``ownership.withhold``) in this scope;
    every such round is judged and none is flagged."""
    r = run(targets.resolve("reference:cooperative-sticky"), "kip-792-zombies")
    assert r.divergences == []
    rows = {p["property"]: p for p in verdict.summary(r)["properties"]}
    assert rows["no_partition_withheld"]["judged"] > 0 and rows["no_partition_withheld"]["status"] == "held"
    rec = r.recorder
    waited = [k for k, c in rec.calls.items() if c.answer is not None and "COOPERATIVE" in c.modes
              and claims._subscribed(c.argument).keys() - {tuple(x) for tps in c.answer.values() for x in tps}]
    assert waited, "the scope never made the reference withhold a partition: the test would prove nothing"

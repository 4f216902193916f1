"""The z3 queries of ``properties/smt``: proofs, weakened counterexamples, cross-checks.

* every query is proved at its stated bound (UNSAT of the negated claim);
* every weakened rule gives SAT, and the counterexample is re-checked in plain
  Python against the model's own functions (it really breaks the claim there, and
  the real rule does not);
* the encodings are cross-checked against the Python rules: concrete inputs
  (Hypothesis, or exhaustive for tiny sizes) are pinned in the solver and the
  encoded outputs, which must be determined by them, must equal the Python outputs.

Bounds: (a) M=1..4, P=6; (b) N=1..4 claimants, generations -1..5; (c) N=1..4
members over 3 protocols, K=1..4 assignors; (d) M=1..3, P=6. About 30 s on 2 cores,
almost all of it the cross-checks (the proofs themselves take well under a second).
"""
from __future__ import annotations

from itertools import permutations, product
from unittest import mock

import pytest  # noqa: E402
import z3  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402

from groupcheck.model.assignors import (ASSIGNORS, COOPERATIVE, EAGER, AssignorConfigError, Assignor,  # noqa: E402
                             Member, rebalance_protocol)
from groupcheck.model.assignors.ownership import Claim, resolve_claims, withhold  # noqa: E402
from groupcheck.model.consumer.selection import select_protocol  # noqa: E402
from groupcheck.model.partitions import existing as existing_partitions  # noqa: E402
from groupcheck.properties.smt import PROVED, COUNTEREXAMPLE, Result, all_queries  # noqa: E402
from groupcheck.properties.smt import cooperative_withholding_never_two_owners as qa  # noqa: E402
from groupcheck.properties.smt import inductive_no_double_ownership as qd  # noqa: E402
from groupcheck.properties.smt import protocol_selection_sound as qc  # noqa: E402
from groupcheck.properties.smt import stale_claims_never_win as qb  # noqa: E402
from groupcheck.properties.smt._common import evaluate  # noqa: E402

P = 6
SETTINGS = settings(max_examples=120, deadline=None)


def bits_of(mask: int) -> list[int]:
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


def test_all_queries_lists_each_query_once():
    names = [name for name, _ in all_queries()]
    assert names == ["cooperative_withholding_never_two_owners", "stale_claims_never_win",
                     "protocol_selection_sound", "inductive_no_double_ownership",
                     "negotiation_never_unreadable", "probing_table_complete_and_exclusive",
                     "topology_epoch_table_complete_and_exclusive", "reconcile_never_two_active_owners",
                     "request_validation_matches_kip", "consumer_reconcile_never_two_owners",
                     "consumer_validation_differences_exact"]
    for _, prove in all_queries():
        assert callable(prove)


# ============================================================================ proofs

@pytest.mark.parametrize("module, bound", [
    (qa, "M=1..4 members, P=6 partitions"),
    (qb, "N=1..4 claimants, generations -1..5"),
    (qc, "coordinator: N=1..4 members over 3 protocols; client: K=1..4 assignors from ASSIGNORS"),
    (qd, "M=1..3 members, P=6 partitions"),
])
def test_query_proved_at_stated_bound(module, bound):
    result = module.prove()
    assert isinstance(result, Result)
    assert result.status == PROVED and result.proved, str(result)
    assert result.counterexample is None and result.weakened is None
    assert result.name == module.NAME and result.bound == bound


def test_client_side_proved_for_any_protocol_subsets():
    result = qc.prove_client(table="any")
    assert result.proved, str(result)


def test_client_side_proved_with_an_assignor_table_that_can_fail():
    table = {"range": (EAGER,), "coop-only": (COOPERATIVE,), "none": (), "both": (COOPERATIVE, EAGER)}
    assert qc.prove_client(table=table).proved


def test_results_are_frozen():
    result = qd.prove(max_members=1)
    with pytest.raises(Exception):
        result.status = COUNTEREXAMPLE  # type: ignore[misc]


# ============================================================================ (a) withholding

def assert_two_owners(cex: dict) -> None:
    """The final assignment hands some partition to a member while another holds it."""
    final, previous, contested = cex["final"], cex["previous"], cex["contested"]
    clashes = [(p, m) for m, mask in final.items() for p in bits_of(mask)
               if contested >> p & 1 or any(previous[k] >> p & 1 for k in previous if k != m)]
    assert clashes, cex


def assert_premises_hold(cex: dict) -> None:
    prev, intended = cex["previous"], cex["intended"]
    ms = list(prev)
    for i in ms:
        assert prev[i] & cex["contested"] == 0
        assert intended[i] & ~cex["existing"] == 0
        for j in ms:
            if i != j:
                assert prev[i] & prev[j] == 0 and intended[i] & intended[j] == 0


@pytest.mark.parametrize("weakening", qa.WEAKENINGS)
def test_withholding_weakened_gives_two_owners(weakening):
    result = qa.prove(weakened=weakening)
    assert result.status == COUNTEREXAMPLE and result.weakened == weakening, str(result)
    cex = result.counterexample
    assert cex["members"] >= 2 and cex["violated"]
    assert_premises_hold(cex)
    if weakening == "no-withholding":
        assert cex["final"] == cex["intended"]
    else:
        assert cex["final"] == withhold(cex["intended"], cex["previous"], 0)
    assert_two_owners(cex)
    # The real rule on the same input hands nothing out twice.
    real = withhold(cex["intended"], cex["previous"], cex["contested"])
    with pytest.raises(AssertionError):
        assert_two_owners({**cex, "final": real})


def test_withholding_default_weakening_is_no_withholding():
    assert qa.prove(weakened=True).weakened == "no-withholding"


def _withhold_outputs(m: int, intended, previous, contested):
    iv = [z3.BitVec(f"i{k}", P) for k in range(m)]
    pv = [z3.BitVec(f"p{k}", P) for k in range(m)]
    cv = z3.BitVec("c", P)
    final = qa.withhold_z3(iv, pv, cv)
    pins = [*(v == x for v, x in zip(iv, intended)), *(v == x for v, x in zip(pv, previous)), cv == contested]
    return evaluate([], pins, {f"final_{k}": f for k, f in enumerate(final)})


masks = st.integers(0, (1 << P) - 1)


@SETTINGS
@given(st.integers(1, 4).flatmap(lambda m: st.tuples(
    st.just(m), st.lists(masks, min_size=m, max_size=m), st.lists(masks, min_size=m, max_size=m), masks)))
def test_crosscheck_withhold_encoding(case):
    """Arbitrary (even overlapping) masks: withhold_z3 pinned == ownership.withhold."""
    m, intended, previous, contested = case
    ids = list(range(m))
    want = withhold(dict(zip(ids, intended)), dict(zip(ids, previous)), contested)
    got = _withhold_outputs(m, intended, previous, contested)
    assert got == {f"final_{k}": want[k] for k in ids}


claim_st = st.lists(st.tuples(masks, st.integers(-1, 5)), min_size=1, max_size=4)


def _claims(raw) -> list[Claim]:
    return [Claim(i, owned, gen) for i, (owned, gen) in enumerate(raw)]


@SETTINGS
@given(claim_st, st.lists(st.integers(0, 3), min_size=4, max_size=4), st.data())
def test_crosscheck_model_assignors_meet_withholding_premises(raw, subs, data):
    """resolve_claims + every ASSIGNORS plan produce inputs inside query (a)'s premises."""
    claims = _claims(raw)
    resolved = resolve_claims(claims, "per-partition-generation")
    counts, stride = (3, 3), 3
    members = tuple(Member(member_id=c.member_id, eligible=existing_partitions(counts, stride, subs[c.member_id] or 1),
                           claims=resolved.kept[c.member_id]) for c in claims)
    name = data.draw(st.sampled_from(sorted(ASSIGNORS)))
    intended = ASSIGNORS[name].plan(members, stride)
    every = existing_partitions(counts, stride)
    m = len(claims)
    inst = qa.instance(m, P)
    prev = [z3.BitVec(f"previous_{k}", P) for k in range(m)]
    intv = [z3.BitVec(f"intended_{k}", P) for k in range(m)]
    pins = [*(v == resolved.kept[k] for k, v in enumerate(prev)),
            *(v == intended.get(k, 0) for k, v in enumerate(intv)),
            z3.BitVec("contested", P) == resolved.contested, z3.BitVec("existing", P) == every]
    assert evaluate(inst.premises, pins, {}) is not None, (name, claims, resolved, intended)


# ============================================================================ (b) stale claims

def _one_partition_claims(cex: dict) -> list[Claim]:
    return [Claim(i, int(c), g) for i, (c, g) in enumerate(zip(cex["claims"], cex["generations"]))]


def py_broken_parts(claims: list[Claim], keeps: list[bool], contested: bool) -> set[str]:
    """Plain-Python reading of query (b)'s claims: the parts ``keeps``/``contested`` break."""
    n = len(claims)
    c = [bool(x.owned) for x in claims]
    g = [x.generation for x in claims]
    others = [[j for j in range(n) if j != i] for i in range(n)]
    top = max((g[i] for i in range(n) if c[i]), default=None)
    broken = set()
    if any(keeps[i] and not c[i] for i in range(n)):
        broken.add("keeper_claimed")
    if any(keeps[i] and c[j] and g[j] > g[i] for i in range(n) for j in others[i]):
        broken.add("no_stale_keeper")
    if any(keeps[i] and c[j] and g[j] == g[i] for i in range(n) for j in others[i]):
        broken.add("tie_keeps_from_both")
    if sum(keeps) > 1:
        broken.add("unique_keeper")
    if any(c[i] and all(not c[j] or g[j] < g[i] for j in others[i]) and not keeps[i] for i in range(n)):
        broken.add("unique_top_keeps")
    if contested != (sum(1 for i in range(n) if c[i] and g[i] == top) >= 2):
        broken.add("contested_iff_top_tie")
    return broken


@pytest.mark.parametrize("rule", qb.WEAKENINGS)
def test_stale_claims_weakened_rules_counterexample(rule):
    result = qb.prove(weakened=rule)
    assert result.status == COUNTEREXAMPLE and result.weakened == rule, str(result)
    cex = result.counterexample
    claims = _one_partition_claims(cex)
    if rule == "first-claimant":
        first = next(i for i, c in enumerate(claims) if c.owned)
        keeps, contested = [i == first for i in range(len(claims))], False
    else:   # the model's own (historical) rule on the same claims
        resolved = resolve_claims(claims, rule)
        keeps = [bool(resolved.kept[c.member_id] & 1) for c in claims]
        contested = bool(resolved.contested & 1)
    assert (keeps, contested) == (cex["keeps"], cex["contested"])
    broken = py_broken_parts(claims, keeps, contested)
    assert broken and broken == set(cex["violated"]), (broken, cex)
    real = resolve_claims(claims, "per-partition-generation")
    assert not py_broken_parts(claims, [bool(real.kept[c.member_id] & 1) for c in claims],
                               bool(real.contested & 1))


def test_stale_claims_default_weakening_is_trust_all():
    assert qb.prove(weakened=True).weakened == "trust-all"


EXPECTED_PROFILES = {
    "per-partition-generation": set(),
    "trust-all": {"no_stale_keeper", "tie_keeps_from_both", "unique_keeper", "contested_iff_top_tie"},
    "first-claimant": {"no_stale_keeper", "tie_keeps_from_both", "unique_top_keeps", "contested_iff_top_tie"},
    "highest-generation-only": {"tie_keeps_from_both", "unique_keeper", "unique_top_keeps",
                                "contested_iff_top_tie"},
}


@pytest.mark.parametrize("rule", sorted(EXPECTED_PROFILES))
def test_stale_claims_profile_per_rule(rule):
    """Which parts each rule breaks; highest-generation-only never lets a stale claim
    win (``no_stale_keeper`` proved) but lets two top-generation claimants keep."""
    profile = qb.profile(rule)
    broken = {part for part, r in profile.items() if r.status == COUNTEREXAMPLE}
    assert broken == EXPECTED_PROFILES[rule], {k: str(v) for k, v in profile.items()}
    for part in broken:
        cex = profile[part].counterexample
        assert cex["violated"] == [part]
        claims = _one_partition_claims(cex)
        assert part in py_broken_parts(claims, cex["keeps"], cex["contested"])
    if rule == "highest-generation-only":
        cex = profile["unique_keeper"].counterexample
        claims = _one_partition_claims(cex)
        kept = resolve_claims(claims, rule).kept
        keepers = [c.member_id for c in claims if kept[c.member_id] & 1]
        assert len(keepers) >= 2 and len({claims[i].generation for i in keepers}) == 1


def _fold_outputs(claims: list[Claim], rule: str) -> dict:
    """Pin every partition's per-claimant inputs; read keeps/contested per bit."""
    n = len(claims)
    gens = [z3.Int(f"generation_{i}") for i in range(n)]
    premises, pins, outputs = qb.domain(gens), [g == c.generation for g, c in zip(gens, claims)], {}
    for b in range(P):
        cl = [z3.Bool(f"claims_{b}_{i}") for i in range(n)]
        pins += [v == bool(c.owned >> b & 1) for v, c in zip(cl, claims)]
        keeps, contested = qb.fold(cl, gens, rule)
        outputs.update({f"keeps_{b}_{i}": k for i, k in enumerate(keeps)})
        outputs[f"contested_{b}"] = contested
    return evaluate(premises, pins, outputs)


@pytest.mark.slow
@SETTINGS
@given(claim_st)
def test_crosscheck_claim_fold_against_resolve_claims(raw):
    claims = _claims(raw)
    for rule in ("per-partition-generation", "highest-generation-only", "trust-all"):
        want = resolve_claims(claims, rule)
        got = _fold_outputs(claims, rule)
        assert got is not None
        for b in range(P):
            assert got[f"contested_{b}"] == bool(want.contested >> b & 1), (rule, b, claims, want)
            for i, c in enumerate(claims):
                assert got[f"keeps_{b}_{i}"] == bool(want.kept[c.member_id] >> b & 1), (rule, b, claims, want)


def test_crosscheck_claim_fold_exhaustive_three_claimants():
    """Every (claims, generation) combination of 3 claimants, generations -1..2: per
    generation vector, the 8 claim patterns as bit-parallel partitions (512 inputs)."""
    patterns = list(product((False, True), repeat=3))
    for gens in product(range(-1, 3), repeat=3):
        for start in range(0, len(patterns), P):
            group = patterns[start:start + P]
            claims = [Claim(i, sum(1 << b for b, pat in enumerate(group) if pat[i]), gens[i])
                      for i in range(3)]
            for rule in ("per-partition-generation", "highest-generation-only"):
                want = resolve_claims(claims, rule)
                got = _fold_outputs(claims, rule)
                for b in range(len(group)):
                    assert got[f"contested_{b}"] == bool(want.contested >> b & 1), (rule, claims)
                    for i in range(3):
                        assert got[f"keeps_{b}_{i}"] == bool(want.kept[i] >> b & 1), (rule, claims)


# ============================================================================ (c) protocol selection

def test_protocol_selection_weakened_union_coordinator():
    result = qc.prove_coordinator(weakened="union")
    assert result.status == COUNTEREXAMPLE, str(result)
    cex = result.counterexample
    lists, selected = [tuple(x) for x in cex["member_protocols"]], cex["selected"]
    assert selected is not None and any(selected not in lst for lst in lists), cex
    real = select_protocol(lists)
    assert real is None or all(real in lst for lst in lists)


def test_protocol_selection_weakened_union_client():
    result = qc.prove_client(weakened="union", table="any")
    assert result.status == COUNTEREXAMPLE, str(result)
    cex = result.counterexample
    assert cex["selected"] is not None and any(cex["selected"] not in s for s in cex["supported"]), cex


def test_protocol_selection_weakened_union_client_on_the_real_table():
    """With ASSIGNORS alone the union picks COOPERATIVE for e.g. range + cooperative-sticky."""
    result = qc.prove_client(weakened="union")
    assert result.status == COUNTEREXAMPLE, str(result)
    cex = result.counterexample
    supported = [ASSIGNORS[a].supported_protocols for a in cex["assignors"]]
    assert any(cex["selected"] not in s for s in supported), cex
    real = rebalance_protocol(tuple(cex["assignors"]))
    assert all(real in s for s in supported)


def test_protocol_selection_weakened_lowest_id():
    result = qc.prove(weakened="lowest-id")
    assert result.status == COUNTEREXAMPLE and result.counterexample["side"] == "client", str(result)
    cex = result.counterexample
    real = rebalance_protocol(tuple(cex["assignors"]))
    assert cex["selected"] != real and cex["violated"] == ["highest_common_id"]
    common = set.intersection(*(set(ASSIGNORS[a].supported_protocols) for a in cex["assignors"]))
    assert cex["selected"] in common and real in common


def test_protocol_selection_default_weakening_is_union():
    result = qc.prove(weakened=True)
    assert result.weakened == "union" and result.status == COUNTEREXAMPLE


def _select_outputs(lists: list[tuple[str, ...]]):
    n = len(lists)
    sets, orders = qc.coordinator_variables(n)
    result, _ = qc.select_z3(sets, orders)
    pins = []
    for s, o, lst in zip(sets, orders, lists):
        mask, order = qc.encode_member(lst)
        assert qc.member_list(mask, order) == tuple(lst)
        pins += [s == mask, o == order]
    got = evaluate(qc.coordinator_domain(orders), pins, {"selected": result})
    assert got is not None
    r = got["selected"]
    return None if r == qc.NO_PROTOCOL else qc.UNIVERSE[r]


ALL_LISTS = [tuple(p) for k in range(len(qc.UNIVERSE) + 1) for p in permutations(qc.UNIVERSE, k)]


def test_crosscheck_coordinator_selection_exhaustive_up_to_two_members():
    assert len(ALL_LISTS) == 16
    for n in (1, 2):
        for lists in product(ALL_LISTS, repeat=n):
            assert _select_outputs(list(lists)) == select_protocol(list(lists)), lists


@SETTINGS
@given(st.lists(st.sampled_from(ALL_LISTS), min_size=3, max_size=4))
def test_crosscheck_coordinator_selection_random(lists):
    assert _select_outputs(lists) == select_protocol(lists)


def _client_output(names: tuple[str, ...]):
    k = len(names)
    masks = qc.table_masks()
    index = [n for n, _ in masks]
    chosen = [z3.Int(f"assignor_{i}") for i in range(k)]
    inst = qc.client_instance(k)
    got = evaluate(inst.premises, [c == index.index(n) for c, n in zip(chosen, names)],
                   {"selected": qc.client_z3([_table_lookup(c, masks) for c in chosen])[0]})
    assert got is not None
    return None if got["selected"] == qc.NO_PROTOCOL else qc.protocol_name(got["selected"])


def _table_lookup(c, masks):
    w = qc.protocol_width()
    s = z3.BitVecVal(masks[-1][1], w)
    for j in reversed(range(len(masks) - 1)):
        s = z3.If(c == j, z3.BitVecVal(masks[j][1], w), s)
    return s


def _python_client(names: tuple[str, ...]):
    try:
        return rebalance_protocol(names)
    except AssignorConfigError:
        return None


def test_crosscheck_client_protocol_exhaustive_on_assignors_table():
    """Every list of 1..3 assignors from ASSIGNORS (155 lists), plus every 4-list
    that starts with "range"/"cooperative-sticky" (250)."""
    names = list(ASSIGNORS)
    cases = [c for k in (1, 2, 3) for c in product(names, repeat=k)]
    cases += [c for c in product(names, repeat=4) if c[0] in ("range", "cooperative-sticky")]
    for case in cases:
        assert _client_output(case) == _python_client(case), case


EXTRA = {
    "coop-only": (COOPERATIVE,),
    "no-protocol": (),
}


@SETTINGS
@given(st.lists(st.sampled_from(sorted(ASSIGNORS) + sorted(EXTRA)), min_size=1, max_size=4))
def test_crosscheck_client_protocol_with_custom_assignors(names):
    """Custom assignors in the table (patched) reach the error branch of both sides."""
    base = ASSIGNORS["range"]
    extra = {n: Assignor(name=n, supported_protocols=protos, builtin=False, claims_from=None, withholds=False,
                         plan=base.plan) for n, protos in EXTRA.items()}
    with mock.patch.dict(ASSIGNORS, extra):
        case = tuple(names)
        assert _client_output(case) == _python_client(case), case


# ============================================================================ (d) induction

def py_inv(owned: list[int], pending: list[int]) -> bool:
    m = len(owned)
    return all(owned[a] & owned[b] == 0 and pending[a] & pending[b] == 0
               for a in range(m) for b in range(a + 1, m)) and \
        all(pending[a] & owned[b] == 0 for a in range(m) for b in range(m) if a != b)


def py_step(owned, pending, choice, intended, withholding=True):
    m = len(owned)
    if choice < m:
        owned = list(owned)
        owned[choice] = pending[choice]
        return owned, list(pending)
    if not withholding:
        return list(owned), list(intended)
    final = withhold(dict(enumerate(intended)), dict(enumerate(owned)), 0)
    return list(owned), [final[i] for i in range(m)]


def test_induction_weakened_not_inductive():
    result = qd.prove(weakened=True)
    assert result.status == COUNTEREXAMPLE and result.weakened == "no-withholding", str(result)
    cex = result.counterexample
    assert cex["phase"] == "consecution"
    owned, pending, choice, intended = cex["owned"], cex["pending"], cex["choice"], cex["intended"]
    assert py_inv(owned, pending)
    assert all(intended[a] & intended[b] == 0 for a in range(len(owned)) for b in range(a + 1, len(owned)))
    weak = py_step(owned, pending, choice, intended, withholding=False)
    assert weak == (cex["owned_next"], cex["pending_next"])
    assert not py_inv(*weak)
    assert py_inv(*py_step(owned, pending, choice, intended, withholding=True))


@SETTINGS
@given(st.integers(1, 3).flatmap(lambda m: st.tuples(st.just(m), st.lists(
    st.tuples(st.integers(0, m), st.lists(st.integers(-1, m - 1), min_size=P, max_size=P)),
    max_size=12))))
def test_induction_python_runs_keep_the_invariant(case):
    """Random runs of the Python step from the empty state keep ``inv`` (sanity check
    that the proved invariant is about the same transition the model takes)."""
    m, steps = case
    owned, pending = [0] * m, [0] * m
    for choice, owner_of in steps:
        intended = [sum(1 << p for p, o in enumerate(owner_of) if o == i) for i in range(m)]
        owned, pending = py_step(owned, pending, choice, intended)
        assert py_inv(owned, pending)
        assert all(owned[a] & owned[b] == 0 for a in range(m) for b in range(a + 1, m))


@SETTINGS
@given(st.integers(1, 3).flatmap(lambda m: st.tuples(
    st.just(m), st.lists(masks, min_size=m, max_size=m), st.lists(masks, min_size=m, max_size=m),
    st.integers(0, m), st.lists(masks, min_size=m, max_size=m))))
def test_crosscheck_induction_step_encoding(case):
    m, owned, pending, choice, intended = case
    ov = [z3.BitVec(f"o{i}", P) for i in range(m)]
    pv = [z3.BitVec(f"p{i}", P) for i in range(m)]
    iv = [z3.BitVec(f"i{i}", P) for i in range(m)]
    cv = z3.Int("choice")
    o2, p2 = qd.step_z3(ov, pv, cv, iv)
    pins = [*(v == x for v, x in zip(ov, owned)), *(v == x for v, x in zip(pv, pending)),
            *(v == x for v, x in zip(iv, intended)), cv == choice]
    outputs = {**{f"o{i}": e for i, e in enumerate(o2)}, **{f"p{i}": e for i, e in enumerate(p2)},
               "inv": qd.inv(ov, pv)}
    got = evaluate([], pins, outputs)
    want_o, want_p = py_step(owned, pending, choice, intended)
    assert [got[f"o{i}"] for i in range(m)] == want_o
    assert [got[f"p{i}"] for i in range(m)] == want_p
    assert got["inv"] == py_inv(owned, pending)

"""Model.state_claims / step_claims: the always/within claims check_state and check_step
run, in ``properties`` order, for every protocol."""
from __future__ import annotations

from dataclasses import replace

from groupcheck.protocols import PROTOCOLS, get


def test_claim_lists_are_the_always_and_within_claims_in_order():
    for name in PROTOCOLS:
        model = get(name).model
        for on, listed in (("state", model.state_claims), ("step", model.step_claims)):
            assert listed == tuple(p for p in model.properties if p.kind != "sometimes" and p.on == on)


def test_a_replaced_model_lists_its_own_claims():
    model = get("consumer").model
    fewer = replace(model, properties=model.properties[:1])
    assert fewer.state_claims == model.properties[:1] and fewer.step_claims == ()

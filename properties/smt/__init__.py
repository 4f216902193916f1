"""z3 (SMT) queries over groupcheck's reference rules, each proved up to a stated bound.

A query is proved when the negation of its claim is UNSAT for every input in its
bound; each also has weakened rules for which z3 finds a counterexample (SAT).
Every module exposes ``prove(..., weakened=False) -> Result``; ``all_queries()``
lists them for a CLI or benchmark.

==========================================  =============================================
query                                       bound
==========================================  =============================================
cooperative_withholding_never_two_owners    M=1..4 members, P=6 partitions
stale_claims_never_win                      N=1..4 claimants, generations -1..5
protocol_selection_sound                    N=1..4 members x 3 protocols; K=1..4 assignors
inductive_no_double_ownership               M=1..3 members, P=6 partitions
negotiation_never_unreadable                N=1..12 Streams members, versions 1..12, every profile
probing_table_complete_and_exclusive        N=1..12 Streams members, versions 1..12, per family
topology_epoch_table_complete_and_exclusive ER, EG any non-negative ints, every streams-group profile
reconcile_never_two_active_owners           M=1..3 members, T=4 tasks, any processes (query h)
request_validation_matches_kip              StreamsGroupHeartbeat views: epochs any ints, fields free
consumer_reconcile_never_two_owners         M=1..3 members, P=4 partitions, both KIP-848 blocking rules (query j)
consumer_validation_differences_exact       ConsumerGroupHeartbeat views: epochs any ints, fields free (query k)
==========================================  =============================================
"""
from typing import Callable

from ._common import COUNTEREXAMPLE, PROVED, Result

def all_queries() -> list[tuple[str, Callable[..., Result]]]:
    """(name, prove) for every query, in the order (a)-(k); each prove takes ``weakened``."""
    from . import (cooperative_withholding_never_two_owners as a, inductive_no_double_ownership as d,
                   protocol_selection_sound as c, reconcile_never_two_active_owners as h,
                   stale_claims_never_win as b, streams_negotiation_readable as e,
                   streams_probing_decision_table as f, streams_request_validation as i,
                   streams_topology_epoch_table as g, consumer_group_reconcile_exclusive as j,
                   consumer_group_request_validation as k)
    return [(m.NAME, m.prove) for m in (a, b, c, d, e, f, g, h, i, j, k)]

__all__ = ["COUNTEREXAMPLE", "PROVED", "Result", "all_queries"]

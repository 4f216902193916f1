--------------------------- MODULE MCConsumerSticky ---------------------------
(* TLC's model of Consumer at the pinned scope MCConsumerSticky of           *)
(* manifest.json: EAGER sticky: two consumers of KIP-54's StickyAssignor,    *)
(* one topic of two partitions, one lost response. Expected: 3,675 distinct  *)
(* states (the Python model's BFS without symmetry reduction finds the same  *)
(* states), no invariant or step claim violated.                             *)
EXTENDS Consumer

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {"lose_response"}
=============================================================================

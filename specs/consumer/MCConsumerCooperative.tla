------------------------ MODULE MCConsumerCooperative -------------------------
(* TLC's model of Consumer at the pinned scope MCConsumerCooperative of      *)
(* manifest.json: COOPERATIVE: two consumers of cooperative-sticky, one      *)
(* topic of two partitions, one lost response (of any request). Expected:    *)
(* 5,127 distinct states (the Python model's BFS without symmetry reduction  *)
(* finds the same states), no invariant or step claim violated.              *)
EXTENDS Consumer

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {"lose_response"}
=============================================================================

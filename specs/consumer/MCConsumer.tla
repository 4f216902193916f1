------------------------------ MODULE MCConsumer ------------------------------
(* TLC's model of Consumer at the pinned scope MCConsumer of manifest.json:   *)
(* two consumers of the range assignor, one topic of one partition, one     *)
(* fault among crash, pause and a lost response. Expected: 17,770 distinct   *)
(* states (the Python model's BFS without symmetry reduction finds the same *)
(* states), no invariant violated.                                         *)
EXTENDS Consumer

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {"crash", "pause", "lose_response"}
=============================================================================

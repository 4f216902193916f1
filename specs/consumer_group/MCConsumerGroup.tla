--------------------------- MODULE MCConsumerGroup ---------------------------
(* TLC's model of ConsumerGroup at the pinned scope MCConsumerGroup of       *)
(* manifest.json: two consumers, one topic of two partitions, no faults.    *)
(* Expected: 2,052 distinct states (the Python model's BFS without           *)
(* symmetry reduction finds the same states).                              *)
EXTENDS ConsumerGroup

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {}
MCOperations == {}
=============================================================================

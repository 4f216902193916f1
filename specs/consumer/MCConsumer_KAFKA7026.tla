------------------------- MODULE MCConsumer_KAFKA7026 -------------------------
(* TLC's model of the KAFKA-7026 variant: two consumers of the sticky        *)
(* assignor, one topic of two partitions, one pause, generation <= 3.        *)
(* Expected: a violation of no_double_ownership (35 steps in the shortest    *)
(* trace; 14,300 distinct states in all).                                    *)
EXTENDS Consumer_KAFKA7026

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {"pause"}
=============================================================================

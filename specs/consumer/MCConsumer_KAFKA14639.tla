------------------------ MODULE MCConsumer_KAFKA14639 -------------------------
(* TLC's model of the KAFKA-14639 variant: three consumers of cooperative-   *)
(* sticky, one topic of one partition, one lost response, generation <= 3.   *)
(* Expected: a violation of no_double_ownership (33 steps in the shortest    *)
(* trace).                                                                   *)
EXTENDS Consumer_KAFKA14639

MCSlots == {0, 1, 2}
MCPartitions == {0}
MCFaults == {"lose_response"}
=============================================================================

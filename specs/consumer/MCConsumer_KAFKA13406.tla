------------------------ MODULE MCConsumer_KAFKA13406 -------------------------
(* TLC's model of the KAFKA-13406 variant at the model's scope: three        *)
(* consumers of cooperative-sticky, one topic of two partitions, one lost    *)
(* response, generation <= 5. Expected: a violation of converges_within_k    *)
(* (57 steps in the shortest trace).                                         *)
EXTENDS Consumer_KAFKA13406

MCSlots == {0, 1, 2}
MCPartitions == {0, 1}
MCFaults == {"lose_response"}
=============================================================================

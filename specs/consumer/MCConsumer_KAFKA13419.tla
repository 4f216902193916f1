------------------------- MODULE MCConsumer_KAFKA13419 -------------------------
(* TLC's model of the KAFKA-13419 variant: two consumers, one partition, one *)
(* SyncGroup timeout. Expected: a violation of no_double_ownership (the      *)
(* shortest trace has 19 steps; 2,558 distinct states in all).              *)
EXTENDS Consumer_KAFKA13419

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {"timeout"}
=============================================================================

--------------------- MODULE MCConsumerGroup_KAFKA16249 ---------------------
(* TLC's model of the KAFKA-16249 variant: two consumers, one partition, one *)
(* lost response. Expected: 7,041 distinct states and a violation of the     *)
(* step claim join_epoch_is_rejoin (the model's shortest counterexample has  *)
(* 7 steps).                                                                 *)
EXTENDS ConsumerGroup_KAFKA16249

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {"lose_response"}
MCOperations == {}

\* the step claim as a temporal property (TLC checks it with PROPERTY)
Claim == [][join_epoch_is_rejoin]_vars
=============================================================================

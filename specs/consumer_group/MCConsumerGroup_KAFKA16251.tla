--------------------- MODULE MCConsumerGroup_KAFKA16251 ---------------------
(* TLC's model of the KAFKA-16251 variant: one consumer, one partition, one  *)
(* session timeout. Expected: 91 distinct states and a violation of the step *)
(* claim join_epoch_is_rejoin (the model's shortest counterexample has 9     *)
(* steps).                                                                   *)
EXTENDS ConsumerGroup_KAFKA16251

MCSlots == {0}
MCPartitions == {0}
MCFaults == {"session_timeout"}
MCOperations == {}

\* the step claim as a temporal property (TLC checks it with PROPERTY)
Claim == [][join_epoch_is_rejoin]_vars
=============================================================================

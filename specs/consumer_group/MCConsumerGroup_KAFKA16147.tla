--------------------- MODULE MCConsumerGroup_KAFKA16147 ---------------------
(* TLC's model of the KAFKA-16147 variant: two consumers, one partition, one *)
(* roll (a consumer closes and restarts). Expected: 3,886 distinct states    *)
(* and a violation of the step claim revoke_before_reassign (the model's     *)
(* shortest counterexample has 17 steps).                                    *)
EXTENDS ConsumerGroup_KAFKA16147

MCSlots == {0, 1}
MCPartitions == {0}
MCFaults == {}
MCOperations == {"roll"}

\* the step claim as a temporal property (TLC checks it with PROPERTY)
Claim == [][revoke_before_reassign]_vars
=============================================================================

--------------------- MODULE MCConsumerGroup_KAFKA18641 ---------------------
(* TLC's model of the KAFKA-18641 variant: one consumer, one partition, one  *)
(* record, commit policy auto, one crash. Expected: a violation of the       *)
(* invariant no_record_lost (the model's shortest counterexample has 9       *)
(* steps: the record polled, the interval auto-commit of its position        *)
(* accepted, a crash before it is processed).                               *)
EXTENDS ConsumerGroup_KAFKA18641

MCSlots == {0}
MCPartitions == {0}
MCFaults == {"crash"}
MCOperations == {}
=============================================================================

------------------------ MODULE MCConsumerGroup_KAFKA20442 ------------------------
(* TLC's model of the KAFKA-20442 variant: two consumers, one topic of two  *)
(* partitions, up to two leaves. Expected: 4,674 distinct states and a      *)
(* violation of empty_epochs_equal after 6 steps (both consumers join, one  *)
(* ... the last one leaves).                                                *)
EXTENDS ConsumerGroup_KAFKA20442

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {}
MCOperations == {"leave"}
=============================================================================

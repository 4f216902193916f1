-------------------- MODULE MCConsumer_KIP429NoWithholding --------------------
(* TLC's model of the KIP-429-no-withholding variant: two consumers of       *)
(* cooperative-sticky, one topic of two partitions, no fault. Expected: a    *)
(* violation of no_double_ownership (21 steps in the shortest trace; 644     *)
(* distinct states in all).                                                  *)
EXTENDS Consumer_KIP429NoWithholding

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {}
=============================================================================

-------------------- MODULE MCConsumerCooperativeLiveness --------------------
(* TLC's model of Consumer's liveness claim SettlesUnderFairness at the     *)
(* pinned scope MCConsumerCooperative of manifest.json (COOPERATIVE: two    *)
(* consumers of cooperative-sticky, one topic of two partitions, one lost   *)
(* response), under Fairness (weak fairness per step kind and slot): the    *)
(* follow-up rebalance after a revocation, and a lost JoinGroup, SyncGroup  *)
(* or Heartbeat response, end converged. The same claim as                 *)
(* `groupcheck check --protocol consumer --fairness` at that scope.        *)
EXTENDS Consumer

MCSlots == {0, 1}
MCPartitions == {0, 1}
MCFaults == {"lose_response"}
=============================================================================

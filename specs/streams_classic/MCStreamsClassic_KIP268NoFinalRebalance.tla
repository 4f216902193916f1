--------------- MODULE MCStreamsClassic_KIP268NoFinalRebalance ----------------
(* TLC's model of the KIP-268-no-final-rebalance variant: two instances, two   *)
(* tasks, a bounce from 2.0 onto 2.3 under KIP-268's own rules (the kip-268    *)
(* profile) with no final rebalance. Expected: a violation of upgrade_completes *)
(* (the shortest trace has 13 steps; 508 distinct states in all).              *)
EXTENDS StreamsClassic_KIP268NoFinalRebalance

MCInstances == {0, 1}
MCTasks == {0, 1}
MCPlan == [st \in 0 .. 1 |->
             IF st = 0 THEN [release |-> "2.0", latest |-> 3, used |-> 3, protocol |-> "EAGER", family |-> "kip-268", cooperative |-> FALSE, fix8649 |-> FALSE, assignmentError |-> FALSE]
             ELSE [release |-> "2.3", latest |-> 4, used |-> 4, protocol |-> "EAGER", family |-> "kip-268", cooperative |-> FALSE, fix8649 |-> TRUE, assignmentError |-> FALSE]]
MCFaults == {}
MCOperations == {"bounce"}
=============================================================================

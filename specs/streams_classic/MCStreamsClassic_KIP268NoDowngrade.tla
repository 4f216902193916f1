------------------ MODULE MCStreamsClassic_KIP268NoDowngrade ------------------
(* TLC's model of the KIP-268-no-downgrade variant: two instances, two tasks,  *)
(* a bounce from 2.4 onto 3.9, a probed follower never downgrades; generations *)
(* below 6. Expected: a violation of rebalances_bounded (the shortest trace    *)
(* has 20 steps; 699 distinct states in all).                                  *)
EXTENDS StreamsClassic_KIP268NoDowngrade

MCInstances == {0, 1}
MCTasks == {0, 1}
MCPlan == [st \in 0 .. 1 |->
             IF st = 0 THEN [release |-> "2.4", latest |-> 5, used |-> 5, protocol |-> "COOPERATIVE", family |-> "kafka-2.6+", cooperative |-> TRUE, fix8649 |-> TRUE, assignmentError |-> FALSE]
             ELSE [release |-> "3.9", latest |-> 11, used |-> 11, protocol |-> "COOPERATIVE", family |-> "kafka-2.6+", cooperative |-> TRUE, fix8649 |-> TRUE, assignmentError |-> TRUE]]
MCFaults == {}
MCOperations == {"bounce"}
=============================================================================

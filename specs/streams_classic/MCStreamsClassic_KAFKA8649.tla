---------------------- MODULE MCStreamsClassic_KAFKA8649 ----------------------
(* TLC's model of the KAFKA-8649 variant: two instances, two tasks, a bounce   *)
(* from 2.0 onto 2.3 without KAFKA-8649's fix. Expected: a violation of        *)
(* used_version_supported (the shortest trace has 6 steps; 608 distinct states *)
(* in all).                                                                    *)
EXTENDS StreamsClassic_KAFKA8649

MCInstances == {0, 1}
MCTasks == {0, 1}
MCPlan == [st \in 0 .. 1 |->
             IF st = 0 THEN [release |-> "2.0", latest |-> 3, used |-> 3, protocol |-> "EAGER", family |-> "kip-268", cooperative |-> FALSE, fix8649 |-> FALSE, assignmentError |-> FALSE]
             ELSE [release |-> "2.3", latest |-> 4, used |-> 4, protocol |-> "EAGER", family |-> "kip-268", cooperative |-> FALSE, fix8649 |-> TRUE, assignmentError |-> FALSE]]
MCFaults == {}
MCOperations == {"bounce"}
=============================================================================

---------------------- MODULE MCStreamsClassic_KAFKA6054 ----------------------
(* TLC's model of the KAFKA-6054 variant: two instances, two tasks, KIP-268's  *)
(* two bounces from 0.10.0 (upgrade.from=0.10.0, then none) with upgrade.from  *)
(* ignored; generations below 4. Expected: a violation of leader_never_fails   *)
(* (the shortest trace has 5 steps; 1,382 distinct states in all).            *)
EXTENDS StreamsClassic_KAFKA6054

MCInstances == {0, 1}
MCTasks == {0, 1}
MCPlan == [st \in 0 .. 2 |->
             IF st = 0 THEN [release |-> "0.10.0", latest |-> 1, used |-> 1, protocol |-> "EAGER", family |-> "pre-probing", cooperative |-> FALSE, fix8649 |-> FALSE, assignmentError |-> FALSE]
             ELSE IF st = 1 THEN [release |-> "0.10.2", latest |-> 2, used |-> 1, protocol |-> "EAGER", family |-> "pre-probing", cooperative |-> FALSE, fix8649 |-> FALSE, assignmentError |-> FALSE]
             ELSE [release |-> "0.10.2", latest |-> 2, used |-> 2, protocol |-> "EAGER", family |-> "pre-probing", cooperative |-> FALSE, fix8649 |-> FALSE, assignmentError |-> FALSE]]
MCFaults == {}
MCOperations == {"bounce"}
=============================================================================

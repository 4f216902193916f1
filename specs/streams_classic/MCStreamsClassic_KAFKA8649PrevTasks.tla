----------------- MODULE MCStreamsClassic_KAFKA8649PrevTasks ------------------
(* TLC's model of the KAFKA-8649 variant at KAFKA-8649-prev-tasks' scope: two  *)
(* instances of two stream threads, two tasks, a bounce from 2.3 onto 2.4      *)
(* (upgrade.from=2.3) without KAFKA-8649's fix; generations below 2. Expected: *)
(* a violation of the step claim no_task_active_twice (the shortest trace has  *)
(* 7 steps; 189 distinct states in all).                                       *)
EXTENDS StreamsClassic_KAFKA8649

MCInstances == {0, 1}
MCTasks == {0, 1}
MCPlan == [st \in 0 .. 1 |->
             IF st = 0 THEN [release |-> "2.3", latest |-> 4, used |-> 4, protocol |-> "EAGER", family |-> "kip-268", cooperative |-> FALSE, fix8649 |-> TRUE, assignmentError |-> FALSE]
             ELSE [release |-> "2.4", latest |-> 5, used |-> 5, protocol |-> "EAGER", family |-> "kafka-2.6+", cooperative |-> TRUE, fix8649 |-> TRUE, assignmentError |-> FALSE]]
MCFaults == {}
MCOperations == {"bounce"}
=============================================================================

---------------------- MODULE StreamsGroup_KAFKA20870 -----------------------
(***************************************************************************)
(* KAFKA-20870 (apache/kafka PR #23002): the coordinator reads the three   *)
(* owned-task lists of a StreamsGroupHeartbeat as a report only when all   *)
(* three are non-null, so a change confined to one role must resend the    *)
(* other two; KIP-1071 says "Any other information that has not changed    *)
(* since the last heartbeat can be omitted". A client that omits each      *)
(* unchanged list on its own never reports what it owns, and a revocation  *)
(* is never acknowledged. StreamsGroupHeartbeatRequestManager sends all    *)
(* three whenever any changed. This module replaces Send with a client that*)
(* leaves each unchanged list null.                                        *)
(***************************************************************************)
EXTENDS StreamsGroup

SendKAFKA20870(s) == SendWith(s, [Rules EXCEPT !.sendAllTaskLists = FALSE])

NextKAFKA20870 ==
    \/ \E s \in Slots : SendKAFKA20870(s)
    \/ \E s \in Slots : Handle(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : Bounce(s)
    \/ \E s \in Slots : Expire(s)
    \/ \E s \in Slots : RebalanceTimeout(s)
    \/ CreateTopic
    \/ TopicsCreated
    \/ \E s \in Slots : CatchUp(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : TopologyUpdate(s)
    \/ TopicChange
    \/ \E s \in Slots : ShutdownRequest(s)
    \/ \E s \in Slots : Roll(s)
    \/ \E s \in Slots : Redeploy(s)
    \/ \E s \in Slots : PollTimeout(s)
    \/ \E s \in Slots : ShutdownLeave(s)

SpecKAFKA20870 == Init /\ [][NextKAFKA20870]_vars

\* the liveness claim on this variant: Fairness with this module's Send; TLC finds a fair lasso
\* (828 distinct states, 30 steps to a 6-step cycle where a revocation is never acknowledged),
\* as `groupcheck check --fairness` does on the same scope
FairnessKAFKA20870 ==
    /\ \A s \in Slots : WF_vars(SendKAFKA20870(s)) /\ HandleFair(s) /\ WF_vars(Deliver(s))
    /\ \A s \in Slots : WF_vars(Restart(s)) /\ WF_vars(Bounce(s)) /\ WF_vars(Expire(s))
    /\ \A s \in Slots : WF_vars(RebalanceTimeout(s)) /\ WF_vars(CatchUp(s))
    /\ WF_vars(CreateTopic) /\ WF_vars(TopicsCreated)
FairSettlesKAFKA20870 == FairnessKAFKA20870 => SettlesUnderFairness
=============================================================================

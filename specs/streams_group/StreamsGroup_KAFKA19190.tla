---------------------- MODULE StreamsGroup_KAFKA19190 -----------------------
(***************************************************************************)
(* KAFKA-19190 (fixed by apache/kafka PR #19544, merged 2025-04): KIP-1071 *)
(* puts the shutdown flag on the leave heartbeat: "A flag to request       *)
(* shutdown of the whole application (only if the member epoch is the group*)
(* leave epoch)". GroupMetadataManager's leave path ignored it, so the     *)
(* other members never heard of the shutdown. This module replaces Handle  *)
(* with the unfixed rule.                                                  *)
(***************************************************************************)
EXTENDS StreamsGroup

HandleKAFKA19190(s) == HandleWith(s, [Rules EXCEPT !.leaveRecordsShutdown = FALSE])

NextKAFKA19190 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA19190(s)
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

SpecKAFKA19190 == Init /\ [][NextKAFKA19190]_vars
=============================================================================

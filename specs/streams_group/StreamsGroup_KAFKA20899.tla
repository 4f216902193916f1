---------------------- MODULE StreamsGroup_KAFKA20899 -----------------------
(***************************************************************************)
(* KAFKA-20899 (fixed by apache/kafka PR #23096, merged 2026-08):          *)
(* StickyTaskAssignor#findPrevMemberWithLeastLoad began with the first     *)
(* previous standby holder and checked only the others for a process that  *)
(* already holds the task, so a standby could go to the process that runs  *)
(* the task as active. KIP-1071: "A stateful task (in the various roles)   *)
(* cannot be assigned to two clients with the same processId." This module *)
(* replaces Handle with a handler whose assignor takes the first previous  *)
(* holder unchecked.                                                       *)
(***************************************************************************)
EXTENDS StreamsGroup

HandleKAFKA20899(s) == HandleWith(s, [Rules EXCEPT !.standbyFirstHolderChecked = FALSE])

NextKAFKA20899 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA20899(s)
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

SpecKAFKA20899 == Init /\ [][NextKAFKA20899]_vars
=============================================================================

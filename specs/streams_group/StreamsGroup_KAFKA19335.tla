---------------------- MODULE StreamsGroup_KAFKA19335 -----------------------
(***************************************************************************)
(* KAFKA-19335 (fixed by apache/kafka PR #19818, merged 2025-05):          *)
(* StreamsMembershipManager#onHeartbeatSuccess took the member epoch of any*)
(* successful response. A member that left (poll timer expired) and        *)
(* rejoined (JOINING, epoch 0) before its leave heartbeat's response       *)
(* arrived took that response's epoch -1, and its join heartbeat went out  *)
(* with epoch -1 and its topology: INVALID_REQUEST, and the member fails.  *)
(* The fix ignores a response with a negative epoch. This module replaces  *)
(* Deliver with the unfixed rule.                                          *)
(***************************************************************************)
EXTENDS StreamsGroup

DeliverKAFKA19335(s) == DeliverWith(s, [Rules EXCEPT !.ignoreNegativeEpochResponse = FALSE])

NextKAFKA19335 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : Handle(s)
    \/ \E s \in Slots : DeliverKAFKA19335(s)
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

SpecKAFKA19335 == Init /\ [][NextKAFKA19335]_vars
=============================================================================

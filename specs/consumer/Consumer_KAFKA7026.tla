-------------------------- MODULE Consumer_KAFKA7026 --------------------------
(***************************************************************************)
(* KAFKA-7026 (StickyAssignor before KIP-341, Kafka 2.3): the userData a   *)
(* member sends carries its previous assignment without a generation, so   *)
(* the leader keeps every claim: an expelled member's stale claim next to  *)
(* its new owner's, and a partition gets two owners. This module replaces  *)
(* Receive (the leader's assignment trusts every claim); every other       *)
(* action is the base spec's. Its scope runs the sticky assignor.          *)
(***************************************************************************)
EXTENDS Consumer

\* every claim kept, whatever its generation
AssignKAFKA7026(members) ==
    Ok(StickyPlan(members, [x \in DOMAIN members |-> Claims(members)[x].owned]))

OnResponseKAFKA7026(c0, resp) ==
    IF LeaderElected(c0, resp) THEN Joined(Answered(c0), resp, AssignKAFKA7026(resp.members))
    ELSE OnResponse(c0, resp)

ReceiveKAFKA7026(s) == CanReceive(s) /\ Received(s, OnResponseKAFKA7026(consumers[s], Head(consumers[s].inbox)))

NextKAFKA7026 ==
    \/ \E s \in Slots : ReceiveKAFKA7026(s)
    \/ \E s \in Slots : Join(s)
    \/ \E s \in Slots : Heartbeat(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : Timeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : Pause(s)
    \/ \E s \in Slots : Resume(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ RebalanceTimeout
    \/ RecordsNext

SpecKAFKA7026 == Init /\ [][NextKAFKA7026]_vars
=============================================================================

------------------------- MODULE Consumer_KAFKA14639 --------------------------
(***************************************************************************)
(* KAFKA-14639 (Kafka 3.1-3.4, fixed 3.5): the leader keeps only the       *)
(* claims of the highest generation, so a member one generation behind     *)
(* (its JoinGroup response was lost) has its partition handed to another   *)
(* member in the same round while it still owns it. This module replaces   *)
(* Receive (the leader's assignment); every other action is the base       *)
(* spec's. Its scope runs cooperative-sticky.                              *)
(***************************************************************************)
EXTENDS Consumer

\* only the members of the highest generation keep their claims (the KAFKA-12984 fix)
HighestGenerationOnly(claims) ==
    LET top == CHOOSE g \in {claims[x].generation : x \in DOMAIN claims} :
                   \A x \in DOMAIN claims : claims[x].generation <= g
    IN [kept |-> [x \in DOMAIN claims |-> IF claims[x].generation = top THEN claims[x].owned ELSE {}],
        contested |-> {}]

AssignKAFKA14639(members) ==
    LET r == HighestGenerationOnly(Claims(members))
    IN Ok(Withhold(StickyPlan(members, r.kept), r))

OnResponseKAFKA14639(c0, resp) ==
    IF LeaderElected(c0, resp) THEN Joined(Answered(c0), resp, AssignKAFKA14639(resp.members))
    ELSE OnResponse(c0, resp)

ReceiveKAFKA14639(s) == CanReceive(s) /\ Received(s, OnResponseKAFKA14639(consumers[s], Head(consumers[s].inbox)))

NextKAFKA14639 ==
    \/ \E s \in Slots : ReceiveKAFKA14639(s)
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

SpecKAFKA14639 == Init /\ [][NextKAFKA14639]_vars
=============================================================================

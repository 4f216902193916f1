------------------------- MODULE Consumer_KAFKA13406 --------------------------
(***************************************************************************)
(* KAFKA-13406 (Kafka 3.0.0, fixed 3.0.1 / 3.1.0): the leader keeps only   *)
(* the claims of the highest generation and still runs                     *)
(* validateCooperativeAssignment on the built-in cooperative-sticky. A     *)
(* member whose JoinGroup response was lost claims with the old            *)
(* generation; its partition is moved in one round, the validation throws, *)
(* the round is wasted, and the group needs more rebalances than KIP-429   *)
(* allows. This module replaces Receive (the leader's assignment); every   *)
(* other action is the base spec's. Its scope runs cooperative-sticky.     *)
(***************************************************************************)
EXTENDS Consumer

\* only the members of the highest generation keep their claims (the KAFKA-12984 fix)
HighestGenerationOnly(claims) ==
    LET top == CHOOSE g \in {claims[x].generation : x \in DOMAIN claims} :
                   \A x \in DOMAIN claims : claims[x].generation <= g
    IN [kept |-> [x \in DOMAIN claims |-> IF claims[x].generation = top THEN claims[x].owned ELSE {}],
        contested |-> {}]

AssignKAFKA13406(members) ==
    LET r == HighestGenerationOnly(Claims(members))
    IN Validated(members, Withhold(StickyPlan(members, r.kept), r))

OnResponseKAFKA13406(c0, resp) ==
    IF LeaderElected(c0, resp) THEN Joined(Answered(c0), resp, AssignKAFKA13406(resp.members))
    ELSE OnResponse(c0, resp)

ReceiveKAFKA13406(s) == CanReceive(s) /\ Received(s, OnResponseKAFKA13406(consumers[s], Head(consumers[s].inbox)))

NextKAFKA13406 ==
    \/ \E s \in Slots : ReceiveKAFKA13406(s)
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

SpecKAFKA13406 == Init /\ [][NextKAFKA13406]_vars
=============================================================================

----------------------- MODULE ConsumerGroup_KAFKA16251 -----------------------
(***************************************************************************)
(* KAFKA-16251 (the Java consumer before 3.8.0; fixed by apache/kafka      *)
(* #15392, "Fix for not sending heartbeat while fenced"): a fenced member   *)
(* rejoins before its onPartitionsLost callback completed, so its epoch-0   *)
(* heartbeat leaves while it still runs its partitions; the callback runs   *)
(* late, when the join response arrives. Client-side only: this module      *)
(* replaces how a response is read (Deliver); every other action is the    *)
(* base spec's.                                                            *)
(***************************************************************************)
EXTENDS ConsumerGroup

\* transitionToFenced: JOINING at epoch 0 at once, the partitions still owned
FencedKAFKA16251(c) == [Fenced(c) EXCEPT !.owned = c.owned]

\* the late onPartitionsLost: a join response finds the member still owning partitions at
\* epoch 0 and drops them first
OnResponseKAFKA16251(c, rep) ==
    IF /\ rep.error = "" /\ rep.epoch >= 0
       /\ c.status = "JOINING" /\ c.owned # {} /\ c.epoch = 0
    THEN OnResponse([c EXCEPT !.owned = {}], rep)
    ELSE Responded(c, rep, FencedKAFKA16251([c EXCEPT !.reply = None]))

DeliverKAFKA16251(s) ==
    /\ clients[s].reply # None
    /\ LET c == OnResponseKAFKA16251(clients[s], clients[s].reply)
       IN Delivered(s, c, CanReconcile(c) \/ c.status = "ACKNOWLEDGING")

NextKAFKA16251 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : Handle(s)
    \/ \E s \in Slots : DeliverKAFKA16251(s)
    \/ \E s \in Slots : Reconcile(s)
    \/ \E s \in Slots : Restart(s)
    \/ \E s \in Slots : Expire(s)
    \/ \E s \in Slots : RebalanceTimeout(s)
    \/ \E s \in Slots : Resume(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : SessionTimeout(s)
    \/ \E s \in Slots : Crash(s)
    \/ \E s \in Slots : Stall(s)
    \/ \E s \in Slots : Leave(s)
    \/ \E s \in Slots : Roll(s)
    \/ RecordsNext

SpecKAFKA16251 == Init /\ [][NextKAFKA16251]_vars
=============================================================================

----------------------- MODULE ConsumerGroup_KAFKA20442 -----------------------
(***************************************************************************)
(* KAFKA-20442 (Kafka 4.0-4.2; fixed in 4.3 by "Update consumer group      *)
(* assignment epoch when last member leaves"): removing the last member     *)
(* bumps the group epoch, and no heartbeat is left to compute a target, so  *)
(* the EMPTY group keeps group epoch > assignment epoch. This module        *)
(* replaces the removal in the two actions that remove a member here: the  *)
(* handling of a leave heartbeat (Handle) and the session expiry (Expire); *)
(* every other action is the base spec's. (The rebalance timeout removes a  *)
(* member too, but only after a lost response: not in this variant's scope.)*)
(***************************************************************************)
EXTENDS ConsumerGroup

\* removeMember without the catch-up of an emptied group's assignment epoch
RemoveMemberKAFKA20442(g, id) == [RemoveMember(g, id) EXCEPT !.assignmentEpoch = g.assignmentEpoch]

HandleKAFKA20442(s) ==
    /\ clients[s].request # None
    /\ IF clients[s].request.epoch = -1 /\ ~group.dead /\ IdOf(s) \in DOMAIN group.members
       THEN /\ group' = RemoveMemberKAFKA20442(group, IdOf(s))
            \* the leave heartbeat's response reaches nobody: the client is gone
            /\ clients' = [clients EXCEPT ![s].request = None]
            /\ calm' = 0 /\ beaten' = {} /\ fresh' = {}
            /\ UNCHANGED <<budget, wedged, marks>>
       ELSE Handle(s)

ExpireKAFKA20442(s) ==
    /\ ~group.dead
    /\ IdOf(s) \in DOMAIN group.members
    /\ ~Running(clients[s])
    /\ group' = RemoveMemberKAFKA20442(group, IdOf(s))
    /\ calm' = 0 /\ beaten' = {} /\ fresh' = {}
    /\ UNCHANGED <<clients, budget, wedged, marks>>

NextKAFKA20442 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : HandleKAFKA20442(s)
    \/ \E s \in Slots : Deliver(s)
    \/ \E s \in Slots : Reconcile(s)
    \/ \E s \in Slots : LoseResponse(s)
    \/ \E s \in Slots : RebalanceTimeout(s)
    \/ \E s \in Slots : Leave(s)
    \/ \E s \in Slots : ExpireKAFKA20442(s)

SpecKAFKA20442 == Init /\ [][NextKAFKA20442]_vars
=============================================================================

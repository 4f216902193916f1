----------------------- MODULE ConsumerGroup_KAFKA16375 -----------------------
(***************************************************************************)
(* KAFKA-16375 (the Java consumer before 3.8.0; fixed by apache/kafka      *)
(* #15579, "Fix for rejoin while reconciling"): a reconciliation (commit -> *)
(* onPartitionsRevoked -> onPartitionsAssigned) under way when the member   *)
(* is fenced is not abandoned (rejoinedWhileReconciliationInProgress): its  *)
(* target survives the fence and the next poll applies it while the member *)
(* rejoins, so the epoch-0 heartbeat reports partitions of an assignment    *)
(* from before the rejoin. Client-side only: this module replaces how a     *)
(* response is read (Deliver: the fence keeps the target) and when the poll *)
(* reconciles (Reconcile: also a stale target while JOINING); every other   *)
(* action is the base spec's.                                              *)
(***************************************************************************)
EXTENDS ConsumerGroup

\* transitionToFenced without abandoning the reconciliation under way
FencedKAFKA16375(c) == [Fenced(c) EXCEPT !.target = IF c.status = "RECONCILING" THEN c.target ELSE {}]

OnResponseKAFKA16375(c, rep) == Responded(c, rep, FencedKAFKA16375([c EXCEPT !.reply = None]))

\* maybeReconcile also runs the stale reconciliation of a rejoining member
CanReconcileKAFKA16375(c) ==
    ~c.stalled /\ (c.status = "RECONCILING" \/ (c.status = "JOINING" /\ c.target # c.owned))

DeliverKAFKA16375(s) ==
    /\ clients[s].reply # None
    /\ LET c == OnResponseKAFKA16375(clients[s], clients[s].reply)
       IN Delivered(s, c, CanReconcileKAFKA16375(c) \/ c.status = "ACKNOWLEDGING")

\* the stale reconciliation leaves a rejoining member JOINING
ReconcileKAFKA16375(s) ==
    /\ CanReconcileKAFKA16375(clients[s])
    /\ clients' = [clients EXCEPT ![s].status = IF @ = "RECONCILING" THEN "ACKNOWLEDGING" ELSE @,
                                  ![s].owned = clients[s].target,
                                  ![s].sent = IF @.kind = "none" THEN @ ELSE [kind |-> "changed", owned |-> {}]]
    \* the record layer's reconciliation (ReconcileRecords) is the base's: this variant is stated
    \* without records
    /\ ~Records
    /\ UNCHANGED <<group, budget, calm, beaten, fresh, wedged, marks, logs, apps>>

NextKAFKA16375 ==
    \/ \E s \in Slots : Send(s)
    \/ \E s \in Slots : Handle(s)
    \/ \E s \in Slots : DeliverKAFKA16375(s)
    \/ \E s \in Slots : ReconcileKAFKA16375(s)
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

SpecKAFKA16375 == Init /\ [][NextKAFKA16375]_vars
=============================================================================

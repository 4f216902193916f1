---------------------- MODULE StreamsClassic_KIP268NoDowngrade ----------------------
(***************************************************************************)
(* KIP-268-no-downgrade: a follower never downgrades after version probing. *)
(* KIP-268: the follower that gets the empty assignment "can downgrade to X *)
(* (in-memory flag) and resends a new Subscription with old version X". One *)
(* that keeps sending the newer version is answered at the lower version    *)
(* again, and the group rebalances forever (rebalances_bounded). This       *)
(* module replaces Receive: a thread handed an assignment below the version *)
(* it used keeps its used version (it still rejoins); every other action is *)
(* the base spec's.                                                         *)
(***************************************************************************)
EXTENDS StreamsClassic

\* the version decision with the probed thread's downgrade taken out
NoDowngrade(m, c, a) ==
    LET v == Versions(m, c, a)
    IN IF v.probed THEN [v EXCEPT !.used = m.used] ELSE v

ReceiveKIP268NoDowngrade(s) ==
    /\ ReceiveEnabled(s)
    /\ LET m == members[s]
           a == m.inbox[1]
       IN ReceiveWith(s, Processed(m, Config(s), a, NoDowngrade(m, Config(s), a)))

NextKIP268NoDowngrade ==
    \/ \E s \in Slots : Join(s)
    \/ \E l \in Slots : Assign(l)
    \/ \E s \in Slots : ReceiveKIP268NoDowngrade(s)
    \/ \E i \in Instances : Stop(i)
    \/ \E i \in Instances : Start(i)
    \/ \E i \in Instances : Crash(i)
    \/ \E i \in Instances : ScaleUp(i)
    \/ \E i \in Instances : ScaleDown(i)

SpecKIP268NoDowngrade == Init /\ [][NextKIP268NoDowngrade]_vars
=============================================================================

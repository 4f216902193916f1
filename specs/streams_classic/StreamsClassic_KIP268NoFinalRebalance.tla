------------------- MODULE StreamsClassic_KIP268NoFinalRebalance -------------------
(***************************************************************************)
(* KIP-268-no-final-rebalance: under the KIP's own rules (Profile          *)
(* "kip-268"), the leader never triggers the final rebalance. KIP-268: "if  *)
(* the leader is bounced last, the metadata upgrade only finishes after one *)
(* more rebalance [...] the leader should be responsible to trigger this    *)
(* final rebalance". Without it the group settles on the old version's      *)
(* assignment until something else rebalances it (upgrade_completes,        *)
(* upgrade_within_one_extra_rebalance). This module replaces Assign: the    *)
(* leader's answer never carries the final rebalance; every other action is *)
(* the base spec's.                                                         *)
(***************************************************************************)
EXTENDS StreamsClassic

AssignKIP268NoFinalRebalance(l) ==
    /\ AssignEnabled(l)
    /\ Assigned(l, [LeaderAssign(members, group, l, Config(l)) EXCEPT !.final = FALSE])

NextKIP268NoFinalRebalance ==
    \/ \E s \in Slots : Join(s)
    \/ \E l \in Slots : AssignKIP268NoFinalRebalance(l)
    \/ \E s \in Slots : Receive(s)
    \/ \E i \in Instances : Stop(i)
    \/ \E i \in Instances : Start(i)
    \/ \E i \in Instances : Crash(i)
    \/ \E i \in Instances : ScaleUp(i)
    \/ \E i \in Instances : ScaleDown(i)

SpecKIP268NoFinalRebalance == Init /\ [][NextKIP268NoFinalRebalance]_vars
=============================================================================

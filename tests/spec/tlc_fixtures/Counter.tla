---- MODULE Counter ----
\* A counter and a record for groupcheck's TLC tests (tests/spec/test_tlc.py): up to Max,
\* then back down; Safe holds, Small breaks at x = 3, StepsUp is an action property, ReachesMax
\* a liveness property that weak fairness of Up does not give (Down undoes it forever).
EXTENDS Integers
CONSTANT Max
VARIABLES x, r
vars == <<x, r>>
Init == x = 0 /\ r = [epoch |-> -1, owned |-> {}, log |-> <<>>]
Up == x < Max /\ x' = x + 1 /\ r' = [epoch |-> x, owned |-> 0..x, log |-> <<x, -x>>]
Down == x > 0 /\ x' = x - 1 /\ UNCHANGED r
Next == Up \/ Down
Spec == Init /\ [][Next]_vars
FairSpec == Spec /\ WF_vars(Up)
TypeOK == x \in 0..Max /\ r.epoch \in -1..Max /\ r.owned \subseteq 0..Max
Safe == x <= Max
Small == x < 3
StepsUp == [][x' >= x]_vars
Bounded == r.epoch < 2
ReachesMax == <>(x = Max)
====

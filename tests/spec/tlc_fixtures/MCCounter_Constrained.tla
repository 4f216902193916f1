---- MODULE MCCounter_Constrained ----
EXTENDS Counter
Within == r.epoch < 1
====

---- MODULE MCCounter_Down ----
EXTENDS Counter
====

---- MODULE MCCounter ----
EXTENDS Counter
====

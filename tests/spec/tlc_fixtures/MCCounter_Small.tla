---- MODULE MCCounter_Small ----
EXTENDS Counter
====

---- MODULE MCCounter_Live ----
EXTENDS Counter
====

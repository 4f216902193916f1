---- MODULE MCCounter_Stuck ----
EXTENDS Counter
\* Up alone: stuck at Max
====

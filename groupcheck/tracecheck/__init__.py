"""``groupcheck trace-check``: recorded histories, one per group, validated against the model.

History format (JSON lines, one observed event a line; Parquet with the same columns):

    {"group": "g1", "seq": 0, "protocol": "consumer-group", "scope": {...},
     "kind": "assigned", "client": "C2", "partitions": ["t0-0"], "epoch": 3}

``group`` (string) and ``seq`` (integer, the event's place in the group's history) are
required on every line; ``protocol`` and ``scope`` (the scope's JSON, as ``groupcheck
check --scope`` takes it) on at least one line of each group, and every line that
carries them must agree. ``ts`` (a recorder's timestamp) is optional and not compared
(the model has no clock). The remaining fields are the observation itself, compared as a
whole with what the model emits (``observe.py`` says which of the model's events are
observable, per protocol, and how each is written). A history is *valid* when some path
of the model (any interleaving of its ``actions()``) emits exactly these observations in
this order; steps that emit none are silent. See ``validate.py`` for the search.
"""

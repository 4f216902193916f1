"""Role group-coordinator: requests in, responses out, compared with the model's coordinator.

A scenario is a path of the consumer model (``model/consumer``); ``scenarios`` turns it
into the coordinator calls it makes (requests, time passing, a connection closing),
``targets`` reaches an implementation, ``claims`` compares its answers with the model
coordinator's, ``runner`` runs and shrinks, ``report`` writes the verdict.
"""

"""Role group-coordinator: requests in, responses out, compared with the model's coordinator.

A scenario is a path of the consumer model (``model/consumer``); ``scenarios`` turns it
into the coordinator calls it makes (requests, time passing, a connection closing),
``targets`` reaches an implementation, ``claims`` compares its answers with the model
coordinator's, ``runner`` runs one and shrinks it (``conform/campaign.py``'s shrinker),
``campaign`` runs them all (its loop), ``report`` writes the verdict, ``role`` is the
CLI's entry; ``compare_848`` judges a broker's KIP-848 coordinator (librdkafka's mock, or
any broker that advertises ConsumerGroupHeartbeat) through the broker target's effects.
"""

"""Seeded rule-mutation testing of ``model/``: a catalog of protocol-rule mistakes
(``catalog``) and the runner that checks each is killed (``run``)."""

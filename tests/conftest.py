"""Shared test setup: each test starts with a fresh default graph."""

import pytest

import tensorfleet as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield


@pytest.fixture
def channels():
    """A private gRPC channel cache, closed at teardown."""
    from tensorfleet.transport import rpc
    cache = rpc.ChannelCache()
    try:
        yield cache
    finally:
        cache.close_all()

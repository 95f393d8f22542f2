"""Shared test setup: each test starts with a fresh default graph; the suite runs on
parallel workers (pytest-xdist), balanced by xdist's load scheduler."""

import os

import pytest

import tensorfleet as tf


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: most tests wait on sockets, child processes and partitions rather
    than compute, so even a 2-core machine runs six workers well (on 2 cores, six took
    261 s where four took 284 s)."""
    return max(6, os.cpu_count() or 1)


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield


@pytest.fixture
def network_hosts():
    """A factory of ``tensorfleet.testing.hosts.NetworkHosts``: ``network_hosts(n,
    rate=None)`` makes n hosts, removed with everything running on them at teardown.
    Skips, saying why, where network namespaces cannot be made."""
    from tensorfleet.testing import hosts
    why = hosts.unavailable()
    if why:
        pytest.skip(f"network namespaces unavailable: {why}")
    hosts.sweep()  # what a killed earlier run left
    made = []

    def make(n, rate=None):
        h = hosts.NetworkHosts(n, rate=rate)
        made.append(h)
        return h.create()
    try:
        yield make
    finally:
        for h in made:
            h.close()


@pytest.fixture
def channels():
    """A private gRPC channel cache, closed at teardown."""
    from tensorfleet.transport import rpc
    cache = rpc.ChannelCache()
    try:
        yield cache
    finally:
        cache.close_all()


@pytest.fixture
def clean_transport_env(monkeypatch):
    """No cluster token and no side-channel switch from the environment."""
    from tensorfleet.transport import auth, bulk
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)
    monkeypatch.delenv(bulk.BULK_ENV, raising=False)


@pytest.fixture
def pool():
    """A private side-channel connection pool, closed at teardown."""
    from tensorfleet.transport import bulk_client
    p = bulk_client.BulkPool()
    try:
        yield p
    finally:
        p.close_all()


@pytest.fixture
def tls_cert(tmp_path):
    """(certificate, key) paths of a fresh self-signed certificate for localhost."""
    import subprocess
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return str(cert), str(key)

"""Shared test setup: each test starts with a fresh default graph; the suite runs on
parallel workers (pytest-xdist), with the tests that start whole clusters of processes
kept to three lanes so that they never crowd a small machine's cores."""

import os

import pytest

import tensorfleet as tf

# Test files whose tests start several processes each (clusters, launches, faults).
# Each lane runs its files one test at a time; the lanes are balanced by the time
# their files take, and every other test spreads over the remaining workers.
_PROCESS_LANES = {
    "processes-a": (
        "collectives/test_collectives_failure.py",
        "distributed/test_server_limits.py", "examples/test_allreduce_convnet.py",
        "examples/test_seed_examples.py", "examples/test_autoencoder_word2vec.py",
        "saved_model/test_saved_model.py", "collectives/test_multihost_allreduce.py",
        "examples/test_core_examples.py", "runtime/test_threads.py",
        "docs/test_doc_commands.py", "examples/test_estimator_example_output.py",
        "cli/test_cli_startup.py",
    ),
    "processes-b": (
        "cli/test_launch.py", "cli/test_launch_faults.py", "cli/test_launch_signals.py",
        "examples/test_trainer_example.py", "platform/test_flags.py", "cli/test_demo.py",
        "estimator/test_estimator.py", "collectives/test_collectives_formation.py",
        "estimator/test_canned_estimators.py", "distributed/test_shutdown.py",
        "cli/test_server_cmd.py", "training/test_sigterm_checkpoint.py",
        "training/test_sync_recovery.py", "cli/test_launch_reports.py",
        "cli/test_launch_allreduce.py", "collectives/test_shm_hosts.py",
        "testing/test_hosts.py",
    ),
    # Clusters on network hosts (namespaces) with partitions, a minute of waiting alone
    # for the longest cut, beside the trainer's process faults.
    "processes-c": (
        "distributed/test_multihost_trainer.py", "distributed/test_faults.py",
    ),
}
_LANE_OF = {path: lane for lane, paths in _PROCESS_LANES.items() for path in paths}
_TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
# A moved or renamed file would silently leave its lane and crowd the cores again.
_GONE = sorted(p for p in _LANE_OF if not os.path.exists(os.path.join(_TESTS_DIR, p)))
if _GONE:
    raise pytest.UsageError(f"tests/conftest.py lists process-lane files that do not exist: "
                            f"{_GONE}")


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: most tests wait on sockets and child processes rather than compute,
    so even a 2-core machine runs four workers well."""
    return max(4, os.cpu_count() or 1)


def pytest_collection_modifyitems(config, items):
    for item in items:
        rel = os.path.relpath(str(item.path), _TESTS_DIR).replace(os.sep, "/")
        lane = _LANE_OF.get(rel)
        if lane is not None:
            item.add_marker(pytest.mark.xdist_group(lane))


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

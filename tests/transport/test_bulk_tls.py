"""The bulk side channel over TLS (tensorfleet.transport.bulk, bulk_client, auth)."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
import threading
import time

import grpc
import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.distributed.server import free_ports
from tensorfleet.transport import auth, bulk, bulk_client, rpc

SERVICE = "test.Tls"
TOKEN = "bulk-tls-test-token"

pytestmark = pytest.mark.usefixtures("clean_transport_env")


def _self_signed(directory, name: str = "other"):
    """(certificate, key) of another self-signed certificate for localhost."""
    directory.mkdir(exist_ok=True)
    key, cert = directory / f"{name}-key.pem", directory / f"{name}-cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return str(cert), str(key)


class _Service:
    def __init__(self) -> None:
        self.threads: list = []

    def pull(self, h, t):
        self.threads.append(threading.current_thread().name)
        if h.get("delay"):
            time.sleep(h["delay"])
        return {"n": h["n"]}, [np.arange(h["n"], dtype=np.float32)]

    def table(self):
        # "Big" is not allowed on the side channel: its reply is parked and fetched there.
        return rpc.ServiceHandlers({"Pull": self.pull, "Big": self.pull},
                                   bulk_methods={"Pull"})


@pytest.fixture
def serve():
    servers = []

    def start(credentials, **kwargs):
        service = _Service()
        server = rpc.RpcServer("localhost:0", SERVICE, service.table(), token=TOKEN,
                               credentials=credentials, task="/job:ps/task:0", **kwargs).start()
        servers.append(server)
        return server, service

    try:
        yield start
    finally:
        for server in servers:
            server.stop(0)


def _client(server, channels, pool, credentials):
    return rpc.RpcClient(f"localhost:{server.port}", SERVICE, token=TOKEN,
                         credentials=credentials, channels=channels, bulk_pool=pool)


def _connect(server, tls, token=TOKEN):
    return bulk_client.connect("localhost", server.bulk_listener.port, token,
                               time.monotonic() + 10, tls)


def test_a_tls_clusters_calls_and_big_replies_go_over_the_side_channel(
        serve, channels, pool, tls_cert):
    cert, key = tls_cert
    server, service = serve(auth.server_credentials(cert, key))
    assert server.bulk_listener is not None
    client = _client(server, channels, pool, auth.channel_credentials(ca_file=cert))
    assert client.side_channel() == server.bulk_listener.port
    for n in (3, 1 << 18, 4 << 20):  # up to 16 MiB, many TLS records
        h, (arr,) = client.call("Pull", {"n": n}, timeout=60)
        assert h == {"n": n}
        np.testing.assert_array_equal(arr, np.arange(n, dtype=np.float32))
        assert service.threads[-1] == f"tf-bulk-conn-{server.bulk_listener.port}"
    # A big reply of a method called over gRPC is parked and redeemed over TLS too.
    h, (arr,) = client.call("Big", {"n": 3 << 20}, timeout=60)
    np.testing.assert_array_equal(arr, np.arange(3 << 20, dtype=np.float32))
    stats = server.bulk_listener.stats
    assert stats["calls"] == 3 and stats["served"] == 1
    assert stats["accepted"] == 1 and stats["refused"] == 0  # one pooled TLS connection


def test_mutual_tls_needs_a_client_certificate_from_the_ca(serve, channels, pool, tls_cert,
                                                          tmp_path):
    cert, key = tls_cert
    server, service = serve(auth.server_credentials(cert, key, ca_file=cert,
                                                    require_client_auth=True))
    creds = auth.channel_credentials(ca_file=cert, cert_file=cert, key_file=key)
    client = _client(server, channels, pool, creds)
    assert client.side_channel() == server.bulk_listener.port
    assert client.call("Pull", {"n": 1000}, timeout=30)[0] == {"n": 1000}
    assert service.threads[-1].startswith("tf-bulk-conn")
    refused = server.bulk_listener.stats["refused"]
    # No client certificate, or one the server's CA did not sign: refused before the token.
    other_cert, other_key = _self_signed(tmp_path / "other")
    for ctx in (auth.side_channel_tls(auth.channel_credentials(ca_file=cert)),
                auth.side_channel_tls(auth.channel_credentials(
                    ca_file=cert, cert_file=other_cert, key_file=other_key))):
        with pytest.raises(bulk.BulkUnavailable):
            _connect(server, ctx)
    deadline = time.monotonic() + 5
    while server.bulk_listener.stats["refused"] < refused + 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.bulk_listener.stats["refused"] == refused + 2


def test_a_plaintext_peer_is_refused(serve, tls_cert):
    cert, key = tls_cert
    server, _ = serve(auth.server_credentials(cert, key))
    with pytest.raises(bulk.BulkUnavailable):
        _connect(server, None)
    deadline = time.monotonic() + 5
    while server.bulk_listener.stats["refused"] < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.bulk_listener.stats["refused"] == 1
    # The other way round too: TLS to a listener without it.
    plain, _ = serve(None)
    with pytest.raises(bulk.BulkUnavailable):
        _connect(plain, auth.side_channel_tls(auth.channel_credentials(ca_file=cert)))


def test_a_server_certificate_that_does_not_verify_is_refused(serve, tls_cert, tmp_path):
    cert, key = tls_cert
    server, _ = serve(auth.server_credentials(cert, key))
    other_cert, _ = _self_signed(tmp_path / "other")
    with pytest.raises(bulk.BulkUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
        _connect(server, auth.side_channel_tls(auth.channel_credentials(ca_file=other_cert)))
    good = auth.side_channel_tls(auth.channel_credentials(ca_file=cert))
    sock = _connect(server, good)  # the right certificate gets through
    assert isinstance(sock, ssl.SSLSocket) and sock.version() in ("TLSv1.2", "TLSv1.3")
    sock.close()


def test_the_token_handshake_still_runs_inside_tls(serve, tls_cert):
    cert, key = tls_cert
    server, _ = serve(auth.server_credentials(cert, key))
    ctx = auth.side_channel_tls(auth.channel_credentials(ca_file=cert))
    with pytest.raises(bulk.BulkUnavailable, match="cluster token"):
        _connect(server, ctx, token="not-the-token")


def test_heartbeats_keep_a_long_call_alive_over_tls(serve, channels, pool, tls_cert,
                                                    monkeypatch):
    monkeypatch.setattr(bulk_client, "LIVENESS_TIMEOUT", 1.5)
    cert, key = tls_cert
    server, service = serve(auth.server_credentials(cert, key))
    client = _client(server, channels, pool, auth.channel_credentials(ca_file=cert))
    assert client.side_channel()
    h, (arr,) = client.call("Pull", {"n": 10, "delay": 3.2}, timeout=30)
    assert h == {"n": 10} and service.threads[-1].startswith("tf-bulk-conn")
    # The same pooled connection serves the next call: the heartbeats left it in step.
    assert client.call("Pull", {"n": 5}, timeout=30)[0] == {"n": 5}
    assert server.bulk_listener.stats["accepted"] == 1


def test_credentials_not_made_by_auth_keep_the_side_channel_off(serve, channels, pool,
                                                                tls_cert):
    cert, key = tls_cert
    with open(cert, "rb") as f:
        cert_pem = f.read()
    with open(key, "rb") as f:
        key_pem = f.read()
    server, service = serve(grpc.ssl_server_credentials([(key_pem, cert_pem)]))
    assert server.bulk_listener is None
    client = _client(server, channels, pool, grpc.ssl_channel_credentials(cert_pem))
    assert client.side_channel() == 0
    assert client.call("Pull", {"n": 4}, timeout=30)[0] == {"n": 4}
    assert service.threads[-1].startswith("tf-rpc")


def test_side_channel_tls_of_unknown_credentials_is_none(tls_cert):
    cert, key = tls_cert
    assert auth.side_channel_tls(None) is None
    assert auth.side_channel_tls(object()) is None
    server_ctx = auth.side_channel_tls(auth.server_credentials(cert, key))
    client_ctx = auth.side_channel_tls(auth.channel_credentials(ca_file=cert))
    assert server_ctx.verify_mode == ssl.CERT_NONE
    assert client_ctx.verify_mode == ssl.CERT_REQUIRED and client_ctx.check_hostname
    mutual = auth.side_channel_tls(auth.server_credentials(cert, key, ca_file=cert,
                                                           require_client_auth=True))
    assert mutual.verify_mode == ssl.CERT_REQUIRED


def test_a_tls_cluster_of_servers_runs_a_step_across_tasks(tls_cert):
    """Two ``tf.train.Server`` tasks with TLS: the worker's master reaches the ps over
    TLS with the channel credentials, and a variable placed on the ps trains."""
    cert, key = tls_cert
    ports = free_ports(2)
    spec = tf.train.ClusterSpec({"ps": [f"localhost:{ports[0]}"],
                                 "worker": [f"localhost:{ports[1]}"]})
    with pytest.raises(ValueError, match="channel_credentials"):
        tf.train.Server(spec, "ps", 0, token=TOKEN, start=False,
                        credentials=auth.server_credentials(cert, key))
    servers = [tf.train.Server(spec, job, 0, token=TOKEN,
                               credentials=auth.server_credentials(cert, key),
                               channel_credentials=auth.channel_credentials(ca_file=cert))
               for job in ("ps", "worker")]
    try:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(np.ones(4, np.float32), name="v")
            with tf.device("/job:worker/task:0"):
                step = tf.assign_add(v, tf.fill([4], 2.0))
            with tf.Session(servers[1].target) as sess:
                sess.run(v.initializer)
                sess.run(step)
                np.testing.assert_array_equal(sess.run(v), np.full(4, 3.0, np.float32))
    finally:
        for s in servers:
            s.stop()


CLIENT_SCRIPT = """
import sys
import numpy as np
import tensorfleet as tf
with tf.device("/job:ps/task:0"):
    v = tf.Variable(np.ones(4, np.float32), name="v")
with tf.device("/job:worker/task:0"):
    step = tf.assign_add(v, tf.fill([4], 2.0))
with tf.Session(sys.argv[1]) as sess:
    sess.run(v.initializer)
    sess.run(step)
    print("value", sess.run(v).tolist(), flush=True)
"""


def test_a_client_in_its_own_process_reaches_a_tls_cluster_from_the_environment(
        tls_cert, tmp_path, monkeypatch):
    """The seeds' layout (servers, then a separate client process) with TLS: the client
    takes its CA from $TENSORFLEET_TLS_CA_FILE."""
    cert, key = tls_cert
    ports = free_ports(2)
    spec = tf.train.ClusterSpec({"ps": [f"localhost:{ports[0]}"],
                                 "worker": [f"localhost:{ports[1]}"]})
    servers = [tf.train.Server(spec, job, 0, token=TOKEN,
                               credentials=auth.server_credentials(cert, key),
                               channel_credentials=auth.channel_credentials(ca_file=cert))
               for job in ("ps", "worker")]
    script = tmp_path / "client.py"
    script.write_text(CLIENT_SCRIPT)
    env = dict(os.environ, TENSORFLEET_TOKEN=TOKEN,
               TENSORFLEET_TLS_CA_FILE=cert)
    try:
        proc = subprocess.run([sys.executable, str(script), servers[1].target],
                              env=env, capture_output=True, text=True, timeout=120)
    finally:
        for s in servers:
            s.stop()
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "value [3.0, 3.0, 3.0, 3.0]" in proc.stdout
    # Unset, a client stays plaintext; set, the same files give the same credentials.
    monkeypatch.delenv(auth.TLS_CA_ENV, raising=False)
    monkeypatch.delenv(auth.TLS_CERT_ENV, raising=False)
    monkeypatch.delenv(auth.TLS_KEY_ENV, raising=False)
    assert auth.channel_credentials_from_env() is None
    monkeypatch.setenv(auth.TLS_CA_ENV, cert)
    first = auth.channel_credentials_from_env()
    assert first is not None and auth.channel_credentials_from_env() is first
    monkeypatch.setenv(auth.TLS_CERT_ENV, cert)
    with pytest.raises(tf.errors.InvalidArgumentError, match="both cert_file and key_file"):
        auth.channel_credentials_from_env()

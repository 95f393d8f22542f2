"""`tensorfleet server`: one task's server from a cluster spec, the seed's flags or TF_CONFIG."""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tensorfleet as tf
from tensorfleet.cli import server_cmd
from tensorfleet.testing.cluster import free_ports

ROOT = Path(__file__).resolve().parents[2]


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1", **extra)
    env.pop("TENSORFLEET_TOKEN", None)
    if "TF_CONFIG" not in extra:
        env.pop("TF_CONFIG", None)
    return env


def _server(*args, **env):
    return subprocess.Popen([sys.executable, "-m", "tensorfleet.cli.main", "server", *args],
                            env=_env(**env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def _wait_listening(port, timeout=30.0):
    import socket
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("localhost", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


def _kill(procs):
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(10)


def _ns(**kw):
    base = dict(cluster=None, ps_hosts="", worker_hosts="", chief_hosts="", job_name=None,
                task_index=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_resolve_from_each_source(monkeypatch):
    spec, job, idx = server_cmd.resolve(_ns(cluster='{"local": ["a:1", "b:2"]}',
                                            job_name="local", task_index=1))
    assert spec.as_dict() == {"local": ["a:1", "b:2"]} and (job, idx) == ("local", 1)
    spec, job, idx = server_cmd.resolve(_ns(ps_hosts="p:1", worker_hosts="w:1,w:2",
                                            job_name="worker", task_index=1))
    assert spec.as_dict() == {"ps": ["p:1"], "worker": ["w:1", "w:2"]} and idx == 1
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"ps": ["p:1"], "worker": ["w:1"]},
                                                "task": {"type": "ps", "index": 0}}))
    spec, job, idx = server_cmd.resolve(_ns())
    assert (job, idx) == ("ps", 0)
    monkeypatch.delenv("TF_CONFIG")
    with pytest.raises(ValueError, match="no cluster given"):
        server_cmd.resolve(_ns())
    with pytest.raises(ValueError, match="not in the cluster"):
        server_cmd.resolve(_ns(cluster='{"local": ["a:1"]}', job_name="ps"))


def test_two_servers_run_the_seed_computation_and_stop_on_sigterm():
    ports = free_ports(2)
    hosts = [f"localhost:{p}" for p in ports]
    spec = json.dumps({"local": hosts})
    procs = [_server("--cluster", spec, "--job_name", "local", "--task_index", str(i))
             for i in range(2)]
    try:
        for p in ports:
            _wait_listening(p)
        out = subprocess.run([sys.executable, str(ROOT / "examples" / "seed_zcalc.py"),
                              "--hosts", ",".join(hosts)], env=_env(), capture_output=True,
                             text=True, timeout=60)
        assert out.stdout.strip().splitlines()[-1] == "-18", out.stderr
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for i, p in enumerate(procs):
            text, _ = p.communicate(timeout=30)
            assert p.returncode == 0, text
            assert f"/job:local/task:{i} serving at grpc://{hosts[i]}" in text
            assert "stopped" in text
    finally:
        _kill(procs)


def test_ps_server_exits_when_the_workers_are_done():
    ps_port, w_port = free_ports(2)
    ps = _server(f"--ps_hosts=localhost:{ps_port}", f"--worker_hosts=localhost:{w_port}",
                 "--job_name=ps", "--task_index=0", "--until-workers-done")
    worker = None
    try:
        _wait_listening(ps_port)
        cluster = tf.train.ClusterSpec({"ps": [f"localhost:{ps_port}"],
                                        "worker": [f"localhost:{w_port}"]})
        worker = tf.train.Server(cluster, job_name="worker", task_index=0)
        tf.train.signal_workers_done(worker.target, cluster, worker_index=0)
        text, _ = ps.communicate(timeout=30)
        assert ps.returncode == 0, text
    finally:
        if worker is not None:
            worker.stop()
        _kill([ps])


def test_free_ports_are_distinct_bindable_and_outside_the_ephemeral_range():
    import socket
    from tensorfleet.distributed.server import _ephemeral_range
    low, high = _ephemeral_range()
    ports = free_ports(6)
    assert len(set(ports)) == 6
    if low > 10000:  # room below the range on this machine
        assert all(p < low for p in ports), (ports, low)
    for p in ports:
        with socket.socket() as s:
            s.bind(("localhost", p))

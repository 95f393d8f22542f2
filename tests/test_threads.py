"""Each process picks its BLAS thread limit itself: ConfigProto, then the environment,
then the cores divided among the cluster's tasks on this host."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tensorfleet.runtime import threads

ROOT = Path(__file__).resolve().parents[1]


def test_local_task_count_counts_loopback_and_own_host_only():
    import socket
    own = socket.gethostname()
    addrs = ["localhost:1", "127.0.0.1:2", f"{own}:3", "ps0.example.com:4", "10.1.2.3:5"]
    assert threads.local_task_count(addrs) == 3
    assert threads.local_task_count(["far:1", "away:2"]) == 1  # this task is here anyway


def test_negative_thread_counts_are_refused_with_the_field_named():
    import tensorfleet as tf
    with pytest.raises(ValueError, match="intra_op_parallelism_threads"):
        threads.check_config(tf.ConfigProto(intra_op_parallelism_threads=-1))
    with pytest.raises(ValueError, match="inter_op_parallelism_threads"):
        threads.check_config(tf.ConfigProto(inter_op_parallelism_threads=-2))


_PROBE = """
import json, os, sys
from threadpoolctl import threadpool_info
import tensorfleet as tf
from tensorfleet.runtime import threads
mode = sys.argv[1]
if mode == "server":
    from tensorfleet.distributed.server import free_ports
    ports = free_ports(3)
    spec = tf.train.ClusterSpec({"ps": [f"localhost:{ports[0]}"],
                                 "worker": [f"localhost:{ports[1]}", f"localhost:{ports[2]}"]})
    s = tf.train.Server(spec, job_name="worker", task_index=0)
    s.stop()
elif mode == "config":
    from tensorfleet.distributed.server import free_ports
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{free_ports(1)[0]}"]})
    s = tf.train.Server(spec, job_name="worker", task_index=0,
                        config=tf.ConfigProto(intra_op_parallelism_threads=3))
    s.stop()
elif mode == "session":
    tf.Session().close()
blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
print(json.dumps({"limit": threads.blas_threads(), "blas": blas,
                  "cores": threads.available_cores()}))
"""


def _probe(mode, **env):
    import json
    e = {k: v for k, v in os.environ.items()
         if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", threads.ENV)}
    e.update(env, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], env=e, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_server_divides_the_cores_among_its_clusters_local_tasks():
    # No tuning variable set, as a user starts a task by hand.
    r = _probe("server")
    assert r["limit"] == max(1, r["cores"] // 3)
    assert all(n == r["limit"] for n in r["blas"]), r


def test_config_intra_op_threads_wins_over_the_policy():
    r = _probe("config")
    assert r["limit"] == 3 and all(n == 3 for n in r["blas"]), r


def test_the_environment_variable_wins_over_the_policy():
    r = _probe("server", TENSORFLEET_BLAS_THREADS="2")
    assert r["limit"] == 2, r


def test_a_process_without_a_server_keeps_blas_defaults():
    r = _probe("session")
    assert r["limit"] is None, r


def test_cgroup_quota_caps_the_cores(monkeypatch, tmp_path):
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("150000 100000\n")
    monkeypatch.setattr(threads, "_CGROUP_V2", str(cpu_max))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    assert threads.available_cores() == 2
    cpu_max.write_text("max 100000\n")
    assert threads.available_cores() == 8

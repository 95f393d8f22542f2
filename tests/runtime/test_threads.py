"""Each process picks its BLAS thread limit itself: ConfigProto, then the environment,
then the cores divided among the cluster's tasks on this host."""

import os
import time
import subprocess
import sys
from pathlib import Path

import pytest

from tensorfleet.runtime import threads

ROOT = Path(__file__).resolve().parents[2]


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
    # The share, or fewer threads when other processes keep the cores busy.
    assert 1 <= r["limit"] <= max(1, r["cores"] // 3)
    assert all(n == r["limit"] for n in r["blas"]), r


def test_config_intra_op_threads_wins_over_the_policy():
    r = _probe("config")
    assert r["limit"] == 3 and all(n == 3 for n in r["blas"]), r


def test_the_environment_variable_wins_over_the_policy():
    r = _probe("server", TENSORFLEET_BLAS_THREADS="2")
    assert r["limit"] == 2, r


def test_a_process_without_a_server_may_use_every_core():
    r = _probe("session")
    assert 1 <= r["limit"] <= r["cores"], r
    assert all(n == r["limit"] for n in r["blas"]), r


def test_the_limit_is_the_cores_other_processes_leave_free():
    # 2 cores: a load of 2 that is this process's own 2 threads leaves both.
    assert threads.contended_limit(share=2, cores=2, load=2.0, own_threads=2) == 2
    # Another busy process: one core is left.
    assert threads.contended_limit(share=2, cores=2, load=3.1, own_threads=2) == 1
    # Never below one thread, never above the share.
    assert threads.contended_limit(share=2, cores=2, load=30.0, own_threads=1) == 1
    assert threads.contended_limit(share=4, cores=16, load=0.0, own_threads=4) == 4
    assert threads.contended_limit(share=16, cores=16, load=10.4, own_threads=4) == 10


def test_a_running_process_follows_the_load(monkeypatch):
    monkeypatch.delenv(threads.ENV, raising=False)  # the policy applies only without it
    monkeypatch.setattr(threads, "available_cores", lambda: 4)
    set_to = []
    monkeypatch.setattr(threads, "set_blas_threads",
                        lambda n: (set_to.append(n), setattr(threads, "_current", n)))
    monkeypatch.setattr(threads, "_current", None)
    monkeypatch.setattr(threads, "_adaptive_share", 0)
    load = [0.0]
    monkeypatch.setattr(os, "getloadavg", lambda: (load[0], 0.0, 0.0))
    monkeypatch.setattr(threads, "other_processes_cpu", lambda now: None)  # load only
    threads.apply_config(None)          # a local session: a share of all 4 cores
    assert set_to == [4]
    monkeypatch.setattr(threads, "_next_look", 0.0)
    load[0] = 7.0                       # 3 other busy processes beside our 4 threads
    threads.adapt_blas(now=1.0)
    assert set_to == [4, 1]
    load[0] = 1.0                       # the others are gone; our one thread remains
    threads.adapt_blas(now=1.0 + threads.ADAPT_SECS / 2)   # too soon to look again
    assert set_to == [4, 1]
    threads.adapt_blas(now=1.0 + threads.ADAPT_SECS)
    assert set_to == [4, 1, 4]
    # An explicit limit turns the policy off.
    threads.apply_config(type("C", (), {"intra_op_parallelism_threads": 2})())
    threads.adapt_blas(now=100.0)
    assert set_to == [4, 1, 4, 2]


def test_other_processes_busy_since_the_last_look_take_a_core_from_blas(monkeypatch):
    monkeypatch.delenv(threads.ENV, raising=False)
    monkeypatch.setattr(threads, "available_cores", lambda: 2)
    set_to = []
    monkeypatch.setattr(threads, "set_blas_threads",
                        lambda n: (set_to.append(n), setattr(threads, "_current", n)))
    monkeypatch.setattr(threads, "_current", None)
    monkeypatch.setattr(threads, "_adaptive_share", 0)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # the lagging signal
    # A process that spins for a bounded time, then ends by itself.
    spin = subprocess.Popen([sys.executable, "-c",
                             "import time\nend = time.time() + 1.5\n"
                             "while time.time() < end: pass"])
    try:
        time.sleep(0.2)
        threads.other_processes_cpu(time.monotonic())
        time.sleep(0.5)
        assert threads.other_processes_cpu(time.monotonic()) > 0.5
        threads.apply_config(None)
        time.sleep(0.3)
        monkeypatch.setattr(threads, "_next_look", 0.0)
        threads.adapt_blas(now=time.monotonic())
        assert set_to[-1] == 1
    finally:
        spin.wait(timeout=30)
    # The sampler itself: the other processes' share of the machine's busy time.
    monkeypatch.setattr(threads, "other_processes_cpu", lambda now: 0.05)
    monkeypatch.setattr(threads, "_next_look", 0.0)
    threads.adapt_blas(now=time.monotonic())
    assert set_to[-1] == 2                # a quiet machine: both cores again


def test_cgroup_quota_caps_the_cores(monkeypatch, tmp_path):
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("150000 100000\n")
    monkeypatch.setattr(threads, "_CGROUP_V2", str(cpu_max))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    assert threads.available_cores() == 2
    cpu_max.write_text("max 100000\n")
    assert threads.available_cores() == 8


def test_a_measured_quiet_machine_wins_over_a_lagging_load_average(monkeypatch):
    """A process that just ended still weighs on the 1-minute load average; the CPU
    measured since the last look says the cores are free."""
    monkeypatch.delenv(threads.ENV, raising=False)
    monkeypatch.setattr(threads, "available_cores", lambda: 2)
    set_to = []
    monkeypatch.setattr(threads, "set_blas_threads",
                        lambda n: (set_to.append(n), setattr(threads, "_current", n)))
    monkeypatch.setattr(threads, "_current", None)
    monkeypatch.setattr(threads, "_adaptive_share", 0)
    monkeypatch.setattr(os, "getloadavg", lambda: (4.0, 4.0, 4.0))
    measured = [None]
    monkeypatch.setattr(threads, "other_processes_cpu", lambda now: measured[0])
    threads.apply_config(None)
    assert set_to == [1]                  # nothing measured yet: the load average rules
    measured[0] = 0.02
    monkeypatch.setattr(threads, "_next_look", 0.0)
    threads.adapt_blas(now=5.0)
    assert set_to == [1, 2]
    measured[0] = 1.3                     # another process now takes more than a core
    threads.adapt_blas(now=5.0 + threads.ADAPT_SECS)
    assert set_to == [1, 2, 1]


def test_spare_cores_follow_the_measure_beyond_a_shared_hosts_share(monkeypatch):
    """Two tasks on two cores get one BLAS thread each; memory-bound blocks may still
    use both cores while the other processes leave them free."""
    import tensorfleet as tf
    from tensorfleet.kernels.onednn import threads as onednn_threads
    monkeypatch.delenv(threads.ENV, raising=False)
    monkeypatch.setattr(threads, "available_cores", lambda: 2)
    monkeypatch.setattr(threads, "set_blas_threads", lambda n: setattr(threads, "_current", n))
    monkeypatch.setattr(threads, "_current", None)
    monkeypatch.setattr(threads, "_adaptive_share", 0)
    monkeypatch.setattr(onednn_threads, "_spare", None)
    monkeypatch.setattr(onednn_threads, "_limit", 1)
    monkeypatch.setattr(onednn_threads, "_workers", None)
    measured = [0.02]
    monkeypatch.setattr(threads, "other_processes_cpu", lambda now: measured[0])
    threads.apply_config(None, local_tasks=2)
    assert threads.blas_threads() == 1 and onednn_threads.spare() == 2
    measured[0] = 1.3                     # another process now takes more than a core
    monkeypatch.setattr(threads, "_next_look", 0.0)
    threads.adapt_blas(now=5.0)
    assert onednn_threads.spare() == 1
    threads.apply_config(tf.ConfigProto(intra_op_parallelism_threads=1), local_tasks=2)
    assert onednn_threads.spare() == onednn_threads.limit() == 1  # the program's limit

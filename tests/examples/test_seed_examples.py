"""The seed programs run as separate processes: two servers and a client over gRPC."""

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tensorfleet.testing.cluster import free_ports

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _env():
    return dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))


def _wait_listening(port: int, timeout: float = 60.0) -> None:
    import socket
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("localhost", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"server on port {port} did not start")


@pytest.fixture(scope="module")
def seed_servers():
    ports = free_ports(2)
    hosts = ",".join(f"localhost:{p}" for p in ports)
    procs = [subprocess.Popen([sys.executable, str(EXAMPLES / "seed_server.py"),
                               "--task_index", str(i), "--hosts", hosts], env=_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for i in range(2)]
    try:
        for p in ports:
            _wait_listening(p)
        yield hosts
    finally:
        for p in procs:
            p.kill()
            p.wait(10)


def _run(args, timeout=60):
    out = subprocess.run([sys.executable, *args], env=_env(), capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("task", [0, 1])
def test_seed_zcalc_prints_minus_18(seed_servers, task):
    out = _run([str(EXAMPLES / "seed_zcalc.py"), "--hosts", seed_servers,
                "--target_task", str(task)])
    assert out.strip().splitlines()[-1] == "-18"


def test_seed_mapreduce_mean_matches_numpy(seed_servers):
    lines = _run([str(EXAMPLES / "seed_mapreduce.py"), "--hosts", seed_servers]).splitlines()
    ours = float(lines[-2])
    theirs = float(lines[-1].split()[-1])
    assert np.isclose(ours, theirs, rtol=1e-5)


def test_hello_example():
    assert _run([str(EXAMPLES / "hello.py")]).strip() == "Hello, distributed TensorFlow!"

"""A rank that dies, stops answering or never arrives: the others fail fast, naming it.

Threads cover a rank that never calls the collective; real processes cover
``kill -9`` and ``SIGSTOP``. Every process started here is killed by its pid.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from tensorfleet import errors
from tensorfleet.testing.cluster import free_ports

sys.path.insert(0, os.path.dirname(__file__))
from test_collectives import make_groups  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _call_on(groups, ranks, fn):
    """Runs ``fn(group)`` on the given ranks; returns {rank: (error, seconds)}."""
    out = {}

    def go(r):
        t0 = time.monotonic()
        try:
            fn(groups[r])
            out[r] = (None, time.monotonic() - t0)
        except errors.OpError as e:
            out[r] = (e, time.monotonic() - t0)
    threads = [threading.Thread(target=go, args=(r,)) for r in ranks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a collective hung"
    return out


@pytest.mark.parametrize("transport", ["tcp", "grpc"])
@pytest.mark.parametrize("count", [10, 50000], ids=["direct", "ring"])
def test_absent_rank_is_named_within_the_deadline(count, transport):
    gs = make_groups(2, timeout=1.0, chunk_bytes=4096, small_bytes=1024, transport=transport)
    try:
        res = _call_on(gs, [0], lambda g: g.all_reduce(np.ones(count, np.float32)))
        err, seconds = res[0]
        assert isinstance(err, errors.DeadlineExceededError)
        assert f"rank 1 ({gs[0].addresses[1]})" in str(err)
        assert seconds < 4.0
    finally:
        for g in gs:
            g.close()


@pytest.mark.parametrize("transport", ["tcp", "grpc"])
@pytest.mark.parametrize("count", [10, 50000], ids=["direct", "ring"])
def test_every_waiting_rank_blames_the_absent_one(count, transport):
    gs = make_groups(3, timeout=1.0, chunk_bytes=4096, small_bytes=1024, transport=transport)
    try:
        res = _call_on(gs, [0, 1], lambda g: g.all_reduce(np.ones(count, np.float32)))
        for r in (0, 1):
            err, seconds = res[r]
            assert isinstance(err, errors.DeadlineExceededError), (r, err)
            assert f"rank 2 ({gs[0].addresses[2]})" in str(err), (r, str(err))
            assert seconds < 6.0
    finally:
        for g in gs:
            g.close()


# ---------------------------------------------------------------------------- processes


def worker(rank: int, ports: list, timeout: float, transport: str = "tcp") -> None:
    """A rank that all-reduces 1 MiB in a loop and reports how it ended, as JSON."""
    from tensorfleet.collectives import RingGroup
    g = RingGroup([f"localhost:{p}" for p in ports], rank, "fail", timeout=timeout,
                  connect_timeout=30, transport=transport)
    x = np.ones(1 << 18, np.float32)
    g.all_reduce(x)
    print(json.dumps({"ready": rank}), flush=True)
    t0 = time.monotonic()
    try:
        for _ in range(100000):
            r = g.all_reduce(x)
            assert r[0] == len(ports)
            t0 = time.monotonic()
    except errors.OpError as e:
        print(json.dumps({"error": type(e).__name__, "message": str(e),
                          "seconds": time.monotonic() - t0}), flush=True)
        sys.exit(3)


def _start(n: int, timeout: float, transport: str = "tcp"):
    ports = free_ports(n)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, __file__, str(r), json.dumps(ports),
                               str(timeout), transport], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) for r in range(n)]
    for p in procs:
        line = p.stdout.readline()
        assert "ready" in line, line
    return ports, procs


def _finish(procs, ranks, wait: float):
    out = {}
    for r in ranks:
        stdout, _ = procs[r].communicate(timeout=wait)
        out[r] = json.loads(stdout.strip().splitlines()[-1])
    return out


def _kill_all(procs):
    for p in procs:
        if p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except OSError:
                pass
            p.kill()
        p.wait()


@pytest.mark.parametrize("n,transport", [(2, "tcp"), (3, "tcp"), (3, "grpc")])
def test_killed_rank_makes_the_others_fail_naming_it(n, transport):
    ports, procs = _start(n, timeout=5.0, transport=transport)
    try:
        time.sleep(0.3)
        victim = n - 1
        os.kill(procs[victim].pid, signal.SIGKILL)
        res = _finish(procs, range(n - 1), wait=60)
        for r, rec in res.items():
            assert rec["error"] in ("UnavailableError", "DeadlineExceededError"), rec
            assert f"rank {victim} (localhost:{ports[victim]})" in rec["message"], rec
            # Measured by the rank itself, from its last finished all-reduce: the group's
            # 5 s deadline bounds it, however slowly a loaded machine ends the processes.
            assert rec["seconds"] < 12.0, rec
    finally:
        _kill_all(procs)


@pytest.mark.parametrize("n", [2, 3])
def test_stopped_rank_makes_the_others_fail_within_the_deadline(n):
    ports, procs = _start(n, timeout=2.0)
    try:
        time.sleep(0.3)
        victim = 1
        os.kill(procs[victim].pid, signal.SIGSTOP)
        others = [r for r in range(n) if r != victim]
        res = _finish(procs, others, wait=60)
        for r, rec in res.items():
            assert rec["error"] in ("DeadlineExceededError", "UnavailableError"), rec
            assert f"rank {victim} (localhost:{ports[victim]})" in rec["message"], rec
            # From the rank's last finished all-reduce; the group's deadline is 2 s.
            assert rec["seconds"] < 10.0, rec
    finally:
        _kill_all(procs)


if __name__ == "__main__":
    worker(int(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3]), sys.argv[4])

"""Shared memory only between ranks that really share a host: two ranks on separate
network hosts of one machine (network namespaces, one /dev/shm) all-reduce over TCP;
two ranks on one of those hosts go through shared memory."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

import numpy as np
import pytest

from tensorfleet.collectives import shm

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not os.path.isdir(shm.SHM_DIR), reason="no /dev/shm here")]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Every host has ports of its own: a fixed port cannot collide with anything.
PORT = 7400


def rank_main(rank: int, addresses: list) -> None:
    """All-reduces 1 MiB once; prints the sum's check and whether shared memory ran."""
    from tensorfleet.collectives import RingGroup, shm
    g = RingGroup(addresses, rank, "shmhosts", timeout=20, connect_timeout=30)
    try:
        x = np.full(1 << 18, rank + 1.0, np.float32)
        out = g.all_reduce(x)
        print(json.dumps({"rank": rank, "right": bool(np.all(out == 3.0)),
                          "shared_memory": g.shm.capacity > 0, "enabled": g.shm.enabled,
                          "host_key": shm.host_key().hex()}),
              flush=True)
    finally:
        g.close()


def _run_ranks(h, hosts_of_ranks, addresses):
    env = dict(os.environ, PYTHONPATH=ROOT, TENSORFLEET_TOKEN=secrets.token_urlsafe(24))
    procs = [h.run(host, [sys.executable, __file__, str(r), json.dumps(addresses)],
                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r, host in enumerate(hosts_of_ranks)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=60)
        assert p.returncode == 0, stderr
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def test_ranks_on_separate_network_hosts_use_tcp(network_hosts):
    h = network_hosts(2)
    out = _run_ranks(h, [0, 1], [f"{h.addresses[0]}:{PORT}", f"{h.addresses[1]}:{PORT}"])
    assert all(r["right"] for r in out), out
    assert not any(r["shared_memory"] for r in out), out
    assert not any(r["enabled"] for r in out), out
    # One machine, one /dev/shm, two network hosts.
    assert out[0]["host_key"] != out[1]["host_key"]


def test_ranks_on_one_network_host_use_shared_memory(network_hosts):
    h = network_hosts(1)
    a = h.addresses[0]
    out = _run_ranks(h, [0, 0], [f"{a}:{PORT}", f"{a}:{PORT + 1}"])
    assert all(r["right"] for r in out), out
    assert all(r["shared_memory"] for r in out), out
    assert out[0]["host_key"] == out[1]["host_key"]


if __name__ == "__main__":
    rank_main(int(sys.argv[1]), json.loads(sys.argv[2]))

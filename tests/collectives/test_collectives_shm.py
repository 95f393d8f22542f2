"""All-reduce through shared memory among ranks of one host: the same values on every
rank, the ring's answer, a fallback to the ring that every rank takes together, and
no segment left in /dev/shm."""

from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest

from tensorfleet.collectives import shm

sys.path.insert(0, os.path.dirname(__file__))
from test_collectives import make_groups, run_all  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.isdir(shm.SHM_DIR), reason="no /dev/shm here")


def _segments():
    # This process's segments (its ranks are threads): other processes' (tests running
    # beside, a killed rank's that a new group removes) come and go meanwhile.
    mine = f"-{os.getpid()}-"
    return {f for f in os.listdir(shm.SHM_DIR) if f.startswith("tfleet-coll-") and mine in f}


def _reduce_all(n, values, reduction="sum", **opts):
    gs = make_groups(n, name=f"shm{n}{reduction}", **opts)
    try:
        out = run_all(gs, lambda g: g.all_reduce(values[g.rank], reduction))
        return out, [g.shm.capacity for g in gs], [g.shm.enabled for g in gs]
    finally:
        for g in gs:
            g.close()


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("reduction", ["sum", "mean", "max", "min"])
def test_every_rank_gets_the_same_reduction(n, reduction):
    before = _segments()
    rs = [np.random.RandomState(i) for i in range(n)]
    values = [r.randn(50_001).astype(np.float32) for r in rs]
    out, capacity, _ = _reduce_all(n, values, reduction)
    assert all(c >= values[0].nbytes for c in capacity), capacity  # the shared path ran
    stacked = np.stack([v.astype(np.float64) for v in values])
    want = {"sum": stacked.sum(0), "mean": stacked.mean(0), "max": stacked.max(0),
            "min": stacked.min(0)}[reduction]
    for r in out:
        np.testing.assert_array_equal(r, out[0])
    np.testing.assert_allclose(out[0], want, rtol=1e-5, atol=1e-5)
    ring, ring_capacity, _ = _reduce_all(n, values, reduction, shared_memory=False)
    assert ring_capacity == [0] * n
    np.testing.assert_allclose(out[0], ring[0], rtol=1e-6, atol=1e-6)
    assert _segments() == before


def test_integers_are_exact_and_growing_sizes_set_up_again():
    gs = make_groups(3, name="shmgrow")
    try:
        small = [np.arange(40_000, dtype=np.int64) * (i + 1) for i in range(3)]
        out = run_all(gs, lambda g: g.all_reduce(small[g.rank]))
        first = gs[0].shm.capacity
        big = [np.full(100_000, i + 1, np.int32) for i in range(3)]
        out_big = run_all(gs, lambda g: g.all_reduce(big[g.rank]))
        assert gs[0].shm.capacity > first >= small[0].nbytes
    finally:
        for g in gs:
            g.close()
    for r in out:
        np.testing.assert_array_equal(r, np.arange(40_000, dtype=np.int64) * 6)
    for r in out_big:
        np.testing.assert_array_equal(r, np.full(100_000, 6, np.int32))


def test_in_place_reduction():
    gs = make_groups(2, name="shminplace")
    values = [np.full(30_000, i + 1.0) for i in range(2)]
    try:
        out = run_all(gs, lambda g: g.all_reduce(values[g.rank], out=values[g.rank]))
    finally:
        for g in gs:
            g.close()
    assert out[0] is values[0] and out[1] is values[1]
    np.testing.assert_array_equal(values[0], np.full(30_000, 3.0))
    np.testing.assert_array_equal(values[1], np.full(30_000, 3.0))


def test_one_rank_that_cannot_open_a_segment_keeps_every_rank_on_the_ring(monkeypatch):
    real = shm._open_peer
    lock = threading.Lock()
    calls = []

    def first_fails(msg, size):
        with lock:
            calls.append(1)
            first = len(calls) == 1
        return None if first else real(msg, size)

    monkeypatch.setattr(shm, "_open_peer", first_fails)
    before = _segments()
    values = [np.full(40_000, i + 1.0, np.float32) for i in range(3)]
    out, capacity, enabled = _reduce_all(3, values)
    assert capacity == [0, 0, 0] and enabled == [False, False, False]
    for r in out:
        np.testing.assert_array_equal(r, np.full(40_000, 6.0, np.float32))
    assert _segments() == before


def test_a_peer_segment_is_opened_only_if_host_name_size_and_nonce_check_out():
    nonce = os.urandom(16)
    name = shm.segment_name()
    path = os.path.join(shm.SHM_DIR, name)
    seg = shm._create(path, 4096, nonce)
    assert seg is not None
    try:
        msg = shm.setup_message
        opened = shm._open_peer(msg(name, nonce), 4096)
        assert opened is not None
        opened.close()
        assert shm._open_peer(msg(name, os.urandom(16)), 4096) is None  # another nonce
        assert shm._open_peer(msg(name, nonce), 8192) is None  # another size
        other_host = bytes(b ^ 1 for b in shm.host_key())
        assert shm._open_peer(msg(name, nonce, other_host), 4096) is None  # another host
        assert shm._open_peer(msg("../" + name, nonce), 4096) is None  # not our name
        absent = name.rsplit("-", 1)[0] + "-" + "0" * 32
        assert shm._open_peer(msg(absent, nonce), 4096) is None  # absent
    finally:
        seg.close()
        os.unlink(path)

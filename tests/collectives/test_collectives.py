"""Collective algorithms of RingGroup (and LocalGroup), every rank a thread of this process.

Each test is written once and runs for groups of 1, 2 and 3 ranks, over both
links (raw TCP and gRPC), through both the direct path for small tensors and
the chunked ring for large ones (small ``chunk_bytes`` and ``small_bytes`` make
"large" cheap here).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, List

import numpy as np
import pytest

from tensorfleet import errors
from tensorfleet.collectives import LocalGroup, RingGroup, group as group_mod, plan_buckets
from tensorfleet.testing.cluster import free_ports
from tensorfleet.transport import auth

RING_OPTS = {"chunk_bytes": 4096, "small_bytes": 1024}


def make_groups(n: int, name: str = "t", timeout: float = 10.0, tokens=None,
                transport: str = "tcp", **opts: Any) -> List[Any]:
    if n == 1:
        return [LocalGroup()]
    addrs = [f"localhost:{p}" for p in free_ports(n)]
    groups: List[Any] = [None] * n
    errs: List[Any] = [None] * n

    def mk(i: int) -> None:
        try:
            groups[i] = RingGroup(addrs, i, name, timeout=timeout, connect_timeout=10,
                                  token=None if tokens is None else tokens[i],
                                  transport=transport, **opts)
        except Exception as e:  # noqa: BLE001 - reported below
            errs[i] = e
    threads = [threading.Thread(target=mk, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    if any(errs):
        for g in groups:
            if g is not None:
                g.close()
        raise next(e for e in errs if e is not None)
    return groups


def run_all(groups: List[Any], fn: Callable[[Any], Any], join: float = 60) -> List[Any]:
    """Runs ``fn(group)`` on a thread per rank; returns results, or raises the first error."""
    out: List[Any] = [None] * len(groups)
    errs: List[Any] = [None] * len(groups)

    def go(i: int) -> None:
        try:
            out[i] = fn(groups[i])
        except Exception as e:  # noqa: BLE001
            errs[i] = e
    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(groups))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(join)
    assert not any(t.is_alive() for t in threads), "a collective hung"
    for e in errs:
        if e is not None:
            raise e
    return out


@pytest.fixture(params=[(1, "local"), (2, "tcp"), (3, "tcp"), (2, "grpc"), (3, "grpc")],
                ids=lambda p: f"{p[0]}ranks-{p[1]}")
def groups(request):
    n, transport = request.param
    gs = make_groups(n, transport=transport, **RING_OPTS)
    yield gs
    for g in gs:
        g.close()


def data(rank: int, count: int, dtype=np.float32) -> np.ndarray:
    return (np.random.RandomState(rank).randn(count) * 10).astype(dtype)


@pytest.mark.parametrize("count", [1, 7, 200, 5003], ids=lambda c: f"n{c}")
@pytest.mark.parametrize("reduction", ["sum", "mean", "max", "min"])
def test_all_reduce_matches_numpy_and_is_identical(groups, count, reduction):
    n = len(groups)
    xs = [data(r, count) for r in range(n)]
    res = run_all(groups, lambda g: g.all_reduce(xs[g.rank], reduction))
    expected = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[reduction](
        np.stack(xs), axis=0)
    for r in res:
        assert r.shape == (count,) and r.dtype == np.float32
        np.testing.assert_allclose(r, expected, rtol=1e-5, atol=1e-4)
        assert np.array_equal(r, res[0]), "ranks disagree bit for bit"


@pytest.mark.parametrize("count", [9, 4000], ids=["direct", "ring"])
def test_all_reduce_in_place_and_shapes(groups, count):
    n = len(groups)
    xs = [data(r, count).reshape(-1, 1) for r in range(n)]
    expected = np.sum(np.stack(xs), axis=0)
    bufs = [x.copy() for x in xs]
    res = run_all(groups, lambda g: g.all_reduce(bufs[g.rank], out=bufs[g.rank]))
    for r, b in zip(res, bufs):
        assert r is b and r.shape == (count, 1)
        np.testing.assert_allclose(r, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64, np.float16])
def test_all_reduce_dtypes(groups, dtype):
    n = len(groups)
    xs = [np.arange(3000, dtype=dtype) * (r + 1) for r in range(n)]
    res = run_all(groups, lambda g: g.all_reduce(xs[g.rank]))
    for r in res:
        assert r.dtype == dtype
        np.testing.assert_allclose(r.astype(np.float64),
                                   np.sum([x.astype(np.float64) for x in xs], axis=0),
                                   rtol=2e-3)


def test_all_reduce_scalar_and_empty(groups):
    res = run_all(groups, lambda g: (g.all_reduce(np.float32(g.rank + 1)),
                                     g.all_reduce(np.zeros(0, np.float32))))
    n = len(groups)
    for scalar, empty in res:
        assert scalar.shape == () and scalar == n * (n + 1) / 2
        assert empty.shape == (0,)


@pytest.mark.parametrize("count", [100, 6000], ids=["direct", "ring"])
def test_fp16_compression_is_close_and_identical(groups, count):
    n = len(groups)
    xs = [data(r, count) for r in range(n)]
    res = run_all(groups, lambda g: g.all_reduce(xs[g.rank], "mean", compression="fp16"))
    expected = np.mean(np.stack(xs), axis=0)
    for r in res:
        assert r.dtype == np.float32
        np.testing.assert_allclose(r, expected, rtol=2e-2, atol=2e-2)
        assert np.array_equal(r, res[0])


def test_async_reductions_complete_in_order(groups):
    n = len(groups)

    def fn(g):
        futs = [g.all_reduce_async(np.full(500 * (k + 1), k + g.rank, np.float32))
                for k in range(4)]
        return [f.result() for f in futs]
    for per_rank in run_all(groups, fn):
        for k, r in enumerate(per_rank):
            assert r.shape == (500 * (k + 1),)
            assert np.all(r == sum(k + i for i in range(n)))


def test_all_reduce_many_fuses_per_dtype(groups):
    n = len(groups)

    def fn(g):
        vals = [np.full((2, 3), g.rank, np.float32), np.arange(4, dtype=np.int64) + g.rank,
                np.float32(1.0), np.ones(1000, np.float32)]
        return g.all_reduce_many_async(vals).result()
    for out in run_all(groups, fn):
        assert out[0].shape == (2, 3) and np.all(out[0] == sum(range(n)))
        assert out[1].dtype == np.int64 and list(out[1]) == [4 * 0 + n * k + sum(range(n))
                                                            for k in range(4)]
        assert out[2].shape == () and out[2] == n
        assert np.all(out[3] == n)


@pytest.mark.parametrize("rows", [3, 900], ids=["direct", "ring"])
def test_all_gather_with_different_row_counts(groups, rows):
    n = len(groups)
    xs = [np.arange((rows + r) * 2, dtype=np.float32).reshape(-1, 2) + 1000 * r
          for r in range(n)]
    res = run_all(groups, lambda g: g.all_gather(xs[g.rank]))
    for r in res:
        np.testing.assert_array_equal(r, np.concatenate(xs))


@pytest.mark.parametrize("count", [10, 5000], ids=["direct", "ring"])
def test_broadcast_from_every_root(groups, count):
    n = len(groups)
    for root in range(n):
        xs = [data(r, count).reshape(-1, 5) for r in range(n)]
        res = run_all(groups, lambda g: g.broadcast(xs[g.rank], root))
        for r in res:
            np.testing.assert_array_equal(r, xs[root])


@pytest.mark.parametrize("rows", [5, 1200], ids=["direct", "ring"])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_reduce_scatter_gives_each_rank_its_rows(groups, rows, reduction):
    n = len(groups)
    xs = [data(r, rows * 3).reshape(rows, 3) for r in range(n)]
    res = run_all(groups, lambda g: g.reduce_scatter(xs[g.rank], reduction))
    total = (np.sum if reduction == "sum" else np.mean)(np.stack(xs), axis=0)
    for r, piece in zip(range(n), np.array_split(total, n)):
        np.testing.assert_allclose(res[r], piece, rtol=1e-5, atol=1e-4)


def test_barrier_and_many_small_ops(groups):
    def fn(g):
        for _ in range(20):
            g.barrier()
        return [float(g.all_reduce(np.float64(i))) for i in range(30)]
    for r in run_all(groups, fn):
        assert r == [i * len(groups) for i in range(30)]


@pytest.mark.parametrize("transport", ["tcp", "grpc"])
def test_mismatched_collectives_name_the_rank(transport):
    gs = make_groups(2, transport=transport, **RING_OPTS)
    try:
        def fn(g):
            if g.rank == 0:
                return g.all_reduce(np.ones(10, np.float32))
            return g.all_reduce(np.ones(11, np.float32))
        with pytest.raises(errors.InvalidArgumentError, match=r"rank [01] \(localhost:\d+\)"):
            run_all(gs, fn)
        # The group is broken afterwards: later calls fail at once.
        with pytest.raises(errors.InvalidArgumentError, match="failed earlier"):
            gs[0].barrier()
    finally:
        for g in gs:
            g.close()


def test_bad_arguments():
    g = LocalGroup()
    with pytest.raises(errors.InvalidArgumentError, match="unknown reduction"):
        g.all_reduce(np.ones(2), "prod")
    with pytest.raises(errors.InvalidArgumentError, match="compression"):
        g.all_reduce(np.ones(2), compression="int8")
    with pytest.raises(errors.InvalidArgumentError, match="numeric"):
        g.all_reduce(np.array([b"x"], dtype=object))
    with pytest.raises(errors.InvalidArgumentError, match="rank"):
        RingGroup(["localhost:1", "localhost:2"], 2)
    with pytest.raises(errors.InvalidArgumentError, match="distinct"):
        RingGroup(["localhost:1", "localhost:1"], 0)


@pytest.mark.parametrize("transport", ["tcp", "grpc"])
def test_wrong_token_is_refused(transport):
    with pytest.raises(errors.OpError) as info:
        make_groups(2, tokens=["token-one", "token-two"], timeout=3, transport=transport)
    assert isinstance(info.value, (errors.UnauthenticatedError, errors.UnavailableError,
                                   errors.DeadlineExceededError))


@pytest.mark.parametrize("transport", ["tcp", "grpc"])
def test_same_token_connects(transport):
    gs = make_groups(2, tokens=["shared-token", "shared-token"], transport=transport)
    try:
        res = run_all(gs, lambda g: g.all_reduce(np.ones(3)))
        assert np.all(res[0] == 2)
    finally:
        for g in gs:
            g.close()


def test_public_address_needs_a_token(monkeypatch):
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)
    with pytest.raises(errors.FailedPreconditionError, match="without a cluster token"):
        RingGroup(["0.0.0.0:1", "localhost:2"], 0, connect_timeout=1)


def test_segment_bounds_and_bucket_plan():
    assert group_mod.segment_bounds(10, 3) == [0, 4, 7, 10]
    assert group_mod.segment_bounds(12, 3, unit=3) == [0, 6, 9, 12]
    items = [(100, "f"), (100, "f"), (300, "f"), (None, "f"), (10, "i"), (10, "f")]
    assert plan_buckets(items, 250) == [[0, 1], [2], [3], [4], [5]]
    assert plan_buckets(items, 0) == [[0], [1], [2], [3], [4], [5]]
    assert plan_buckets(items[:3], 1 << 20) == [[0, 1, 2]]
    buf = group_mod.pack([np.ones((2, 2)), np.zeros(3), np.float64(5)])
    a, b, c = group_mod.unpack(buf, [(2, 2), (3,), ()])
    assert a.shape == (2, 2) and b.shape == (3,) and c.shape == () and c == 5

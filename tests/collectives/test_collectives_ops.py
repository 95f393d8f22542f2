"""Collective ops in graphs, DistributedOptimizer, the broadcast hook and the strategy.

Ranks are threads of this process, each with its own graph and session; each
registers its group under its own key (``r0``, ``r1``...) so the kernels of one
rank find that rank's group.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import collectives as coll
from tensorfleet import errors
from tensorfleet.collectives import registry
from tensorfleet.runtime.executor import prune

sys.path.insert(0, os.path.dirname(__file__))
from test_collectives import make_groups  # noqa: E402


@pytest.fixture(params=[2, 3], ids=lambda n: f"{n}ranks")
def keyed(request):
    """Groups registered as r0..r{n-1}; yields n."""
    n = request.param
    gs = make_groups(n, name="ops", chunk_bytes=4096, small_bytes=1024)
    for i, g in enumerate(gs):
        coll.register_group(g, f"r{i}")
    yield n
    for i in range(n):
        registry.shutdown(f"r{i}")


def per_rank(n, fn):
    """Runs ``fn(rank)`` on a thread per rank, each with a fresh default graph."""
    out, errs = [None] * n, [None] * n

    def go(i):
        try:
            with tf.Graph().as_default():
                out[i] = fn(i)
        except Exception as e:  # noqa: BLE001
            errs[i] = e
    threads = [threading.Thread(target=go, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a rank hung"
    for e in errs:
        if e is not None:
            raise e
    return out


def test_collective_ops_in_a_session(keyed):
    n = keyed

    def rank_main(i):
        key = f"r{i}"
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) * (i + 1))
        mean = coll.all_reduce(x, "mean", group_key=key)
        fused = coll.all_reduce([x, tf.constant([i], tf.int64)], "max", group_key=key)
        gathered = coll.all_gather(tf.fill([i + 1, 2], float(i)), group_key=key)
        bcast = coll.broadcast([x, tf.constant(i)], root=n - 1, group_key=key)
        scattered = coll.reduce_scatter(tf.ones([n * 2, 2]), group_key=key)
        with tf.control_dependencies([coll.barrier(group_key=key)]):
            after = tf.identity(x)
        with tf.Session() as s:
            return s.run([mean, fused, gathered, bcast, scattered, after])

    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    for i, (mean, fused, gathered, bcast, scattered, after) in enumerate(per_rank(n, rank_main)):
        np.testing.assert_allclose(mean, base * (n + 1) / 2)
        np.testing.assert_array_equal(fused[0], base * n)
        assert fused[1].tolist() == [n - 1]
        assert gathered.shape == (n * (n + 1) // 2, 2)
        np.testing.assert_array_equal(bcast[0], base * n)
        assert bcast[1] == n - 1
        np.testing.assert_array_equal(scattered, np.full((2, 2), n, np.float32))
        np.testing.assert_array_equal(after, base * (i + 1))


def _model(rank, rows=8):
    rng = np.random.RandomState(100 + rank)
    x = tf.constant(rng.randn(rows, 5).astype(np.float32))
    y = tf.constant(rng.randn(rows, 2).astype(np.float32))
    init = np.random.RandomState(7)
    w1 = tf.Variable(init.randn(5, 4).astype(np.float32), name="w1")
    b1 = tf.Variable(np.zeros(4, np.float32), name="b1")
    w2 = tf.Variable(init.randn(4, 2).astype(np.float32), name="w2")
    h = tf.tanh(tf.matmul(x, w1) + b1)
    loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
    return loss, [w1, b1, w2]


@pytest.mark.parametrize("threshold,overlap", [(1 << 20, True), (0, True), (64, False)],
                         ids=["fused", "per-tensor", "sync"])
def test_distributed_optimizer_step_equals_combined_batch(keyed, threshold, overlap):
    n = keyed

    def rank_main(i):
        loss, variables = _model(i)
        opt = coll.DistributedOptimizer(tf.train.MomentumOptimizer(0.1, 0.9),
                                        fusion_threshold_bytes=threshold, overlap=overlap,
                                        group_key=f"r{i}")
        train = opt.minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(2):
                s.run(train)
            return s.run(variables)

    results = per_rank(n, rank_main)
    # The same two steps in one process on the mean of every rank's gradient.
    with tf.Graph().as_default():
        losses = []
        for i in range(n):
            with tf.name_scope(f"rank{i}"):
                if i == 0:
                    loss, variables = _model(0)
                    losses.append(loss)
                else:
                    rng = np.random.RandomState(100 + i)
                    x = tf.constant(rng.randn(8, 5).astype(np.float32))
                    y = tf.constant(rng.randn(8, 2).astype(np.float32))
                    w1, b1, w2 = variables
                    h = tf.tanh(tf.matmul(x, w1) + b1)
                    losses.append(tf.reduce_mean(tf.square(tf.matmul(h, w2) - y)))
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.add_n(losses) / n)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(2):
                s.run(train)
            single = s.run(variables)
    for r in results:
        for got, ref, first in zip(r, single, results[0]):
            np.testing.assert_array_equal(got, first)
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_reductions_start_during_backprop():
    """Each bucket's start op is scheduled right after its last gradient."""
    coll.register_group(coll.LocalGroup(), "sched")
    try:
        x = tf.placeholder(tf.float32, [4, 3])
        h = x
        for k in range(4):
            h = tf.tanh(tf.matmul(h, tf.Variable(np.eye(3, dtype=np.float32), name=f"w{k}")))
        loss = tf.reduce_sum(h)
        opt = coll.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                        fusion_threshold_bytes=40, group_key="sched")
        train = opt.minimize(loss)
        order = prune([], [train], set())
        names = [op.type for op in order]
        starts = [i for i, t in enumerate(names) if t == "CollectiveAllReduceStart"]
        waits = [i for i, t in enumerate(names) if t == "CollectiveAllReduceWait"]
        matmul_grads = [i for i, op in enumerate(order)
                        if op.type == "MatMul" and "gradients" in op.name]
        assert len(starts) == 4 and len(waits) == 4
        # The first reduction starts before the last gradient matmul runs ...
        assert starts[0] < max(matmul_grads)
        # ... and no wait blocks the backward pass.
        assert min(waits) > max(matmul_grads) and min(waits) > max(starts)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train, {x: np.ones((4, 3), np.float32)})
    finally:
        registry.shutdown("sched")


def test_sparse_gradients_are_gathered(keyed):
    n = keyed

    def rank_main(i):
        emb = tf.Variable(np.zeros((6, 2), np.float32), name="emb")
        rows = tf.nn.embedding_lookup(emb, tf.constant([i, 5]))
        loss = tf.reduce_sum(rows)
        opt = coll.DistributedOptimizer(tf.train.GradientDescentOptimizer(1.0),
                                        group_key=f"r{i}")
        train = opt.minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train)
            return s.run(emb)

    expected = np.zeros((6, 2), np.float32)
    for i in range(n):
        expected[[i, 5]] -= 1.0 / n
    for r in per_rank(n, rank_main):
        np.testing.assert_allclose(r, expected, atol=1e-6)


def test_broadcast_hook_with_monitored_session(keyed):
    n = keyed

    def rank_main(i):
        v = tf.Variable(np.full(3, float(i), np.float32), name="v")
        step = tf.train.get_or_create_global_step()
        hook = coll.BroadcastGlobalVariablesHook(root_rank=n - 1, group_key=f"r{i}")
        with tf.train.MonitoredTrainingSession(hooks=[hook]) as s:
            return s.run([v, step])

    for v, step in per_rank(n, rank_main):
        np.testing.assert_array_equal(v, np.full(3, float(n - 1)))


def test_missing_group_is_a_clear_error():
    x = coll.all_reduce(tf.constant([1.0]), group_key="nobody")
    with tf.Session() as s:
        with pytest.raises(errors.FailedPreconditionError, match="no collective group 'nobody'"):
            s.run(x)


def test_single_process_default_group_and_strategy(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(group_key="solo")
    try:
        assert strategy.num_replicas_in_sync == 1 and strategy.is_chief
        with strategy.scope():
            assert tf.distribute.get_strategy() is strategy and tf.distribute.has_strategy()
            v = tf.Variable([2.0, 4.0])
            total = strategy.reduce(tf.distribute.ReduceOp.SUM, v, axis=0)
            opt = tf.distribute.DistributedOptimizer(tf.train.GradientDescentOptimizer(0.5))
            train = opt.minimize(tf.reduce_sum(v * v))
            ctx_sum = strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
                tf.distribute.ReduceOp.MEAN, tf.constant(3.0)))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(total) == 6.0
            s.run(train)
            np.testing.assert_allclose(s.run(v), [0.0, 0.0])
            assert s.run(ctx_sum) == 3.0
    finally:
        registry.shutdown("solo")


def test_membership_from_tf_config():
    cfg = {"cluster": {"chief": ["h0:1000"], "worker": ["h1:1000", "h2:1000"],
                       "ps": ["p:1"]}, "task": {"type": "worker", "index": 1}}
    addrs, rank = registry.members_from_tf_config(json.dumps(cfg), port_offset=5)
    assert addrs == ["h0:1005", "h1:1005", "h2:1005"] and rank == 2
    cfg["task"] = {"type": "ps", "index": 0}
    with pytest.raises(errors.InvalidArgumentError, match="not a chief or worker"):
        registry.members_from_tf_config(json.dumps(cfg))
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver(
        tf_config=json.dumps(dict(cfg, task={"type": "chief", "index": 0})))
    strategy = tf.distribute.experimental.CollectiveAllReduceStrategy(
        cluster_resolver=resolver, group_key="never-created")
    assert strategy.num_replicas_in_sync == 3 and strategy.rank == 0
    assert strategy.extended.should_checkpoint

"""SparseApplyMany: the sparse Adagrad and FTRL updates of many variables of one
device as one op, value for value the same as one single op per variable."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import LocalCluster
from tensorfleet.training import training_ops

SHAPES = [(10, 2), (10, 3), (6, 2), (10, 2)]
IDS = [[1, 3, 3, 7], [0, 9], [2, 2, 2, 5, 0], [4]]


def _optimizers():
    return {
        "adagrad": lambda: tf.train.AdagradOptimizer(0.3),
        "ftrl": lambda: tf.train.FtrlOptimizer(0.2, l1_regularization_strength=0.01,
                                               l2_regularization_strength=0.1),
        "ftrl_v2": lambda: tf.train.FtrlOptimizer(
            0.2, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.05),
    }


def _train(make_opt, group, steps=3, devices=None, target=""):
    """Trains sparse lookups of four variables; returns (update op types, values)."""
    g = tf.Graph()
    with g.as_default():
        vs = []
        for i, shape in enumerate(SHAPES):
            with tf.device(devices[i] if devices else ""):
                init = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * 0.05 + i
                vs.append(tf.Variable(init, name=f"v{i}"))
        x = tf.placeholder(tf.float32, [])
        loss = tf.add_n([tf.reduce_sum(tf.square(tf.gather(v, ids) * x - 1.0))
                         for v, ids in zip(vs, IDS)])
        opt = make_opt()
        if not group:
            opt._groups_sparse_updates = lambda: False
        train = opt.minimize(loss)
        ops = [op for op in g.get_operations() if "Apply" in op.type]
        with tf.Session(target) as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(steps):
                sess.run(train, {x: 0.5 + step})
            return ops, sess.run(vs)


@pytest.mark.parametrize("name", ["adagrad", "ftrl", "ftrl_v2"])
def test_grouped_updates_equal_single_ones(name):
    make = _optimizers()[name]
    grouped_ops, grouped = _train(make, group=True)
    single_ops, single = _train(make, group=False)
    assert [op.type for op in grouped_ops] == ["SparseApplyMany"]
    assert len(single_ops) == 4 and "SparseApplyMany" not in {op.type for op in single_ops}
    for a, b in zip(grouped, single):
        np.testing.assert_array_equal(a, b)
    # The rows no id named never moved.
    start = np.arange(60, dtype=np.float32)[:20].reshape(10, 2) * 0.05
    untouched = [r for r in range(10) if r not in IDS[0]]
    np.testing.assert_array_equal(grouped[0][untouched], start[untouched])


def test_each_device_gets_its_own_group():
    cluster = LocalCluster({"ps": 2, "worker": 1})
    try:
        devices = ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:ps/task:1"]
        make = _optimizers()["adagrad"]
        ops, values = _train(make, group=True, devices=devices,
                             target=cluster.target("worker", 0))
        single_ops, single = _train(make, group=False)
    finally:
        cluster.stop()
    assert sorted(op.type for op in ops) == ["SparseApplyMany", "SparseApplyMany"]
    assert sorted(op.device for op in ops) == ["/job:ps/task:0", "/job:ps/task:1"]
    for a, b in zip(values, single):
        np.testing.assert_array_equal(a, b)


def test_a_subclass_that_changes_the_update_is_not_bypassed():
    class Halved(tf.train.AdagradOptimizer):
        def _apply_sparse(self, grad, var):
            return super()._apply_sparse(
                tf.IndexedSlices(grad.values * 0.5, grad.indices, grad.dense_shape), var)

    ops, values = _train(lambda: Halved(0.3), group=True)
    assert {op.type for op in ops} == {"SparseApplyAdagrad"} and len(ops) == 4
    _, plain = _train(_optimizers()["adagrad"], group=True)
    assert not np.array_equal(values[0], plain[0])


def test_dense_gradients_keep_their_own_ops():
    g = tf.Graph()
    with g.as_default():
        a = tf.Variable(np.ones((4, 2), np.float32))
        b = tf.Variable(np.ones((4, 2), np.float32))
        c = tf.Variable(np.ones((4, 2), np.float32))
        loss = tf.reduce_sum(tf.gather(a, [0, 1])) + tf.reduce_sum(tf.gather(b, [3])) + \
            tf.reduce_sum(c * c)
        tf.train.AdagradOptimizer(0.1).minimize(loss)
        types = sorted(op.type for op in g.get_operations() if "Apply" in op.type)
    assert types == ["ApplyAdagrad", "SparseApplyMany"]


def _direct(var_values, grads, ids, use_locking=False, twice=False):
    """Runs sparse_apply_many on Adagrad variables; ``twice`` names the first one twice."""
    g = tf.Graph()
    with g.as_default():
        vs = [tf.Variable(v) for v in var_values]
        accs = [tf.Variable(np.full_like(v, 0.1)) for v in var_values]
        refs = [[v, a] for v, a in zip(vs, accs)]
        if twice:
            refs = [refs[0]] + refs
        op = training_ops.sparse_apply_many("SparseApplyAdagrad", refs, grads, ids, [0.5],
                                            use_locking=use_locking)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            return sess.run(vs + accs)


def _single_adagrad(value, acc, grad, ids):
    value, acc = value.copy(), acc.copy()
    summed = {}
    for row, i in zip(grad, ids):
        summed[i] = summed.get(i, 0) + row
    for i, row in summed.items():
        acc[i] += row * row
        value[i] -= 0.5 * row / np.sqrt(acc[i])
    return value, acc


def test_a_variable_named_twice_is_updated_twice_in_turn():
    v = np.arange(8, dtype=np.float32).reshape(4, 2)
    g1 = np.ones((2, 2), np.float32)
    g2 = np.full((1, 2), 2.0, np.float32)
    out = _direct([v], [g1, g2], [[0, 0], [0]], twice=True)
    value, acc = _single_adagrad(v, np.full_like(v, 0.1), g1, [0, 0])
    value, acc = _single_adagrad(value, acc, g2, [0])
    np.testing.assert_allclose(out[0], value, rtol=1e-6)
    np.testing.assert_allclose(out[1], acc, rtol=1e-6)


def test_locking_gives_the_same_values():
    vals = [np.ones((5, 3), np.float32), np.full((5, 3), 2.0, np.float32)]
    grads = [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]
    locked = _direct(vals, grads, [[1, 4], [2]], use_locking=True)
    free = _direct(vals, grads, [[1, 4], [2]])
    for a, b in zip(locked, free):
        np.testing.assert_array_equal(a, b)


def test_bad_input_is_named():
    vals = [np.ones((5, 3), np.float32), np.ones((5, 3), np.float32)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseApplyMany"):
        # The second gradient has rows of the wrong width: found when the op runs,
        # as the placeholder-fed shape is unknown when it is built.
        g = tf.Graph()
        with g.as_default():
            vs = [tf.Variable(v) for v in vals]
            accs = [tf.Variable(np.full_like(v, 0.1)) for v in vals]
            bad = tf.placeholder(tf.float32, [None, None])
            op = training_ops.sparse_apply_many(
                "SparseApplyAdagrad", [[v, a] for v, a in zip(vs, accs)],
                [np.ones((1, 3), np.float32), bad], [[0], [1]], [0.5])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(op, {bad: np.ones((1, 4), np.float32)})
    with pytest.raises(ValueError, match="must be one of"):
        training_ops.sparse_apply_many("SparseApplyAdam", [], [], [], [])
    with pytest.raises(ValueError, match="2 references"):
        with tf.Graph().as_default():
            v = tf.Variable(np.ones((2, 2), np.float32))
            training_ops.sparse_apply_many("SparseApplyAdagrad", [[v]], [np.ones((1, 2))],
                                           [[0]], [0.5])

"""Gradient accumulators: averaging, staleness, blocking takes and their wake-ups."""

import threading
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.ops.accumulator_ops import ConditionalAccumulator, SparseConditionalAccumulator
from tensorfleet.kernels.accumulator_resources import (ConditionalAccumulatorResource,
                                              SparseConditionalAccumulatorResource)
from tensorfleet.runtime.resource_mgr import ResourceManager


def _start(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except Exception as e:  # noqa: BLE001 - checked by the test
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


# -- the resources ------------------------------------------------------------------------

def test_resource_mean_sum_and_stale_drop():
    acc = ConditionalAccumulatorResource("a", tf.float32, [2])
    assert acc.apply_grad(np.array([1, 2], np.float32), 0)
    assert acc.apply_grad(np.array([3, 6], np.float32), 5)
    np.testing.assert_array_equal(acc.take_grad(2), [2, 4])
    assert acc.num_accumulated() == 0 and acc.global_step == 0  # take moves no step
    acc.set_global_step(3)
    assert not acc.apply_grad(np.array([1, 1], np.float32), 2)
    assert acc.num_dropped == 1 and acc.num_accumulated() == 0
    total = ConditionalAccumulatorResource("s", tf.float64, [2], reduction_type="SUM")
    total.apply_grad(np.array([1, 2], np.float64), 0)
    total.apply_grad(np.array([3, 4], np.float64), 0)
    np.testing.assert_array_equal(total.take_grad(1), [4, 6])


def test_set_global_step_purges_gradients_that_became_stale():
    acc = ConditionalAccumulatorResource("a", tf.float32, [1])
    acc.apply_grad(np.array([1], np.float32), 4)  # late gradient of the step just taken
    acc.apply_grad(np.array([7], np.float32), 5)
    acc.set_global_step(5)
    assert acc.num_accumulated() == 1 and acc.num_dropped == 1
    np.testing.assert_array_equal(acc.take_grad(1), [7])


def test_take_blocks_until_enough_gradients_then_averages_all():
    acc = ConditionalAccumulatorResource("a", tf.float32, None)
    t, out = _start(lambda: acc.take_grad(2))
    acc.apply_grad(np.array([[2.0]], np.float32), 0)
    time.sleep(0.1)
    assert t.is_alive()
    acc.apply_grad(np.array([[4.0]], np.float32), 0)
    t.join(5)
    np.testing.assert_array_equal(out["value"], [[3.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_required"):
        acc.take_grad(0)


def test_close_wakes_a_blocked_take_and_drops_later_gradients():
    acc = ConditionalAccumulatorResource("a", tf.float32, [1])
    t, out = _start(lambda: acc.take_grad(1))
    time.sleep(0.05)
    acc.close()
    t.join(5)
    assert isinstance(out["error"], tf.errors.CancelledError)
    assert not acc.apply_grad(np.array([1], np.float32), 0)


def test_cancelled_step_and_container_reset_wake_a_blocked_take():
    acc = ConditionalAccumulatorResource("a", tf.float32, [1])
    flag = {"cancelled": False}
    t, out = _start(lambda: acc.take_grad(1, cancelled=lambda: flag["cancelled"]))
    flag["cancelled"] = True
    t.join(2)
    assert not t.is_alive() and isinstance(out["error"], tf.errors.CancelledError)
    rm = ResourceManager()
    acc = rm.lookup_or_create("", "b", lambda: ConditionalAccumulatorResource("b", tf.float32))
    t, out = _start(lambda: acc.take_grad(1))
    time.sleep(0.05)
    rm.clear()
    t.join(2)
    assert isinstance(out["error"], tf.errors.CancelledError)
    with pytest.raises(tf.errors.CancelledError, match="reset"):
        acc.apply_grad(np.array([1], np.float32), 0)


def test_resource_checks_shapes_and_dtypes():
    acc = ConditionalAccumulatorResource("a", tf.float32, [None])
    acc.apply_grad(np.zeros(3, np.float32), 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
        acc.apply_grad(np.zeros(4, np.float32), 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="float64"):
        acc.apply_grad(np.zeros(3, np.float64), 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="floating point"):
        ConditionalAccumulatorResource("i", tf.int32)
    sparse = SparseConditionalAccumulatorResource("s", tf.float32, [5, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="one row per index"):
        sparse.apply_grad(np.array([0, 1]), np.zeros((3, 2), np.float32), None, 0)


# -- the ops --------------------------------------------------------------------------------

def test_ops_apply_take_num_accumulated_and_set_global_step():
    acc = ConditionalAccumulator(tf.float32, shape=[2], name="acc")
    g = tf.placeholder(tf.float32, [2])
    step = tf.placeholder(tf.int64, [])
    apply = acc.apply_grad(g, local_step=step)
    take = acc.take_grad(2)
    count = acc.num_accumulated()
    set_step = acc.set_global_step(tf.constant(2, tf.int32))
    assert take.shape.as_list() == [2] and take.dtype == tf.float32
    with tf.Session() as sess:
        sess.run(apply, {g: [1, 2], step: 0})
        sess.run(apply, {g: [3, 5], step: 1})
        assert sess.run(count) == 2
        np.testing.assert_allclose(sess.run(take), [2.0, 3.5])
        sess.run(set_step)
        sess.run(apply, {g: [9, 9], step: 1})  # stale
        assert sess.run(count) == 0
        sess.run(apply, {g: [9, 9], step: 2})
        assert sess.run(count) == 1


def test_operation_timeout_ends_a_blocked_take_and_keeps_the_gradients():
    acc = ConditionalAccumulator(tf.float32, shape=[2], name="acc_timeout")
    g = tf.placeholder(tf.float32, [2])
    apply = acc.apply_grad(g, local_step=0)
    take = acc.take_grad(2)
    count = acc.num_accumulated()
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=200)) as sess:
        sess.run(apply, {g: [1, 2]})
        with pytest.raises(tf.errors.DeadlineExceededError, match="operation_timeout_in_ms"):
            sess.run(take)  # one gradient of the two it needs
        assert sess.run(count) == 1
        sess.run(apply, {g: [3, 4]})
        np.testing.assert_allclose(sess.run(take), [2.0, 3.0])


def test_ops_check_shapes_and_dtypes_at_build_time():
    acc = ConditionalAccumulator(tf.float32, shape=[2])
    with pytest.raises(ValueError, match="Shape mismatch"):
        acc.apply_grad(tf.zeros([3]))
    with pytest.raises(TypeError):
        ConditionalAccumulator(tf.int32)
    with pytest.raises(ValueError, match="reduction_type"):
        ConditionalAccumulator(tf.float32, reduction_type="MAX")


def test_sparse_take_sums_rows_and_divides_by_the_gradients_naming_each_index():
    acc = SparseConditionalAccumulator(tf.float32, shape=[4, 2])
    idx = tf.placeholder(tf.int64, [None])
    vals = tf.placeholder(tf.float32, [None, 2])
    apply = acc.apply_indexed_slices_grad(
        tf.IndexedSlices(vals, idx, tf.constant([4, 2], tf.int64)), local_step=0)
    taken = acc.take_indexed_slices_grad(2)
    assert isinstance(taken, tf.IndexedSlices)
    with tf.Session() as sess:
        sess.run(apply, {idx: [0, 2], vals: [[1, 1], [2, 2]]})
        sess.run(apply, {idx: [2, 3, 3], vals: [[4, 4], [1, 1], [5, 5]]})
        out = sess.run(taken)
    np.testing.assert_array_equal(out.indices, [0, 2, 3])
    # Per index, as TensorFlow: row 0 and row 3 come from one gradient each.
    np.testing.assert_allclose(out.values, [[1, 1], [3, 3], [6, 6]])
    np.testing.assert_array_equal(out.dense_shape, [4, 2])
    # Without a dense shape given, the accumulator's own shape is reported.
    acc2 = SparseConditionalAccumulator(tf.float32, shape=[None, 3])
    apply2 = acc2.apply_grad([1], [[1.0, 2.0, 3.0]])
    ind, val, shape = acc2.take_grad(1)
    with tf.Session() as sess:
        sess.run(apply2)
        i, v, s = sess.run([ind, val, shape])
    np.testing.assert_allclose(v, [[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(i, [1])
    np.testing.assert_array_equal(s, [2, 3])


def test_shared_name_shares_one_accumulator_between_graphs_on_a_server():
    server = tf.train.Server.create_local_server()
    try:
        graphs = []
        for _ in range(2):
            g = tf.Graph()
            with g.as_default():
                acc = ConditionalAccumulator(tf.float32, shape=[1], shared_name="shared_acc")
                graphs.append((g, acc.apply_grad([1.0]), acc.num_accumulated(),
                               acc.take_grad(2), acc.close()))
        (g0, apply0, _, take0, close0), (g1, apply1, count1, _, _) = graphs
        with tf.Session(server.target, graph=g0) as s0, \
                tf.Session(server.target, graph=g1) as s1:
            s0.run(apply0)
            s1.run(apply1)
            assert s1.run(count1) == 2
            np.testing.assert_allclose(s0.run(take0), [1.0])
            # A take blocked on the server ends when another session closes it.
            t, out = _start(lambda: s0.run(take0))
            time.sleep(0.1)
            s0.run(close0)
            t.join(5)
            assert isinstance(out["error"], tf.errors.CancelledError)
    finally:
        server.stop()

"""A conv with its bias and ReLU runs as one kernel where nothing else can tell, with
the values the three ops give one by one."""

from __future__ import annotations

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.runtime.executor import idle_ops, prune
from tensorfleet.runtime.kernel_fusion import find_chains

from tests.kernels.onednn.backend_helpers import bias_and_relu


def _chains(fetches, targets=()):
    ops = prune(list(fetches), list(targets), set())
    return find_chains(ops, list(fetches), idle_ops(ops, list(fetches)))


def _layer(x, bias_kind="bias_add", relu=True, data_format="NHWC"):
    rng = np.random.default_rng(3)
    k = tf.Variable(rng.standard_normal([3, 3, 4, 6]).astype(np.float32))
    b = tf.Variable(rng.standard_normal([6]).astype(np.float32))
    conv = tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME", data_format=data_format)
    if bias_kind == "bias_add" and data_format == "NCHW":
        return tf.nn.bias_add(conv, b, data_format=data_format), conv, k
    return bias_and_relu(conv, b, bias_kind, relu), conv, k


def _check_against_unfused(out, product, var, feed, loss):
    """Runs ``out`` fused and unfused (fetching the product's own output leaves the chain
    unfused) and one training step of ``loss`` each way; both must agree. Returns the
    fused value."""
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fused = sess.run(out, feed)
        unfused, _ = sess.run([out, product], feed)
        np.testing.assert_allclose(fused, unfused, rtol=1e-5, atol=1e-4)
        sess.run(train, feed)
        var_after = sess.run(var)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([train, product], feed)
        np.testing.assert_allclose(sess.run(var), var_after, rtol=1e-5, atol=1e-5)
    return fused


@pytest.fixture(params=["numpy", "onednn"])
def backend(request):
    tf.set_cpu_kernel_backend(request.param)
    yield request.param
    tf.set_cpu_kernel_backend(None)


@pytest.mark.parametrize("bias_kind,relu", [("bias_add", True), ("add", True),
                                            ("add_left", True), ("bias_add", False),
                                            (None, True)])
def test_the_fused_chain_gives_the_unfused_values(backend, bias_kind, relu):
    x_val = np.random.default_rng(5).standard_normal([2, 7, 7, 4]).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 7, 7, 4])
        out, conv, k = _layer(x, bias_kind, relu)
        chains = _chains([out])
        assert set(chains) == {out.op}
        fused = _check_against_unfused(out, conv, k, {x: x_val}, tf.reduce_sum(out * out))
        if relu:
            assert (fused >= 0).all() and (fused == 0).any()


def test_chains_nothing_else_can_tell_apart_are_the_only_ones_fused():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 7, 7, 4])
        out, _, _ = _layer(x, "add")
        # The conv's output read by a second op: not fused.
        shared, also, _ = _layer(x, "add")
        also = also * 2.0
        # A [1, 6] bias broadcast over rows is not a per-channel bias.
        y = tf.nn.conv2d(x, tf.ones([1, 1, 4, 6]), [1, 1, 1, 1], "SAME")
        odd = tf.nn.relu(y + tf.ones([1, 6]))
        # A control edge into the chain: not fused.
        z = tf.nn.conv2d(x, tf.ones([1, 1, 4, 6]), [1, 1, 1, 1], "SAME")
        with tf.control_dependencies([out]):
            gated = tf.nn.relu(z)
        heads = set(_chains([out, shared, also, odd, gated]))
        assert heads == {out.op}


def test_nchw_chains_are_not_fused():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 7, 7])
        out, _, _ = _layer(x, "bias_add", data_format="NCHW")
        assert _chains([out]) == {}


def test_a_fused_step_is_traced_under_the_chains_last_op():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 7, 7, 4])
        out, _, _ = _layer(x, "bias_add")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            meta = tf.RunMetadata()
            sess.run(out, {x: np.ones([1, 7, 7, 4], np.float32)},
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
        names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
        assert out.op.name in names


@pytest.mark.parametrize("bias_kind,relu,transpose_b", [("bias_add", True, False),
                                                        ("add", True, True),
                                                        ("add", False, False),
                                                        (None, True, False)])
def test_a_fused_dense_layer_gives_the_unfused_values(backend, bias_kind, relu, transpose_b):
    # 64 x 256 x 256 multiply-adds: large enough for oneDNN's product.
    rng = np.random.default_rng(11)
    x_val = rng.standard_normal([64, 256]).astype(np.float32)
    w_val = rng.standard_normal([256, 256]).astype(np.float32) / 16
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 256])
        w = tf.Variable(w_val.T if transpose_b else w_val)
        b = tf.Variable(rng.standard_normal([256]).astype(np.float32))
        y = product = tf.matmul(x, w, transpose_b=transpose_b)
        if bias_kind == "bias_add":
            y = tf.nn.bias_add(y, b)
        elif bias_kind == "add":
            y = y + b
        if relu:
            y = tf.nn.relu(y)
        assert set(_chains([y])) == {y.op}
        _check_against_unfused(y, product, w, {x: x_val}, tf.reduce_sum(y * y))


def _relu_pool_grads(x, ksize, strides, padding):
    """The gradients of a loss through conv -> ReLU -> max pool, with the ReluGrad and
    the MaxPoolGrad ops of the backward pass."""
    k = tf.Variable(np.random.default_rng(7).standard_normal([3, 3, 4, 6]).astype(np.float32))
    h = tf.nn.relu(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
    p = tf.nn.max_pool(h, [1, ksize, ksize, 1], [1, strides, strides, 1], padding)
    # A gradient that is not zero where the pooled value is (as p * sin(p)'s would be).
    weights = tf.constant(np.random.default_rng(8).standard_normal(
        p.shape.as_list()[1:]).astype(np.float32))
    loss = tf.reduce_sum(p * weights)
    gx, gk = tf.gradients(loss, [x, k])
    relu_grad = next(op for op in tf.get_default_graph().get_operations()
                     if op.type == "ReluGrad")
    return gx, gk, relu_grad


@pytest.mark.parametrize("ksize,strides,padding", [(2, 2, "VALID"), (3, 2, "SAME"),
                                                   (3, 1, "VALID")])
def test_relu_grad_of_a_max_pool_gradient_runs_on_the_pooled_side(backend, ksize, strides,
                                                                  padding):
    # Overlapping windows (3 x 3 every 2 or 1) route several pooled gradients to one
    # input, where they sum: the rewrite must keep or drop every term alike.
    x_val = np.random.default_rng(9).standard_normal([2, 8, 8, 4]).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 4])
        gx, gk, relu_grad = _relu_pool_grads(x, ksize, strides, padding)
        chains = _chains([gx, gk])
        assert relu_grad in chains and chains[relu_grad].kernel == "_MaxPoolGradReluGrad"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            fused = sess.run([gx, gk], {x: x_val})
            # Fetching the MaxPoolGrad output as well leaves the pair unfused.
            unfused = sess.run([gx, gk, relu_grad.inputs[0]], {x: x_val})[:2]
        for a, b in zip(fused, unfused):
            np.testing.assert_array_equal(a, b)
        assert np.count_nonzero(fused[0]) > 0


def test_relu_grad_is_not_moved_past_other_pools_or_shared_gradients():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 4])
        h = tf.nn.relu(x)
        avg = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        assert _chains(tf.gradients(tf.reduce_sum(avg), [x])) == {}
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 4])
        _, _, relu_grad = _relu_pool_grads(x, 2, 2, "VALID")
        routed = relu_grad.inputs[0]
        # The routed gradient read by a second op: ReluGrad stays after it.
        assert relu_grad not in _chains([relu_grad.outputs[0], routed * 2.0])


def _clipped_training(make_opt, shape, through_identity=False):
    x = tf.placeholder(tf.float32, [None, shape[0]])
    w = tf.Variable(np.random.default_rng(0).standard_normal(shape).astype(np.float32) / 8)
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
    opt = make_opt()
    grads, variables = zip(*opt.compute_gradients(loss))
    clipped, _ = tf.clip_by_global_norm(list(grads), 1.0)
    if through_identity:
        # TensorFlow's own clip_by_global_norm puts an Identity after each product.
        clipped = [tf.identity(g) for g in clipped]
    train = opt.apply_gradients(zip(clipped, variables))
    return x, w, clipped[0], train


@pytest.mark.parametrize("make_opt", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    lambda: tf.train.AdamOptimizer(0.1)], ids=["sgd", "momentum", "nesterov", "adam"])
@pytest.mark.parametrize("shape", [[600, 500], [30, 20]], ids=["blocked", "whole"])
def test_an_update_of_a_scaled_gradient_gives_the_values_of_the_product(make_opt, shape):
    # 600 x 500 takes the blocked update (each block scaled where it is read), 30 x 20
    # the whole-array one; both must give the float32 values the Mul would have.
    x_val = np.random.default_rng(1).standard_normal([64, shape[0]]).astype(np.float32)
    with tf.Graph().as_default():
        x, w, clipped, train = _clipped_training(make_opt, shape,
                                                 through_identity=shape[0] == 30)
        chains = _chains([], [train])
        scaled = [c for c in chains.values() if c.kernel == "_ApplyScaledGradient"]
        assert [c.update.inputs[0].op for c in scaled] == [w.op]
        runs = []
        for fetches in ([train], [train, clipped]):  # fetching the product: no rewrite
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(fetches, {x: x_val})
                runs.append(sess.run(w))
        np.testing.assert_array_equal(runs[0], runs[1])
        assert not np.array_equal(runs[0], np.random.default_rng(0).standard_normal(
            shape).astype(np.float32) / 8)


def test_an_update_of_a_product_by_a_tensor_or_of_a_checked_product_is_not_rewritten():
    with tf.Graph().as_default():
        w = tf.Variable(np.ones([4, 3], np.float32))
        g = tf.ones([4, 3]) * tf.ones([4, 3])
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(g, w)])
        assert not any(c.kernel == "_ApplyScaledGradient"
                       for c in _chains([], [train]).values())
    with tf.Graph().as_default():
        w = tf.Variable(np.ones([4, 3], np.float32))
        gate = tf.no_op()
        with tf.control_dependencies([gate]):
            g = tf.ones([4, 3]) * tf.constant(0.5)
        train = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(g, w)])
        # A product waiting on a control edge keeps running as written.
        assert not any(c.kernel == "_ApplyScaledGradient"
                       for c in _chains([], [train]).values())

"""oneDNN ReLU and bias-add kernels against the numpy reference: values and gradients
through tf.gradients on random shapes, ``x + b`` either way round, BiasAdd NHWC and
NCHW, and arrays oneDNN hands back to numpy (other dtypes, non-vector operands)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tensorfleet as tf
from tensorfleet.kernels.onednn import bias, eltwise

from tests.kernels.onednn.backend_helpers import (
    assert_close, counting_plan_runs, kernel_in_use, onednn_loads, run_under)

pytestmark = pytest.mark.skipif(not onednn_loads(),
                                reason="oneDNN cannot load on this platform")

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def every_size_through_onednn():
    """Small arrays go through oneDNN too (module-scoped, shared by the examples)."""
    saved = eltwise.MIN_SIZE, bias.MIN_SIZE
    eltwise.MIN_SIZE = bias.MIN_SIZE = 1
    yield
    eltwise.MIN_SIZE, bias.MIN_SIZE = saved


@SETTINGS
@given(shape=st.lists(st.integers(1, 9), min_size=2, max_size=4),
       bias_first=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_relu_of_a_bias_add_values_and_gradients_match_numpy(every_size_through_onednn, shape,
                                                             bias_first, seed):
    rng = np.random.default_rng(seed)
    x_val = rng.standard_normal(shape).astype(np.float32)
    b_val = rng.standard_normal(shape[-1]).astype(np.float32)
    up_val = rng.standard_normal(shape).astype(np.float32)

    def build():
        x = tf.placeholder(tf.float32, shape, name="x")
        b = tf.placeholder(tf.float32, [shape[-1]], name="b")
        h = tf.nn.relu(b + x if bias_first else x + b)
        return [h] + tf.gradients(tf.reduce_sum(h * up_val), [x, b])

    def feeds(g):
        return {g.get_tensor_by_name("x:0"): x_val, g.get_tensor_by_name("b:0"): b_val}

    with counting_plan_runs() as runs:
        got = run_under("onednn", build, feeds)
    # The add, the ReLU and the ReLU's gradient each ran a oneDNN plan.
    assert runs[0] >= 3
    want = run_under("numpy", build, feeds)
    for g, r, what in zip(got, want, ["relu(x + b)", "d/dx", "d/db"]):
        assert g.shape == r.shape and g.dtype == r.dtype
        assert_close(g, r, what)
    assert np.array_equal(got[0], np.maximum(x_val + b_val, 0))


@SETTINGS
@given(n=st.integers(1, 3), c=st.integers(1, 12), h=st.integers(1, 6), w=st.integers(1, 6),
       fmt=st.sampled_from(["NHWC", "NCHW"]), seed=st.integers(0, 2 ** 16))
def test_bias_add_values_and_gradients_match_numpy(every_size_through_onednn, n, c, h, w, fmt,
                                                   seed):
    rng = np.random.default_rng(seed)
    shape = [n, h, w, c] if fmt == "NHWC" else [n, c, h, w]
    x_val = rng.standard_normal(shape).astype(np.float32)
    b_val = rng.standard_normal(c).astype(np.float32)
    up_val = rng.standard_normal(shape).astype(np.float32)

    def build():
        x = tf.placeholder(tf.float32, shape, name="x")
        b = tf.placeholder(tf.float32, [c], name="b")
        y = tf.nn.bias_add(x, b, data_format=fmt)
        return [y] + tf.gradients(tf.reduce_sum(y * up_val), [x, b])

    def feeds(g):
        return {g.get_tensor_by_name("x:0"): x_val, g.get_tensor_by_name("b:0"): b_val}

    with counting_plan_runs() as runs:
        got = run_under("onednn", build, feeds)
    assert runs[0] >= 1
    want = run_under("numpy", build, feeds)
    for g, r, what in zip(got, want, ["bias_add", "d/dx", "d/db"]):
        assert g.shape == r.shape
        assert_close(g, r, what)


def test_what_onednn_does_not_run_goes_to_numpy(every_size_through_onednn):
    # float64, an add of two full arrays and a bias along a non-last axis: all numpy.
    x64 = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 10
    full = np.ones((2, 3, 4), np.float32)
    col = np.arange(3, dtype=np.float32).reshape(3, 1)

    def build():
        return [tf.nn.relu(tf.constant(x64)),
                tf.constant(full) + tf.constant(full),
                tf.constant(full) + tf.constant(col)]

    with counting_plan_runs() as runs:
        got = run_under("onednn", build, lambda g: {})
    assert runs[0] == 0
    np.testing.assert_array_equal(got[0], np.maximum(x64, 0))
    np.testing.assert_array_equal(got[1], full + full)
    np.testing.assert_array_equal(got[2], full + col)


def test_a_bias_of_the_wrong_length_is_refused_as_numpy_refuses_it():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None])
        b = tf.placeholder(tf.float32, [None])
        y = tf.nn.bias_add(x, b)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="as many biases"):
                sess.run(y, {x: np.ones((300, 200), np.float32), b: np.ones(7, np.float32)})


def test_the_onednn_backend_registers_relu_and_bias_kernels():
    for op in ("Relu", "ReluGrad", "BiasAdd", "Add"):
        assert kernel_in_use(op, "onednn") is not kernel_in_use(op, "numpy")

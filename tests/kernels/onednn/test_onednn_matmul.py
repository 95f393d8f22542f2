"""oneDNN MatMul against the numpy reference: values and gradients through
tf.gradients, every transpose combination, products above and below the size where
oneDNN takes over."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tensorfleet as tf
from tensorfleet.kernels.onednn import matmul

from tests.kernels.onednn.backend_helpers import (
    assert_close, bias_and_relu, counting_plan_runs, kernel_in_use, onednn_loads, run_under)

pytestmark = pytest.mark.skipif(not onednn_loads(),
                                reason="oneDNN cannot load on this platform")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 200), k=st.integers(1, 200), n=st.integers(1, 200),
       ta=st.booleans(), tb=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_matmul_values_and_gradients_match_numpy(monkeypatch_free_min_macs, m, k, n, ta, tb,
                                                 seed):
    rng = np.random.default_rng(seed)
    a_val = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b_val = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)

    def build():
        a = tf.placeholder(tf.float32, a_val.shape, name="a")
        b = tf.placeholder(tf.float32, b_val.shape, name="b")
        c = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
        up = tf.constant(np.random.default_rng(seed + 1).standard_normal((m, n)).astype(
            np.float32))
        return [c] + tf.gradients(tf.reduce_sum(c * up), [a, b])

    def feeds(g):
        return {g.get_tensor_by_name("a:0"): a_val, g.get_tensor_by_name("b:0"): b_val}

    with counting_plan_runs() as runs:
        got = run_under("onednn", build, feeds)
    # The product and both gradient products (each a MatMul) ran through oneDNN.
    assert runs[0] == 3
    want = run_under("numpy", build, feeds)
    for g, r, what in zip(got, want, ["matmul", "d/da", "d/db"]):
        assert g.shape == r.shape
        assert_close(g, r, what)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.integers(1, 120), k=st.integers(1, 120), n=st.integers(1, 120),
       ta=st.booleans(), tb=st.booleans(), bias_kind=st.sampled_from(["bias_add", "add", None]),
       relu=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_fused_matmul_bias_relu_matches_the_ops_one_by_one(monkeypatch_free_min_macs, m, k, n,
                                                           ta, tb, bias_kind, relu, seed):
    relu = relu or bias_kind is None
    rng = np.random.default_rng(seed)
    a_val = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b_val = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    bias_val = rng.standard_normal(n).astype(np.float32)

    def build(unfused):
        def graph():
            a = tf.placeholder(tf.float32, a_val.shape, name="a")
            b = tf.placeholder(tf.float32, b_val.shape, name="b")
            product = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
            c = bias_and_relu(product, tf.constant(bias_val), bias_kind, relu)
            up = tf.constant(np.random.default_rng(seed + 1).standard_normal((m, n)).astype(
                np.float32))
            # Fetching the product itself keeps the chain unfused.
            return [c] + tf.gradients(tf.reduce_sum(c * up), [a, b]) + (
                [product] if unfused else [])
        return graph

    def feeds(g):
        return {g.get_tensor_by_name("a:0"): a_val, g.get_tensor_by_name("b:0"): b_val}

    got = run_under("onednn", build(False), feeds)
    want = run_under("numpy", build(True), feeds)
    for g, r, what in zip(got, want, ["fused", "d/da", "d/db"]):
        assert g.shape == r.shape
        assert_close(g, r, what)


@pytest.fixture(scope="module")
def monkeypatch_free_min_macs():
    """Every product goes through oneDNN in the property test (module-scoped, so
    hypothesis's examples share it)."""
    saved = matmul.MIN_MACS
    matmul.MIN_MACS = 1
    yield
    matmul.MIN_MACS = saved


def test_small_products_stay_with_numpy():
    a = np.ones((4, 5), np.float32)
    with counting_plan_runs() as runs:
        got = run_under("onednn", lambda: [tf.matmul(tf.constant(a), tf.constant(a.T))],
                        lambda g: {})
    assert runs[0] == 0
    np.testing.assert_array_equal(got[0], np.full((4, 4), 5, np.float32))


def test_graphs_resolve_to_the_onednn_kernel():
    assert kernel_in_use("MatMul", "onednn") is matmul.matmul
    assert kernel_in_use("_FusedMatMul", "onednn") is matmul.fused_matmul

"""oneDNN pooling kernels against the numpy reference: values and gradients through
tf.gradients on random shapes, windows, strides and paddings, NHWC and NCHW."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tensorfleet as tf
from tensorfleet.kernels.onednn import pool
from tensorfleet.kernels.registry import KernelContext, reference_kernel

from tests.kernels.onednn.backend_helpers import (
    assert_close, counting_plan_runs, kernel_in_use, onednn_loads, run_under)

pytestmark = pytest.mark.skipif(not onednn_loads(),
                                reason="oneDNN cannot load on this platform")

SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def pool_cases(draw):
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return dict(n=draw(st.integers(1, 3)), h=draw(st.integers(kh, 11)),
                w=draw(st.integers(kw, 11)), c=draw(st.integers(1, 20)), k=(kh, kw),
                s=(draw(st.integers(1, 3)), draw(st.integers(1, 3))),
                padding=draw(st.sampled_from(["SAME", "VALID"])),
                fmt=draw(st.sampled_from(["NHWC", "NCHW"])),
                op=draw(st.sampled_from(["max", "avg"])),
                ties=draw(st.booleans()), seed=draw(st.integers(0, 2 ** 16)))


@SETTINGS
@given(pool_cases())
def test_pooling_values_and_gradients_match_numpy(case):
    rng = np.random.default_rng(case["seed"])
    n, h, w, c, fmt = case["n"], case["h"], case["w"], case["c"], case["fmt"]
    shape = (n, h, w, c) if fmt == "NHWC" else (n, c, h, w)
    if case["ties"]:
        # Few distinct values: windows with tied maxima, whose gradient goes to the first.
        x_val = rng.integers(0, 3, shape).astype(np.float32)
    else:
        x_val = rng.standard_normal(shape).astype(np.float32)
    (kh, kw), (sh, sw) = case["k"], case["s"]
    ksize = [1, kh, kw, 1] if fmt == "NHWC" else [1, 1, kh, kw]
    strides = [1, sh, sw, 1] if fmt == "NHWC" else [1, 1, sh, sw]
    fn = tf.nn.max_pool if case["op"] == "max" else tf.nn.avg_pool

    def build():
        x = tf.placeholder(tf.float32, shape, name="x")
        y = fn(x, ksize, strides, case["padding"], data_format=fmt)
        up = tf.constant(np.random.default_rng(case["seed"] + 1).standard_normal(
            [int(d) for d in y.shape]).astype(np.float32))
        return [y, tf.gradients(tf.reduce_sum(y * up), x)[0]]

    def feeds(g):
        return {g.get_tensor_by_name("x:0"): x_val}

    with counting_plan_runs() as runs:
        got = run_under("onednn", build, feeds)
    assert runs[0] == 2  # the pooling and its gradient ran through oneDNN
    want = run_under("numpy", build, feeds)
    for g, r, what in zip(got, want, ["pool", "gradient"]):
        assert g.shape == r.shape
        assert_close(g, r, f"{what} {case}")


def test_graphs_resolve_to_the_onednn_kernels():
    assert kernel_in_use("MaxPool", "onednn") is pool.max_pool
    assert kernel_in_use("MaxPoolGrad", "onednn") is pool.max_pool_grad
    assert kernel_in_use("AvgPool", "onednn") is pool.avg_pool
    assert kernel_in_use("AvgPoolGrad", "onednn") is pool.avg_pool_grad


def test_integer_max_pool_runs_the_reference_kernel():
    x = np.arange(32, dtype=np.int32).reshape(1, 4, 4, 2)
    ctx = KernelContext("p", "MaxPool", {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                                         "padding": "VALID"}, None, {})
    y = pool.max_pool(ctx, x)
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, reference_kernel("MaxPool")(ctx, x))


def test_nchw_attribute_runs_in_place():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 5, 7, 6)).astype(np.float32)  # N, C, H, W
    nchw = KernelContext("p", "MaxPool", {"ksize": [1, 1, 3, 2], "strides": [1, 1, 2, 1],
                                          "padding": "SAME", "data_format": "NCHW"}, None, {})
    nhwc = KernelContext("p", "MaxPool", {"ksize": [1, 3, 2, 1], "strides": [1, 2, 1, 1],
                                          "padding": "SAME", "data_format": "NHWC"}, None, {})
    xt = x.transpose(0, 2, 3, 1)
    for mine, ref in [(pool.max_pool, "MaxPool"), (pool.avg_pool, "AvgPool")]:
        want = reference_kernel(ref)(nhwc, xt).transpose(0, 3, 1, 2)
        assert_close(mine(nchw, x), want, ref)


def test_max_pool_grad_takes_the_forward_workspace_only_for_the_forward_output():
    rng = np.random.default_rng(9)
    x = rng.integers(0, 3, (2, 6, 6, 3)).astype(np.float32)  # tied maxima
    dy = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    attrs = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME",
             "data_format": "NHWC"}
    fctx = KernelContext("p", "MaxPool", attrs, None, {}, "/cpu:0", None)
    gctx = KernelContext("g", "MaxPoolGrad", attrs, None, {}, "/cpu:0", None)
    y = pool.max_pool(fctx, x)
    assert pool._workspace_of(y, "NHWC", pool._geometry(fctx, x.shape)[1]) is not None
    # The forward's own output: its workspace; a copy: the forward run again.
    from_workspace = pool.max_pool_grad(gctx, x, y, dy)
    recomputed = pool.max_pool_grad(gctx, x, y.copy(), dy)
    want = reference_kernel("MaxPoolGrad")(gctx, x, y, dy)
    np.testing.assert_array_equal(from_workspace, want)
    np.testing.assert_array_equal(recomputed, want)
    key = id(y)
    del y
    assert key not in pool._workspaces

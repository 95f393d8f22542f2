"""oneDNN convolution kernels against the numpy reference: values and gradients
through tf.gradients on random shapes, strides, paddings and dilations, NHWC and NCHW."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tensorfleet as tf
from tensorfleet.kernels.onednn import conv, plan
from tensorfleet.kernels.registry import KernelContext, reference_kernel

from tests.kernels.onednn.backend_helpers import (
    assert_close, bias_and_relu, counting_plan_runs, kernel_in_use, onednn_loads, run_under)

pytestmark = pytest.mark.skipif(not onednn_loads(),
                                reason="oneDNN cannot load on this platform")

SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def conv_cases(draw):
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    # TensorFlow's CPU convolution takes dilations only with unit strides.
    if sh == sw == 1:
        dh, dw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    else:
        dh = dw = 1
    h = draw(st.integers((kh - 1) * dh + 1, 12))
    w = draw(st.integers((kw - 1) * dw + 1, 12))
    return dict(n=draw(st.integers(1, 3)), h=h, w=w, c=draw(st.integers(1, 6)),
                o=draw(st.integers(1, 7)), k=(kh, kw), s=(sh, sw), d=(dh, dw),
                padding=padding, fmt=draw(st.sampled_from(["NHWC", "NCHW"])),
                seed=draw(st.integers(0, 2 ** 16)))


def _conv_graph(case):
    rng = np.random.default_rng(case["seed"])
    n, h, w, c, o = case["n"], case["h"], case["w"], case["c"], case["o"]
    fmt = case["fmt"]
    shape = (n, h, w, c) if fmt == "NHWC" else (n, c, h, w)
    x_val = rng.standard_normal(shape).astype(np.float32)
    w_val = rng.standard_normal(case["k"] + (c, o)).astype(np.float32)
    (sh, sw), (dh, dw) = case["s"], case["d"]
    strides = [1, sh, sw, 1] if fmt == "NHWC" else [1, 1, sh, sw]
    dil = [1, dh, dw, 1] if fmt == "NHWC" else [1, 1, dh, dw]

    def build():
        x = tf.placeholder(tf.float32, shape, name="x")
        k = tf.placeholder(tf.float32, w_val.shape, name="k")
        y = tf.nn.conv2d(x, k, strides=strides, padding=case["padding"], data_format=fmt,
                         dilations=dil)
        # A random upstream gradient, so every output position weighs differently.
        up = tf.constant(np.random.default_rng(case["seed"] + 1).standard_normal(
            [int(d) for d in y.shape]).astype(np.float32))
        dx, dk = tf.gradients(tf.reduce_sum(y * up), [x, k])
        return [y, dx, dk]

    def feeds(g):
        return {g.get_tensor_by_name("x:0"): x_val, g.get_tensor_by_name("k:0"): w_val}

    return build, feeds


@SETTINGS
@given(conv_cases())
def test_conv2d_values_and_gradients_match_numpy(case):
    build, feeds = _conv_graph(case)
    with counting_plan_runs() as runs:
        got = run_under("onednn", build, feeds)
    # The values came from oneDNN (forward, input and filter gradients), not the fallback.
    assert runs[0] == 3
    with counting_plan_runs() as runs:
        want = run_under("numpy", build, feeds)
    assert runs[0] == 0
    for g, r, what in zip(got, want, ["conv2d", "d/dinput", "d/dfilter"]):
        assert g.shape == r.shape, what
        assert_close(g, r, f"{what} {case}")


@SETTINGS
@given(conv_cases(), st.sampled_from(["bias_add", "add", None]), st.booleans())
def test_fused_conv_bias_relu_matches_the_ops_one_by_one(case, bias_kind, relu):
    case = dict(case, fmt="NHWC")
    if bias_kind is None and not relu:
        relu = True
    build_conv, feeds = _conv_graph(case)
    b_val = np.random.default_rng(case["seed"] + 2).standard_normal(case["o"]).astype(
        np.float32)

    def build(unfused):
        def graph():
            y, _, _ = build_conv()
            x, k = (tf.get_default_graph().get_tensor_by_name(n) for n in ("x:0", "k:0"))
            conv_out = y.op.outputs[0]
            z = bias_and_relu(conv_out, tf.constant(b_val), bias_kind, relu)
            up = tf.constant(np.random.default_rng(case["seed"] + 3).standard_normal(
                [int(d) for d in z.shape]).astype(np.float32))
            grads = tf.gradients(tf.reduce_sum(z * up), [x, k])
            # Fetching the conv's own output keeps the chain unfused.
            return [z] + grads + ([conv_out] if unfused else [])
        return graph

    with counting_plan_runs() as runs:
        got = run_under("onednn", build(False), feeds)
    assert runs[0] >= 3
    want = run_under("numpy", build(True), feeds)
    for g, r, what in zip(got, want, ["fused", "d/dinput", "d/dfilter"]):
        assert g.shape == r.shape, what
        assert_close(g, r, f"{what} {bias_kind} relu={relu} {case}")


def test_graphs_resolve_to_the_onednn_kernels():
    assert kernel_in_use("Conv2D", "onednn") is conv.conv2d
    assert kernel_in_use("_FusedConv2D", "onednn") is conv.fused_conv2d
    assert kernel_in_use("Conv2DBackpropInput", "onednn") is conv.conv2d_backprop_input
    assert kernel_in_use("Conv2DBackpropFilter", "onednn") is conv.conv2d_backprop_filter
    assert kernel_in_use("Conv2D", "numpy") is reference_kernel("Conv2D")


@SETTINGS
@given(conv_cases())
def test_nchw_attribute_runs_in_place(case):
    """A Conv2D whose data_format attribute is NCHW (as in an imported GraphDef) runs
    in that layout: it equals the NHWC reference on transposed data."""
    rng = np.random.default_rng(case["seed"])
    n, h, w, c, o = case["n"], case["h"], case["w"], case["c"], case["o"]
    (sh, sw), (dh, dw) = case["s"], case["d"]
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    k = rng.standard_normal(case["k"] + (c, o)).astype(np.float32)
    nchw = KernelContext("c", "Conv2D", {"strides": [1, 1, sh, sw], "dilations": [1, 1, dh, dw],
                                         "padding": case["padding"], "data_format": "NCHW"},
                         None, {})
    nhwc = KernelContext("c", "Conv2D", {"strides": [1, sh, sw, 1], "dilations": [1, dh, dw, 1],
                                         "padding": case["padding"], "data_format": "NHWC"},
                         None, {})
    y = conv.conv2d(nchw, x, k)
    want = reference_kernel("Conv2D")(nhwc, x.transpose(0, 2, 3, 1), k)
    assert_close(y, want.transpose(0, 3, 1, 2), "NCHW forward")
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy_nhwc = dy.transpose(0, 2, 3, 1)
    dx = conv.conv2d_backprop_input(nchw, np.array(x.shape), k, dy)
    want = reference_kernel("Conv2DBackpropInput")(nhwc, np.array([n, h, w, c]), k, dy_nhwc)
    assert_close(dx, want.transpose(0, 3, 1, 2), "NCHW input gradient")
    dk = conv.conv2d_backprop_filter(nchw, x, np.array(k.shape), dy)
    want = reference_kernel("Conv2DBackpropFilter")(nhwc, x.transpose(0, 2, 3, 1),
                                                    np.array(k.shape), dy_nhwc)
    assert_close(dk, want, "NCHW filter gradient")


def test_float64_runs_the_reference_kernel():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 6, 3))
    k = rng.standard_normal((3, 3, 3, 4))
    ctx = KernelContext("c", "Conv2D", {"strides": [1, 1, 1, 1], "padding": "SAME"}, None, {})
    y = conv.conv2d(ctx, x, k)
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, reference_kernel("Conv2D")(ctx, x, k))


def test_mismatched_channels_raise_the_reference_error():
    ctx = KernelContext("c", "Conv2D", {"strides": [1, 1, 1, 1], "padding": "SAME"}, None, {})
    with pytest.raises(tf.errors.InvalidArgumentError, match="in_depth"):
        conv.conv2d(ctx, np.zeros((1, 4, 4, 3), np.float32), np.zeros((3, 3, 2, 4), np.float32))


def test_plans_are_built_once_per_shape():
    rng = np.random.default_rng(5)
    ctx = KernelContext("c", "Conv2D", {"strides": [1, 2, 2, 1], "padding": "SAME"}, None, {})
    x = rng.standard_normal((2, 9, 7, 3)).astype(np.float32)
    k = rng.standard_normal((3, 3, 3, 5)).astype(np.float32)
    conv.conv2d(ctx, x, k)
    built = plan.cache_info()
    for _ in range(3):
        conv.conv2d(ctx, x, k)
    assert plan.cache_info() == built

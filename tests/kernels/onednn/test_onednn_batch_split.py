"""oneDNN convolutions run over slices of their batch: equal to the numpy reference
when the batch does not divide evenly (a shorter last slice), with one worker (the
whole-batch plan) and with several; the kernels that are not sliced (pooling, ReLU)
beside them; the slicing itself."""

from __future__ import annotations

import contextlib
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tensorfleet.kernels.onednn import batch_split, conv, eltwise, pool, threads
from tensorfleet.kernels.registry import KernelContext, reference_kernel

from tests.kernels.onednn.backend_helpers import assert_close, onednn_loads


@contextlib.contextmanager
def counting_slices():
    """Counts the kernel calls run over batch slices inside the block."""
    count = [0]
    real = batch_split.run

    def run(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    with mock.patch.object(batch_split, "run", run):
        yield count

pytestmark = pytest.mark.skipif(not onednn_loads(),
                                reason="oneDNN cannot load on this platform")


@pytest.fixture(params=[1, 2, 3])
def workers(request):
    """The worker count, with every convolution worth slicing however small."""
    saved = threads._workers, conv.MIN_SLICE_MACS
    threads.set_workers(request.param)
    conv.MIN_SLICE_MACS = 1
    yield request.param
    threads._workers, conv.MIN_SLICE_MACS = saved


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.integers(1, 200), least=st.integers(1, 30), n=st.integers(1, 4))
def test_slices_cover_the_batch_once(batch, least, n):
    saved = threads._workers
    threads.set_workers(n)
    try:
        count, size = batch_split.layout(batch, least)
    finally:
        threads._workers = saved
    assert count >= 1 and size >= 1
    assert (count - 1) * size < batch <= count * size
    if count > 1:
        assert n > 1 and size >= least and count <= n * batch_split.SLICES_PER_THREAD


def test_conv_and_pool_on_a_batch_that_does_not_divide_evenly(workers):
    rng = np.random.default_rng(workers)
    x = rng.standard_normal((9, 7, 6, 3)).astype(np.float32)
    k = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    ctx = KernelContext("c", "Conv2D", {"strides": [1, 2, 1, 1], "padding": "SAME"}, None, {})
    with counting_slices() as sliced:
        y = conv.conv2d(ctx, x, k)
    assert sliced[0] == (1 if workers > 1 else 0)
    assert_close(y, reference_kernel("Conv2D")(ctx, x, k), "forward")
    dy = rng.standard_normal(y.shape).astype(np.float32)
    assert_close(conv.conv2d_backprop_input(ctx, np.array(x.shape), k, dy),
                 reference_kernel("Conv2DBackpropInput")(ctx, np.array(x.shape), k, dy),
                 "input gradient")
    assert_close(conv.conv2d_backprop_filter(ctx, x, np.array(k.shape), dy),
                 reference_kernel("Conv2DBackpropFilter")(ctx, x, np.array(k.shape), dy),
                 "filter gradient")
    pctx = KernelContext("p", "MaxPool", {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                                          "padding": "VALID"}, None, {})
    py = pool.max_pool(pctx, x)
    np.testing.assert_array_equal(py, reference_kernel("MaxPool")(pctx, x))
    pdy = rng.standard_normal(py.shape).astype(np.float32)
    assert_close(pool.max_pool_grad(pctx, x, py, pdy),
                 reference_kernel("MaxPoolGrad")(pctx, x, py, pdy), "max-pool gradient")


def test_small_convolutions_run_whole():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 8, 8, 1)).astype(np.float32)
    k = rng.standard_normal((3, 3, 1, 4)).astype(np.float32)
    ctx = KernelContext("c", "Conv2D", {"strides": [1, 1, 1, 1], "padding": "SAME"}, None, {})
    saved = threads._workers
    threads.set_workers(2)
    try:
        with counting_slices() as sliced:
            y = conv.conv2d(ctx, x, k)
    finally:
        threads._workers = saved
    assert sliced[0] == 0
    assert_close(y, reference_kernel("Conv2D")(ctx, x, k), "forward")


def test_relu_gradient_with_any_worker_count(workers):
    saved = eltwise.MIN_SIZE
    eltwise.MIN_SIZE = 7
    try:
        rng = np.random.default_rng(3)
        y = np.maximum(rng.standard_normal(101), 0).astype(np.float32)
        dy = rng.standard_normal(101).astype(np.float32)
        ctx = KernelContext("r", "ReluGrad", {}, None, {})
        np.testing.assert_array_equal(eltwise.relu_grad(ctx, dy, y), dy * (y > 0))
    finally:
        eltwise.MIN_SIZE = saved

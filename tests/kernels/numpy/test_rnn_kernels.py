"""The whole-sequence LSTM kernels with the batch cut into slices on several threads:
values and gradients equal those of the whole batch on one thread, through the
registered kernels too, and the slice count follows the batch, the units and the
threads."""

from __future__ import annotations

import numpy as np
import pytest

from tensorfleet.kernels.numpy import parallel_tasks, rnn_kernels, scratch_arrays
from tensorfleet.kernels.onednn import threads


class _Ctx:
    op_name = "lstm"

    def __init__(self, forget_bias=1.0):
        self.attrs = {"forget_bias": forget_bias}
        self.state = {}


def _problem(dtype, steps=6, batch=11, n_in=5, units=7, seed=3):
    rng = np.random.default_rng(seed)

    def r(*shape):
        return rng.uniform(-0.8, 0.8, shape).astype(dtype)
    fwd = (r(steps, batch, n_in), r(batch, units), r(batch, units),
           r(n_in + units, 4 * units), r(4 * units))
    grads = (r(steps, batch, units), r(steps, batch, units), r(batch, units),
             r(batch, units))
    return fwd, grads, units


@pytest.fixture
def two_threads(monkeypatch):
    monkeypatch.setattr(threads, "workers", lambda: 2)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-13), (np.float32, 1e-6)])
@pytest.mark.parametrize("pieces", [2, 3, 11])
@pytest.mark.parametrize("c_used", [True, False])
def test_slices_equal_the_whole_batch(two_threads, dtype, tol, pieces, c_used):
    (x, c0, h0, w, b), (dh, dc, dcl, dhl), units = _problem(dtype)
    if not c_used:  # no gradient reaches every step's c: the loop skips adding it
        dc = np.zeros_like(dc)
    whole = rnn_kernels._lstm_sequence(_Ctx(0.7), x, c0, h0, w, b, units, 1)
    cut = rnn_kernels._lstm_sequence(_Ctx(0.7), x, c0, h0, w, b, units, pieces)
    for want, got in zip(whole, cut):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    g_whole = rnn_kernels._lstm_sequence_grad(x, c0, h0, w, b, *whole[:3], dh, dc, dcl,
                                              dhl, units, 1)
    g_cut = rnn_kernels._lstm_sequence_grad(x, c0, h0, w, b, *whole[:3], dh, dc, dcl,
                                            dhl, units, pieces)
    for want, got in zip(g_whole, g_cut):
        assert got.shape == want.shape and got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_registered_kernels_take_the_slices(two_threads, monkeypatch):
    (x, c0, h0, w, b), (dh, dc, dcl, dhl), units = _problem(np.float64, batch=16)
    whole = rnn_kernels._lstm_sequence(_Ctx(), x, c0, h0, w, b, units, 1)
    g_whole = rnn_kernels._lstm_sequence_grad(x, c0, h0, w, b, *whole[:3], dh, dc, dcl,
                                              dhl, units, 1)
    monkeypatch.setattr(rnn_kernels, "MIN_SLICE_ROWS", 2)
    monkeypatch.setattr(rnn_kernels, "MIN_SLICE_MACS", 1)
    assert rnn_kernels._slice_count(16, units) == 2 * rnn_kernels.SLICES_PER_THREAD
    sliced = []
    real_run = parallel_tasks.run
    monkeypatch.setattr(parallel_tasks, "run",
                        lambda tasks: (sliced.append(len(tasks)), real_run(tasks)))
    got = rnn_kernels._fused_lstm_sequence(_Ctx(), x, c0, h0, w, b)
    g_got = rnn_kernels._fused_lstm_sequence_grad(_Ctx(), x, c0, h0, w, b, *got[:3], dh,
                                                  dc, dcl, dhl)
    assert sliced and sliced[0] == 2 * rnn_kernels.SLICES_PER_THREAD
    for want, have in zip(whole + g_whole, got + g_got):
        np.testing.assert_allclose(have, want, rtol=1e-13, atol=1e-13)
    # The backward pass gives its work arrays back for the next call.
    assert scratch_arrays.held_bytes() > 0


def test_slice_count(monkeypatch):
    monkeypatch.setattr(threads, "workers", lambda: 2)
    assert rnn_kernels._slice_count(128, 128) == 2 * rnn_kernels.SLICES_PER_THREAD
    assert rnn_kernels._slice_count(4, 128) == 1        # too few rows
    assert rnn_kernels._slice_count(64, 8) == 1         # too little work per slice
    monkeypatch.setattr(threads, "workers", lambda: 1)
    assert rnn_kernels._slice_count(128, 128) == 1


def test_zero_steps(two_threads):
    (x, c0, h0, w, b), _, units = _problem(np.float32, steps=0, batch=16)
    h_seq, c_seq, gates, c_last, h_last = rnn_kernels._lstm_sequence(
        _Ctx(), x, c0, h0, w, b, units, 3)
    assert h_seq.shape == (0, 16, units) and gates.shape == (0, 16, 4 * units)
    np.testing.assert_array_equal(c_last, c0)
    np.testing.assert_array_equal(h_last, h0)

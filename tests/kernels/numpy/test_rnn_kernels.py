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
    monkeypatch.setattr(threads, "limit", lambda: 2)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-5)])
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
    if not c_used:  # None stands for the zeros, as the op's empty input does
        g_none = rnn_kernels._lstm_sequence_grad(x, c0, h0, w, b, *whole[:3], dh, None,
                                                 dcl, dhl, units, pieces)
        for want, got in zip(g_cut, g_none):
            np.testing.assert_array_equal(got, want)


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
    monkeypatch.setattr(threads, "limit", lambda: 2)
    assert rnn_kernels._slice_count(128, 128) == 2 * rnn_kernels.SLICES_PER_THREAD
    assert rnn_kernels._slice_count(4, 128) == 1        # too few rows
    assert rnn_kernels._slice_count(64, 8) == 1         # too little work per slice
    monkeypatch.setattr(threads, "limit", lambda: 1)
    assert rnn_kernels._slice_count(128, 128) == 1


def test_zero_steps(two_threads):
    (x, c0, h0, w, b), _, units = _problem(np.float32, steps=0, batch=16)
    h_seq, c_seq, gates, c_last, h_last = rnn_kernels._lstm_sequence(
        _Ctx(), x, c0, h0, w, b, units, 3)
    assert h_seq.shape == (0, 16, units) and gates.shape == (0, 16, 4 * units)
    np.testing.assert_array_equal(c_last, c0)
    np.testing.assert_array_equal(h_last, h0)


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def _reference_grad(x, c0, h0, w, b, forget_bias, dh_seq, dc_seq, dc_last, dh_last):
    """Backpropagation through every step, written out plainly."""
    steps, n = x.shape[0], c0.shape[1]
    cs, hs, zs = [c0], [h0], []
    for t in range(steps):
        z = np.concatenate([x[t], hs[-1]], 1) @ w + b
        zs.append(z)
        i, j, f, o = np.split(z, 4, 1)
        cs.append(_sig(f + forget_bias) * cs[-1] + _sig(i) * np.tanh(j))
        hs.append(_sig(o) * np.tanh(cs[-1]))
    dw, db = np.zeros_like(w), np.zeros_like(b)
    dx = np.zeros_like(x)
    dh, dc = dh_last + dh_seq[-1], dc_last + dc_seq[-1]
    for t in range(steps - 1, -1, -1):
        i, j, f, o = np.split(zs[t], 4, 1)
        si, tj, sf, so = _sig(i), np.tanh(j), _sig(f + forget_bias), _sig(o)
        tc = np.tanh(cs[t + 1])
        dct = dh * so * (1 - tc ** 2) + dc
        dz = np.concatenate([dct * tj * si * (1 - si), dct * si * (1 - tj ** 2),
                             dct * cs[t] * sf * (1 - sf), dh * tc * so * (1 - so)], 1)
        xh = np.concatenate([x[t], hs[t]], 1)
        dw += xh.T @ dz
        db += dz.sum(0)
        dxh = dz @ w.T
        dx[t] = dxh[:, :x.shape[2]]
        dh, dc = dxh[:, x.shape[2]:], dct * sf
        if t:
            dh, dc = dh + dh_seq[t - 1], dc + dc_seq[t - 1]
    return dx, dc, dh, dw, db


@pytest.mark.parametrize("live", [[0], [0, 3], [5], []])
@pytest.mark.parametrize("pieces", [1, 3])
def test_gradient_reaching_leading_steps_only(two_threads, live, pieces):
    """Steps after the last one a gradient reaches are skipped: the result is still that
    of backpropagating through every step."""
    (x, c0, h0, w, b), (dh, dc, _, _), units = _problem(np.float64)
    zero = np.zeros_like(c0)
    dh_seq = np.zeros_like(dh)
    for t in live:
        dh_seq[t] = dh[t]
    dc_seq = np.zeros_like(dc)
    fwd = rnn_kernels._lstm_sequence(_Ctx(0.7), x, c0, h0, w, b, units, 1)
    got = rnn_kernels._lstm_sequence_grad(x, c0, h0, w, b, *fwd[:3], dh_seq, dc_seq, zero,
                                          zero, units, pieces)
    want = _reference_grad(x, c0, h0, w, b, 0.7, dh_seq, dc_seq, zero, zero)
    assert rnn_kernels._active_steps(dh_seq, dc_seq, zero, zero) == (max(live) + 1
                                                                     if live else 0)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)

"""numpy kernels of the recurrent ops: the fused LSTM step, a fused LSTM layer over a whole
sequence, and their backward ops.

The forward step keeps the activated gates (i, j, f, o) as an output, so the
backward step needs no second matmul to recover them. The sigmoid is computed
as ``0.5 * tanh(0.5 * z) + 0.5``: one transcendental pass, and it never
overflows for large ``|z|`` as ``1 / (1 + exp(-z))`` does in float32.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy import blas_threads
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _sigmoid_inplace(z: np.ndarray) -> None:
    z *= 0.5
    np.tanh(z, out=z)
    z *= 0.5
    z += 0.5


def _check_lstm_shapes(ctx: KernelContext, x: np.ndarray, c: np.ndarray, h: np.ndarray,
                       w: np.ndarray) -> int:
    if x.ndim != 2 or c.ndim != 2 or h.ndim != 2 or w.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: inputs, states and kernel must be matrices, got "
                        f"shapes {x.shape}, {c.shape}, {h.shape}, {w.shape}")
    units = c.shape[1]
    if (h.shape != c.shape or x.shape[0] != c.shape[0]
            or w.shape != (x.shape[1] + units, 4 * units)):
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: shapes do not fit an LSTM step: inputs {x.shape}, "
                        f"c {c.shape}, h {h.shape}, kernel {w.shape} (expected kernel "
                        f"[{x.shape[1]} + {units}, {4 * units}])")
    return units


@register_kernel("FusedLSTMCell")
def _fused_lstm_cell(ctx: KernelContext, x: Any, c_prev: Any, h_prev: Any, w: Any,
                     b: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    units = _check_lstm_shapes(ctx, x, c_prev, h_prev, w)
    n_in = x.shape[1]
    # Per-step inputs are often strided views (a time slice of [batch, time, depth]);
    # BLAS needs contiguous operands, and numpy's fallback matmul is 10x slower.
    x, h_prev = np.ascontiguousarray(x), np.ascontiguousarray(h_prev)
    # Two matmuls against the kernel's row blocks save building concat([x, h]).
    z = x @ w[:n_in]
    z += h_prev @ w[n_in:]
    z += b
    j = np.tanh(z[:, units:2 * units])
    fb = ctx.attrs["forget_bias"]
    if fb:
        z[:, 2 * units:3 * units] += fb
    _sigmoid_inplace(z)
    z[:, units:2 * units] = j
    i, f, o = z[:, :units], z[:, 2 * units:3 * units], z[:, 3 * units:]
    c = f * c_prev
    c += i * j
    h = np.tanh(c)
    h *= o
    return c, h, z


@register_kernel("FusedLSTMCellGrad")
def _fused_lstm_cell_grad(ctx: KernelContext, x: Any, c_prev: Any, h_prev: Any, w: Any,
                          gates: Any, c: Any, dc: Any, dh: Any) -> Tuple[np.ndarray, ...]:
    units = _check_lstm_shapes(ctx, x, c_prev, h_prev, w)
    n_in = x.shape[1]
    x, h_prev = np.ascontiguousarray(x), np.ascontiguousarray(h_prev)
    i, j = gates[:, :units], gates[:, units:2 * units]
    f, o = gates[:, 2 * units:3 * units], gates[:, 3 * units:]
    tc = np.tanh(c)
    # Gradient reaching c: directly, and through h = o * tanh(c).
    dct = dh * o
    dct *= 1 - tc * tc
    dct += dc
    dz = np.empty_like(gates)
    # Each block is (gradient of the activated gate) * (derivative of its activation).
    np.multiply(dct * j, i * (1 - i), out=dz[:, :units])
    np.multiply(dct * i, 1 - j * j, out=dz[:, units:2 * units])
    np.multiply(dct * c_prev, f * (1 - f), out=dz[:, 2 * units:3 * units])
    np.multiply(dh * tc, o * (1 - o), out=dz[:, 3 * units:])
    dc_prev = dct * f
    # w @ dz.T runs BLAS on the kernel's own row-major layout; dz @ w.T would make
    # it walk the kernel transposed, which is over 1.5x slower at these sizes.
    dxh_t = w @ dz.T
    dx, dh_prev = dxh_t[:n_in].T, dxh_t[n_in:].T
    dw = np.empty_like(w)
    np.matmul(x.T, dz, out=dw[:n_in])
    np.matmul(h_prev.T, dz, out=dw[n_in:])
    db = dz.sum(axis=0)
    return dx, dc_prev, dh_prev, dw, db


# -- a whole layer over a sequence -----------------------------------------------------------

def _check_sequence_shapes(ctx: KernelContext, x: np.ndarray, c0: np.ndarray, h0: np.ndarray,
                           w: np.ndarray, b: np.ndarray) -> int:
    if x.ndim != 3:
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: inputs must be [time, batch, depth], got shape "
                        f"{x.shape}")
    step = x[0] if x.shape[0] else np.empty(x.shape[1:], x.dtype)
    units = _check_lstm_shapes(ctx, step, c0, h0, w)
    if b.shape != (4 * units,):
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: bias has shape {b.shape}, expected ({4 * units},)")
    return units


def _gate_affine(ctx: KernelContext, units: int, dtype: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Per-column scale and offset that turn one ``tanh`` over all four gate blocks into
    sigmoid(i), tanh(j), sigmoid(f), sigmoid(o): ``s * tanh(s * z) + off``."""
    key = ("affine", units, np.dtype(dtype).str)
    got = ctx.state.get(key)
    if got is None:
        scale = np.full(4 * units, 0.5, dtype)
        scale[units:2 * units] = 1.0
        offset = np.full(4 * units, 0.5, dtype)
        offset[units:2 * units] = 0.0
        got = ctx.state[key] = (scale, offset)
    return got


@register_kernel("FusedLSTMSequence")
def _fused_lstm_sequence(ctx: KernelContext, x: Any, c0: Any, h0: Any, w: Any,
                         b: Any) -> Tuple[np.ndarray, ...]:
    units = _check_sequence_shapes(ctx, x, c0, h0, w, b)
    # One small product per step: see blas_threads.
    with blas_threads.one_thread():
        return _lstm_sequence(ctx, x, c0, h0, w, b, units)


def _lstm_sequence(ctx: KernelContext, x: np.ndarray, c0: np.ndarray, h0: np.ndarray,
                   w: np.ndarray, b: np.ndarray, units: int) -> Tuple[np.ndarray, ...]:
    steps, batch, n_in = x.shape
    dt = x.dtype
    wh = w[n_in:]
    gates = np.empty((steps, batch, 4 * units), dt)
    c_seq = np.empty((steps, batch, units), dt)
    h_seq = np.empty((steps, batch, units), dt)
    # The input part of every step's gate pre-activations in one matmul, bias included
    # (with the forget bias folded into the f block), so the loop only adds h @ w_h.
    flat_z = gates.reshape(steps * batch, 4 * units)
    np.matmul(np.ascontiguousarray(x).reshape(steps * batch, n_in), w[:n_in], out=flat_z)
    bias = np.array(b, dtype=dt)
    bias[2 * units:3 * units] += ctx.attrs["forget_bias"]
    flat_z += bias
    scale, offset = _gate_affine(ctx, units, dt)
    rec = np.empty((batch, 4 * units), dt)
    ij = np.empty((batch, units), dt)
    c_prev, h_prev = c0, np.ascontiguousarray(h0)
    for t in range(steps):
        z = gates[t]
        np.matmul(h_prev, wh, out=rec)
        z += rec
        z *= scale
        np.tanh(z, out=z)
        z *= scale
        z += offset
        c, h = c_seq[t], h_seq[t]
        np.multiply(z[:, 2 * units:3 * units], c_prev, out=c)
        np.multiply(z[:, :units], z[:, units:2 * units], out=ij)
        c += ij
        np.tanh(c, out=h)
        h *= z[:, 3 * units:]
        c_prev, h_prev = c, h
    return h_seq, c_seq, gates, np.array(c_prev, dtype=dt), np.array(h_prev, dtype=dt)


def _backward_factors(gates: np.ndarray, c_seq: np.ndarray, c0: np.ndarray,
                      units: int) -> Tuple[np.ndarray, np.ndarray]:
    """The parts of the gate gradients that do not depend on the incoming gradient, for
    every step at once: ``dz = dct * p`` for i, j, f and ``dz = dh * p`` for o, and
    ``dct = dh * a + dc``."""
    n = units
    i, j, o = gates[..., :n], gates[..., n:2 * n], gates[..., 3 * n:]
    tc = np.tanh(c_seq)
    p = np.empty_like(gates)
    # The activations' derivatives: g * (1 - g) for a sigmoid, 1 - g * g for tanh.
    np.subtract(1, gates, out=p)
    p *= gates
    np.multiply(j, j, out=p[..., n:2 * n])
    np.subtract(1, p[..., n:2 * n], out=p[..., n:2 * n])
    p[..., :n] *= j
    p[..., n:2 * n] *= i
    p[0, :, 2 * n:3 * n] *= c0
    p[1:, :, 2 * n:3 * n] *= c_seq[:-1]
    p[..., 3 * n:] *= tc
    a = np.multiply(tc, tc)
    np.subtract(1, a, out=a)
    a *= o
    return p, a


@register_kernel("FusedLSTMSequenceGrad")
def _fused_lstm_sequence_grad(ctx: KernelContext, x: Any, c0: Any, h0: Any, w: Any,
                              b: Any, h_seq: Any, c_seq: Any, gates: Any, dh_seq: Any,
                              dc_seq: Any, dc_last: Any, dh_last: Any
                              ) -> Tuple[np.ndarray, ...]:
    units = _check_sequence_shapes(ctx, x, c0, h0, w, b)
    with blas_threads.one_thread():
        return _lstm_sequence_grad(x, c0, h0, w, b, h_seq, c_seq, gates, dh_seq, dc_seq,
                                   dc_last, dh_last, units)


def _lstm_sequence_grad(x: np.ndarray, c0: np.ndarray, h0: np.ndarray, w: np.ndarray,
                        b: np.ndarray, h_seq: np.ndarray, c_seq: np.ndarray,
                        gates: np.ndarray, dh_seq: np.ndarray, dc_seq: np.ndarray,
                        dc_last: np.ndarray, dh_last: np.ndarray, units: int
                        ) -> Tuple[np.ndarray, ...]:
    steps, batch, n_in = x.shape
    n, dt = units, x.dtype
    wh = w[n_in:]
    if steps == 0:
        return (np.zeros_like(x), np.array(dc_last, dtype=dt), np.array(dh_last, dtype=dt),
                np.zeros_like(w), np.zeros_like(b))
    dw = np.empty_like(w)
    p, a = _backward_factors(gates, c_seq, c0, units)
    dz = np.empty_like(gates)
    dh = np.add(dh_seq[-1], dh_last, dtype=dt)
    dc = np.add(dc_seq[-1], dc_last, dtype=dt)
    dct = np.empty((batch, n), dt)
    # The recurrent gradient is computed transposed, w_h @ dz.T, into a [units, batch]
    # buffer: BLAS then walks the kernel in its own row-major order (about 1.5x faster
    # than dz @ w_h.T at these sizes); dh is that buffer's transposed view.
    dh_t = np.empty((n, batch), dt)
    for t in range(steps - 1, -1, -1):
        np.multiply(dh, a[t], out=dct)
        dct += dc
        blocks = dz[t].reshape(batch, 4, n)
        # i, j and f all scale dct, so one broadcast multiply fills the three blocks.
        np.multiply(dct[:, None, :], p[t].reshape(batch, 4, n)[:, :3], out=blocks[:, :3])
        np.multiply(dh, p[t, :, 3 * n:], out=blocks[:, 3])
        np.multiply(dct, gates[t, :, 2 * n:3 * n], out=dc)
        np.matmul(wh, dz[t].T, out=dh_t)
        dh = dh_t.T
        if t:
            dh += dh_seq[t - 1]
            dc += dc_seq[t - 1]
    flat_dz = dz.reshape(steps * batch, 4 * n)
    dx = np.matmul(flat_dz, w[:n_in].T).reshape(steps, batch, n_in)
    np.matmul(np.ascontiguousarray(x).reshape(steps * batch, n_in).T, flat_dz, out=dw[:n_in])
    # Step t's recurrent input is h_{t-1}: h0 for the first step, h_seq after that.
    # Gathered into one buffer, the recurrent kernel's gradient is one matmul too.
    h_prev = np.empty((steps, batch, n), dt)
    h_prev[0] = h0
    h_prev[1:] = h_seq[:-1]
    np.matmul(h_prev.reshape(steps * batch, n).T, flat_dz, out=dw[n_in:])
    db = flat_dz.sum(axis=0)
    return dx, dc, np.ascontiguousarray(dh), dw, db


@register_kernel("ReverseSequence")
def _reverse_sequence(ctx: KernelContext, x: Any, lengths: Any) -> np.ndarray:
    seq_ax, batch_ax = ctx.attrs["seq_axis"], ctx.attrs["batch_axis"]
    x = np.asarray(x)
    lengths = np.asarray(lengths).astype(np.int64)
    if seq_ax >= x.ndim or batch_ax >= x.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: seq_axis {seq_ax} / batch_axis {batch_ax} out of "
                        f"range for input of rank {x.ndim}")
    n_batch, n_seq = x.shape[batch_ax], x.shape[seq_ax]
    if lengths.shape != (n_batch,):
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: seq_lengths has shape {lengths.shape}, expected "
                        f"({n_batch},) to match the batch dimension")
    if lengths.size and (lengths.min() < 0 or lengths.max() > n_seq):
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: seq_lengths must lie in [0, {n_seq}], got "
                        f"{lengths.tolist()}")
    # Source index along the sequence axis, per (batch row, position).
    pos = np.arange(n_seq)[None, :]
    src = np.where(pos < lengths[:, None], lengths[:, None] - 1 - pos, pos)
    moved = np.moveaxis(x, (batch_ax, seq_ax), (0, 1))
    out = moved[np.arange(n_batch)[:, None], src]
    return np.ascontiguousarray(np.moveaxis(out, (0, 1), (batch_ax, seq_ax)))


__all__: list = []

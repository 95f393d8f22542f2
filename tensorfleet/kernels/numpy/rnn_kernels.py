"""numpy kernels of the recurrent ops: the fused LSTM step, a fused LSTM layer over a whole
sequence, and their backward ops.

The forward step keeps the activated gates (i, j, f, o) as an output, so the
backward step needs no second matmul to recover them. The sigmoid is computed
as ``0.5 * tanh(0.5 * z) + 0.5``: one transcendental pass, and it never
overflows for large ``|z|`` as ``1 / (1 + exp(-z))`` does in float32.
"""

from __future__ import annotations

import functools
from typing import Any, Optional, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy import blas_threads, parallel_tasks, scratch_arrays
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


# A layer's recurrence runs over slices of its batch on several threads (the rows of a
# batch are independent through time) when each slice has at least this many rows and
# its per-step recurrent product at least this many multiply-adds; below that a thread's
# slice costs more in per-call overhead than it saves.
MIN_SLICE_ROWS = 8
MIN_SLICE_MACS = 1 << 20
# Slices per thread. Each numpy call of a slice's loop releases and takes back the GIL,
# and threads waiting for it cost CPU time, so more (smaller) slices than threads cost
# more than they save; the threads still take the slices from a shared counter, so a
# thread that starts late leaves its slice to the others.
SLICES_PER_THREAD = 1


def _slice_count(batch: int, units: int) -> int:
    """How many batch slices a layer of ``units`` over ``batch`` rows runs as."""
    n = parallel_tasks.thread_count()
    if n < 2:
        return 1
    by_work = batch * 4 * units * units // MIN_SLICE_MACS
    return max(1, min(n * SLICES_PER_THREAD, batch // MIN_SLICE_ROWS, by_work))


@register_kernel("FusedLSTMSequence")
def _fused_lstm_sequence(ctx: KernelContext, x: Any, c0: Any, h0: Any, w: Any,
                         b: Any) -> Tuple[np.ndarray, ...]:
    units = _check_sequence_shapes(ctx, x, c0, h0, w, b)
    # One small product per step: see blas_threads.
    with blas_threads.one_thread():
        return _lstm_sequence(ctx, x, c0, h0, w, b, units, _slice_count(x.shape[1], units))


def _lstm_sequence(ctx: KernelContext, x: np.ndarray, c0: np.ndarray, h0: np.ndarray,
                   w: np.ndarray, b: np.ndarray, units: int,
                   pieces: int = 1) -> Tuple[np.ndarray, ...]:
    """The layer over the batch cut into ``pieces`` slices, run by ``parallel_tasks``;
    every slice computes its rows exactly as the whole batch would."""
    steps, batch, n_in = x.shape
    dt = x.dtype
    gates = np.empty((steps, batch, 4 * units), dt)
    c_seq = np.empty((steps, batch, units), dt)
    h_seq = np.empty((steps, batch, units), dt)
    if steps == 0:
        return h_seq, c_seq, gates, np.array(c0, dtype=dt), np.array(h0, dtype=dt)
    x, h0 = np.ascontiguousarray(x), np.ascontiguousarray(h0)
    scale, offset = _gate_affine(ctx, units, dt)
    # The gates' pre-activations are wanted scaled (see _gate_affine): the kernel and the
    # bias (with the forget bias folded into the f block) are scaled once here. The
    # scales are 1 and 1/2, so the products equal the scaled products of the unscaled
    # kernel exactly.
    w_scaled = np.multiply(w, scale, dtype=dt)
    wx, wh = w_scaled[:n_in], w_scaled[n_in:]
    bias = np.array(b, dtype=dt)
    bias[2 * units:3 * units] += ctx.attrs["forget_bias"]
    bias *= scale

    def layer(rows: range) -> None:
        s = slice(rows.start, rows.stop)
        # The input part of every step's gates in one product (and one bias pass), so
        # that each step only adds h @ w_h.
        z_all = gates[:, s]
        np.matmul(x[:, s], wx, out=z_all)
        z_all += bias
        rec = np.empty((len(rows), 4 * units), dt)
        ij = np.empty((len(rows), units), dt)
        c_prev, h_prev = c0[s], h0[s]
        for t in range(steps):
            z = gates[t, s]
            np.matmul(h_prev, wh, out=rec)
            z += rec
            # sigmoid(i), tanh(j), sigmoid(f), sigmoid(o) by one tanh pass.
            np.tanh(z, out=z)
            z *= scale
            z += offset
            c, h = c_seq[t, s], h_seq[t, s]
            np.multiply(z[:, 2 * units:3 * units], c_prev, out=c)
            np.multiply(z[:, :units], z[:, units:2 * units], out=ij)
            c += ij
            np.tanh(c, out=h)
            h *= z[:, 3 * units:]
            c_prev, h_prev = c, h

    parallel_tasks.run([functools.partial(layer, r)
                        for r in parallel_tasks.spans(batch, pieces)])
    return h_seq, c_seq, gates, np.array(c_seq[-1], dtype=dt), np.array(h_seq[-1], dtype=dt)


def _backward_factors(gates: np.ndarray, c_seq: np.ndarray, c0: np.ndarray, units: int,
                      p: np.ndarray, a: np.ndarray) -> None:
    """The parts of the gate gradients that do not depend on the incoming gradient, for
    every step at once, into ``p`` and ``a``: ``dz = dct * p`` for i, j, f and
    ``dz = dh * p`` for o, and ``dct = dh * a + dc``."""
    n = units
    i, j, o = gates[..., :n], gates[..., n:2 * n], gates[..., 3 * n:]
    # The activations' derivatives: g * (1 - g) for a sigmoid, 1 - g * g for tanh.
    np.subtract(1, gates, out=p)
    p *= gates
    np.multiply(j, j, out=p[..., n:2 * n])
    np.subtract(1, p[..., n:2 * n], out=p[..., n:2 * n])
    p[..., :n] *= j
    p[..., n:2 * n] *= i
    p[0, :, 2 * n:3 * n] *= c0
    p[1:, :, 2 * n:3 * n] *= c_seq[:-1]
    tc = np.tanh(c_seq, out=a)
    p[..., 3 * n:] *= tc
    np.multiply(tc, tc, out=a)
    np.subtract(1, a, out=a)
    a *= o


@register_kernel("FusedLSTMSequenceGrad")
def _fused_lstm_sequence_grad(ctx: KernelContext, x: Any, c0: Any, h0: Any, w: Any,
                              b: Any, h_seq: Any, c_seq: Any, gates: Any, dh_seq: Any,
                              dc_seq: Any, dc_last: Any, dh_last: Any
                              ) -> Tuple[np.ndarray, ...]:
    units = _check_sequence_shapes(ctx, x, c0, h0, w, b)
    if dc_seq.size == 0:
        # No gradient reaches every step's c (see rnn_ops.fused_lstm_sequence_grad).
        dc_seq = None
    elif dc_seq.shape != c_seq.shape:
        raise errors.InvalidArgumentError(
            None, None, f"{ctx.op_name}: the gradient of every step's c has shape "
                        f"{dc_seq.shape}, expected {c_seq.shape} or an empty tensor")
    with blas_threads.one_thread():
        return _lstm_sequence_grad(x, c0, h0, w, b, h_seq, c_seq, gates, dh_seq, dc_seq,
                                   dc_last, dh_last, units, _slice_count(x.shape[1], units))


def _active_steps(dh_seq: np.ndarray, dc_seq: Optional[np.ndarray], dc_last: np.ndarray,
                  dh_last: np.ndarray) -> int:
    """How many leading steps the backward pass must run: one past the last step that a
    nonzero gradient reaches. Steps after it get zero gradients from above and pass
    zeros back, so their gates' gradients are zeros (a classifier that reads only a
    backward layer's first step, or an encoder's final state, leaves most steps so)."""
    steps = dh_seq.shape[0]
    if dh_last.any() or dc_last.any():
        return steps
    for t in range(steps - 1, -1, -1):
        if dh_seq[t].any() or (dc_seq is not None and dc_seq[t].any()):
            return t + 1
    return 0


def _lstm_sequence_grad(x: np.ndarray, c0: np.ndarray, h0: np.ndarray, w: np.ndarray,
                        b: np.ndarray, h_seq: np.ndarray, c_seq: np.ndarray,
                        gates: np.ndarray, dh_seq: np.ndarray,
                        dc_seq: Optional[np.ndarray], dc_last: np.ndarray,
                        dh_last: np.ndarray, units: int,
                        pieces: int = 1) -> Tuple[np.ndarray, ...]:
    """The backward pass with the batch cut into ``pieces`` slices for the recurrence and
    the kernel's gradient products cut by rows of their outputs, all run by
    ``parallel_tasks``; each piece computes its part exactly as the whole would. Only
    the leading steps that a nonzero gradient reaches run (``_active_steps``): the
    others' gradients are zeros, which add nothing to the kernel's. ``dc_seq`` None: no
    gradient reaches every step's c."""
    steps, batch, n_in = x.shape
    n, dt = units, x.dtype
    active = _active_steps(dh_seq, dc_seq, dc_last, dh_last) if steps else 0
    if active == 0:
        return (np.zeros_like(x), np.array(dc_last, dtype=dt), np.array(dh_last, dtype=dt),
                np.zeros_like(w), np.zeros_like(b))
    # The recurrent kernel transposed, contiguous: dz @ w_h.T then reads it in its own
    # order and writes a contiguous dh, which the element-wise passes of the next step
    # read faster than the transposed view w_h @ dz.T gives (about 30% off a step's
    # backward at 128 rows and 128 units).
    wh_t = np.ascontiguousarray(w[n_in:].T)
    dc0 = np.empty((batch, n), dt)
    dh0 = np.empty((batch, n), dt)
    with scratch_arrays.borrowed((active, batch, 4 * n), dt) as dz, \
            scratch_arrays.borrowed((active, batch, 4 * n), dt) as p, \
            scratch_arrays.borrowed((active, batch, n), dt) as a, \
            scratch_arrays.borrowed((active, batch, n), dt) as h_prev:

        def recurrence(rows: range) -> None:
            s = slice(rows.start, rows.stop)
            size = len(rows)
            _backward_factors(gates[:active, s], c_seq[:active, s], c0[s], units, p[:, s],
                              a[:, s])
            last = active - 1
            dh = np.add(dh_seq[last, s], dh_last[s], dtype=dt)
            dc = np.array(dc_last[s], dtype=dt) if dc_seq is None else \
                np.add(dc_seq[last, s], dc_last[s], dtype=dt)
            dct = np.empty((size, n), dt)
            dh_next = np.empty((size, n), dt)
            # Every step's c is an output, but its gradient is zeros unless a program
            # uses c_seq; then the loop need not add it.
            with_dc = dc_seq is not None and bool(dc_seq[:last, s].any())
            for t in range(last, -1, -1):
                np.multiply(dh, a[t, s], out=dct)
                dct += dc
                dz_t = dz[t, s]
                blocks = dz_t.reshape(size, 4, n)
                # i, j and f all scale dct, so one broadcast multiply fills the three.
                np.multiply(dct[:, None, :], p[t, s].reshape(size, 4, n)[:, :3],
                            out=blocks[:, :3])
                np.multiply(dh, p[t, s, 3 * n:], out=blocks[:, 3])
                np.multiply(dct, gates[t, s, 2 * n:3 * n], out=dc)
                # dh is read above, before the product overwrites its buffer.
                np.matmul(dz_t, wh_t, out=dh_next)
                dh = dh_next
                if t:
                    dh += dh_seq[t - 1, s]
                    if with_dc:
                        dc += dc_seq[t - 1, s]
            dc0[s] = dc
            dh0[s] = dh
            # Step t's recurrent input is h_{t-1}: h0 for the first step, h_seq after.
            h_prev[0, s] = h0[s]
            h_prev[1:, s] = h_seq[:last, s]

        parallel_tasks.run([functools.partial(recurrence, r)
                            for r in parallel_tasks.spans(batch, pieces)])
        # The kernel's and the inputs' gradients: one product each over the active
        # steps, cut by rows of their outputs.
        rows_in = active * batch
        flat_dz = dz.reshape(rows_in, 4 * n)
        flat_x = np.ascontiguousarray(x).reshape(steps * batch, n_in)[:rows_in]
        flat_h = h_prev.reshape(rows_in, n)
        dx = np.empty((steps * batch, n_in), dt)
        dx[rows_in:] = 0
        dw = np.empty_like(w)
        db = np.empty(4 * n, dt)
        wx_t = w[:n_in].T

        def input_grad(rows: range) -> None:
            np.matmul(flat_dz[rows.start:rows.stop], wx_t, out=dx[rows.start:rows.stop])

        def recurrent_kernel_grad(rows: range) -> None:
            np.matmul(flat_h[:, rows.start:rows.stop].T, flat_dz,
                      out=dw[n_in + rows.start:n_in + rows.stop])

        # The largest first, so the threads end at about the same time.
        tasks = [functools.partial(recurrent_kernel_grad, r)
                 for r in parallel_tasks.spans(n, pieces)]
        tasks.append(lambda: np.matmul(flat_x.T, flat_dz, out=dw[:n_in]))
        tasks += [functools.partial(input_grad, r)
                  for r in parallel_tasks.spans(rows_in, pieces)]
        tasks.append(lambda: np.sum(flat_dz, axis=0, out=db))
        parallel_tasks.run(tasks)
    return dx.reshape(steps, batch, n_in), dc0, dh0, dw, db


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

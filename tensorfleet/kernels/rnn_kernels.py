"""numpy kernels of the recurrent ops: the fused LSTM step and its backward step.

The forward step keeps the activated gates (i, j, f, o) as an output, so the
backward step needs no second matmul to recover them. The sigmoid is computed
as ``0.5 * tanh(0.5 * z) + 0.5``: one transcendental pass, and it never
overflows for large ``|z|`` as ``1 / (1 + exp(-z))`` does in float32.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from tensorfleet import errors
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

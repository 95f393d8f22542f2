"""Numpy references for the Keras layer tests: N-d convolutions (channels last), their
transposes, and depthwise convolutions, written as plain loops over output positions."""

import itertools

import numpy as np


def same_pads(n, k, s):
    """(before, after) padding TF's 'SAME' adds to an axis of length n."""
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return total // 2, total - total // 2


def conv_nd(x, w, strides, padding, dilation=None):
    """x [b, *sp, c], w [*k, c, f] -> [b, *out, f]."""
    rank = x.ndim - 2
    dilation = dilation or (1,) * rank
    k = [(w.shape[i] - 1) * dilation[i] + 1 for i in range(rank)]
    if padding == "same":
        pads = [same_pads(x.shape[i + 1], k[i], strides[i]) for i in range(rank)]
        x = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    out = [(x.shape[i + 1] - k[i]) // strides[i] + 1 for i in range(rank)]
    y = np.zeros([x.shape[0], *out, w.shape[-1]])
    for pos in itertools.product(*[range(n) for n in out]):
        sl = tuple(slice(p * s, p * s + kk, d) for p, s, kk, d in zip(pos, strides, k, dilation))
        patch = x[(slice(None),) + sl]
        y[(slice(None),) + pos] = np.tensordot(patch, w, axes=(list(range(1, rank + 2)),
                                                               list(range(rank + 1))))
    return y


def conv_transpose_nd(x, w, strides, padding):
    """x [b, *sp, c], w [*k, f, c] -> the transposed convolution (Keras output length)."""
    rank = x.ndim - 2
    k = w.shape[:rank]
    full = [(x.shape[i + 1] - 1) * strides[i] + k[i] for i in range(rank)]
    y = np.zeros([x.shape[0], *full, w.shape[-2]])
    for pos in itertools.product(*[range(n) for n in x.shape[1:-1]]):
        contrib = np.tensordot(x[(slice(None),) + pos], w, axes=([1], [rank + 1]))
        sl = tuple(slice(p * s, p * s + kk) for p, s, kk in zip(pos, strides, k))
        y[(slice(None),) + sl] += contrib
    if padding == "valid":
        out = [n * s + max(kk - s, 0) for n, s, kk in zip(x.shape[1:-1], strides, k)]
        return y[(slice(None),) + tuple(slice(0, o) for o in out)]
    out = [n * s for n, s in zip(x.shape[1:-1], strides)]
    starts = [(f - o) // 2 for f, o in zip(full, out)]
    return y[(slice(None),) + tuple(slice(a, a + o) for a, o in zip(starts, out))]


def depthwise_nd(x, w, strides, padding):
    """x [b, *sp, c], w [*k, c, m] -> [b, *out, c*m] (channel-major, as TF)."""
    c, m = w.shape[-2], w.shape[-1]
    outs = []
    for ci in range(c):
        for mi in range(m):
            outs.append(conv_nd(x[..., ci:ci + 1], w[..., ci:ci + 1, mi:mi + 1], strides,
                                padding))
    return np.concatenate(outs, axis=-1)

"""``tf.keras.backend`` neural-network functions: convolutions and pooling with Keras
argument conventions, locally connected products, batch normalization helpers, dropout,
focal cross-entropies, the CTC loss and decoders, and ``rnn`` (a step function unrolled
over time)."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.keras.backend_math import binary_crossentropy as _bce
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import ctc_ops as CTC
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_conv_ops as NC
from tensorfleet.ops import nn_conv_variant_ops as CV
from tensorfleet.ops import nn_norm_ops as NN
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import sparse_ops as SP
from tensorfleet.ops.scatter_ops import gather_nd as _gather_nd

_EPS = 1e-7


def _fmt(data_format: Optional[str], fname: str) -> None:
    if data_format not in (None, "channels_last"):
        raise ValueError(f"{fname}: only data_format='channels_last' is supported, got "
                         f"{data_format!r}")


def _pad(padding: str, fname: str) -> str:
    p = str(padding).lower()
    if p not in ("valid", "same"):
        raise ValueError(f"{fname}: padding must be 'valid' or 'same', got {padding!r}")
    return p.upper()


def _n(v: Any, n: int) -> List[int]:
    return [int(v)] * n if isinstance(v, int) else [int(a) for a in v]


# -- convolution and pooling ---------------------------------------------------------------

def conv1d(x: Any, kernel: Any, strides: int = 1, padding: str = "valid",
           data_format: Optional[str] = None, dilation_rate: int = 1) -> Tensor:
    """1-D convolution of [batch, steps, channels] with a [k, in, out] kernel."""
    _fmt(data_format, "conv1d")
    return CV.convolution(x, kernel, padding=_pad(padding, "conv1d"), strides=_n(strides, 1),
                          dilation_rate=_n(dilation_rate, 1))


def conv2d(x: Any, kernel: Any, strides: Any = (1, 1), padding: str = "valid",
           data_format: Optional[str] = None, dilation_rate: Any = (1, 1)) -> Tensor:
    """2-D convolution of [batch, h, w, channels] with a [kh, kw, in, out] kernel."""
    _fmt(data_format, "conv2d")
    return CV.convolution(x, kernel, padding=_pad(padding, "conv2d"), strides=_n(strides, 2),
                          dilation_rate=_n(dilation_rate, 2))


def conv3d(x: Any, kernel: Any, strides: Any = (1, 1, 1), padding: str = "valid",
           data_format: Optional[str] = None, dilation_rate: Any = (1, 1, 1)) -> Tensor:
    """3-D convolution of [batch, d, h, w, channels] with a [kd, kh, kw, in, out] kernel."""
    _fmt(data_format, "conv3d")
    return CV.convolution(x, kernel, padding=_pad(padding, "conv3d"), strides=_n(strides, 3),
                          dilation_rate=_n(dilation_rate, 3))


def conv2d_transpose(x: Any, kernel: Any, output_shape: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: Optional[str] = None,
                     dilation_rate: Any = (1, 1)) -> Tensor:
    """Transposed 2-D convolution with a [kh, kw, out, in] kernel to ``output_shape``."""
    _fmt(data_format, "conv2d_transpose")
    if tuple(_n(dilation_rate, 2)) != (1, 1):
        raise ValueError("conv2d_transpose: dilation_rate other than 1 is not supported")
    return CV.conv2d_transpose(x, kernel, output_shape, [1, *_n(strides, 2), 1],
                               padding=_pad(padding, "conv2d_transpose"))


def depthwise_conv2d(x: Any, depthwise_kernel: Any, strides: Any = (1, 1),
                     padding: str = "valid", data_format: Optional[str] = None,
                     dilation_rate: Any = (1, 1)) -> Tensor:
    """Depthwise 2-D convolution with a [kh, kw, in, multiplier] kernel."""
    _fmt(data_format, "depthwise_conv2d")
    return CV.depthwise_conv2d(x, depthwise_kernel, [1, *_n(strides, 2), 1],
                               _pad(padding, "depthwise_conv2d"), rate=_n(dilation_rate, 2))


def separable_conv2d(x: Any, depthwise_kernel: Any, pointwise_kernel: Any,
                     strides: Any = (1, 1), padding: str = "valid",
                     data_format: Optional[str] = None, dilation_rate: Any = (1, 1)) -> Tensor:
    """Depthwise then pointwise 2-D convolution."""
    _fmt(data_format, "separable_conv2d")
    return CV.separable_conv2d(x, depthwise_kernel, pointwise_kernel, [1, *_n(strides, 2), 1],
                               _pad(padding, "separable_conv2d"), rate=_n(dilation_rate, 2))


def _pool(x: Any, rank: int, pool_size: Any, strides: Any, padding: str,
          data_format: Optional[str], pool_mode: str, fname: str) -> Tensor:
    _fmt(data_format, fname)
    k, s = [1, *_n(pool_size, rank), 1], [1, *_n(strides, rank), 1]
    p = _pad(padding, fname)
    ops = {2: (NC.max_pool, NC.avg_pool), 3: (CV.max_pool3d, CV.avg_pool3d)}[rank]
    if pool_mode == "max":
        return ops[0](x, k, s, p)
    if pool_mode == "avg":
        return ops[1](x, k, s, p)
    raise ValueError(f"{fname}: pool_mode must be 'max' or 'avg', got {pool_mode!r}")


def pool2d(x: Any, pool_size: Any, strides: Any = (1, 1), padding: str = "valid",
           data_format: Optional[str] = None, pool_mode: str = "max") -> Tensor:
    """2-D max or average pooling of [batch, h, w, channels]."""
    return _pool(x, 2, pool_size, strides, padding, data_format, pool_mode, "pool2d")


def pool3d(x: Any, pool_size: Any, strides: Any = (1, 1, 1), padding: str = "valid",
           data_format: Optional[str] = None, pool_mode: str = "max") -> Tensor:
    """3-D max or average pooling of [batch, d, h, w, channels]."""
    return _pool(x, 3, pool_size, strides, padding, data_format, pool_mode, "pool3d")


def bias_add(x: Any, bias: Any, data_format: Optional[str] = None) -> Tensor:
    """``x + bias`` over the channel (last) axis."""
    _fmt(data_format, "bias_add")
    b = convert_to_tensor(bias)
    if b.shape.ndims == 1:
        return N.bias_add(x, b)
    return M.add(x, b)


def local_conv1d(inputs: Any, kernel: Any, kernel_size: Any, strides: Any,
                 data_format: Optional[str] = None) -> Tensor:
    """Unshared 1-D convolution: ``kernel`` [out_steps, k * in, filters] holds one kernel
    per output step."""
    _fmt(data_format, "local_conv1d")
    k, s = _n(kernel_size, 1)[0], _n(strides, 1)[0]
    kernel = convert_to_tensor(kernel)
    steps = kernel.shape.as_list()[0]
    x = convert_to_tensor(inputs)
    c = x.shape.as_list()[-1]
    outs = []
    for i in range(steps):
        patch = A.reshape(x[:, i * s:i * s + k, :], [-1, k * c])
        outs.append(M.matmul(patch, kernel[i]))
    return A.stack(outs, axis=1)


def local_conv2d(inputs: Any, kernel: Any, kernel_size: Any, strides: Any,
                 output_shape: Sequence[int], data_format: Optional[str] = None) -> Tensor:
    """Unshared 2-D convolution: ``kernel`` [out_h * out_w, kh * kw * in, filters]."""
    _fmt(data_format, "local_conv2d")
    (kh, kw), (sh, sw) = _n(kernel_size, 2), _n(strides, 2)
    oh, ow = int(output_shape[0]), int(output_shape[1])
    kernel = convert_to_tensor(kernel)
    x = convert_to_tensor(inputs)
    c = x.shape.as_list()[-1]
    rows = []
    for i in range(oh):
        cols = []
        for j in range(ow):
            patch = A.reshape(x[:, i * sh:i * sh + kh, j * sw:j * sw + kw, :], [-1, kh * kw * c])
            cols.append(M.matmul(patch, kernel[i * ow + j]))
        rows.append(A.stack(cols, axis=1))
    return A.stack(rows, axis=1)


# -- normalization and dropout -------------------------------------------------------------

def batch_normalization(x: Any, mean: Any, var: Any, beta: Any, gamma: Any, axis: int = -1,
                        epsilon: float = 1e-3) -> Tensor:
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta``; the statistics broadcast
    against ``x``, which makes ``axis`` (Keras's hint for a fused kernel) redundant."""
    return NN.batch_normalization(x, mean, var, beta, gamma, epsilon)


def normalize_batch_in_training(x: Any, gamma: Any, beta: Any, reduction_axes: Sequence[int],
                                epsilon: float = 1e-3) -> Tuple[Tensor, Tensor, Tensor]:
    """``x`` normalized by its own mean and variance over ``reduction_axes``; returns
    (normalized, mean, variance) with the statistics reduced."""
    mean, var = N.moments(x, list(reduction_axes), keep_dims=True)
    normed = NN.batch_normalization(x, mean, var, beta, gamma, epsilon)
    axes = sorted(int(a) for a in reduction_axes)
    return normed, A.squeeze(mean, axes), A.squeeze(var, axes)


def dropout(x: Any, level: float, noise_shape: Any = None, seed: Optional[int] = None) -> Tensor:
    """``x`` with a ``level`` fraction of entries zeroed and the rest scaled up."""
    return N.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)


# -- focal cross-entropies -----------------------------------------------------------------

def binary_focal_crossentropy(target: Any, output: Any, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False) -> Tensor:
    """Binary cross-entropy scaled by ``(1 - p_t) ** gamma`` (and class weights
    ``alpha``/``1 - alpha`` with ``apply_class_balancing``), per entry."""
    output = convert_to_tensor(output)
    target = A.cast(target, output.dtype)
    bce = _bce(target, output, from_logits=from_logits)
    p = M.sigmoid(output) if from_logits else output
    p_t = M.add(M.multiply(target, p), M.multiply(M.subtract(1.0, target),
                                                  M.subtract(1.0, p)))
    loss = M.multiply(M.pow(M.subtract(1.0, p_t), gamma), bce)
    if apply_class_balancing:
        w = M.add(M.multiply(target, alpha), M.multiply(M.subtract(1.0, target), 1.0 - alpha))
        loss = M.multiply(w, loss)
    return loss


def categorical_focal_crossentropy(target: Any, output: Any, alpha: float = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   axis: int = -1) -> Tensor:
    """Categorical cross-entropy with each class term scaled by
    ``alpha * (1 - p) ** gamma``; summed over ``axis``."""
    output = convert_to_tensor(output)
    target = A.cast(target, output.dtype)
    if from_logits:
        output = N.softmax(output, axis=axis)
    output = M.divide(output, M.reduce_sum(output, axis=axis, keepdims=True))
    output = M.clip_by_value(output, _EPS, 1.0 - _EPS)
    ce = M.multiply(M.negative(target), M.log(output))
    w = M.multiply(alpha, M.pow(M.subtract(1.0, output), gamma))
    return M.reduce_sum(M.multiply(w, ce), axis=axis)


# -- CTC -----------------------------------------------------------------------------------

def ctc_label_dense_to_sparse(labels: Any, label_lengths: Any) -> SparseTensor:
    """The first ``label_lengths[i]`` entries of each row of ``labels`` as a
    ``SparseTensor`` (int32 values)."""
    labels = convert_to_tensor(labels)
    lengths = A.reshape(A.cast(label_lengths, _dtypes.int32), [-1])
    width = A.shape(labels)[1]
    mask = M.less(A.expand_dims(A.range(width), 0), A.expand_dims(lengths, 1))
    idx = A.cast(A.where(mask), _dtypes.int64)
    values = A.cast(_gather_nd(labels, idx), _dtypes.int32)
    return SparseTensor(idx, values, A.cast(A.shape(labels), _dtypes.int64))


def _log_time_major(y_pred: Any) -> Tensor:
    return M.log(M.add(A.transpose(convert_to_tensor(y_pred), [1, 0, 2]), _EPS))


def ctc_batch_cost(y_true: Any, y_pred: Any, input_length: Any, label_length: Any) -> Tensor:
    """Per-sample CTC loss [batch, 1] of softmax outputs ``y_pred`` [batch, time, classes]
    (the last class the blank) against the labels ``y_true`` [batch, max_len]."""
    sparse = ctc_label_dense_to_sparse(y_true, label_length)
    seq = A.reshape(A.cast(input_length, _dtypes.int32), [-1])
    loss = CTC.ctc_loss(sparse, _log_time_major(y_pred), sequence_length=seq)
    return A.expand_dims(loss, 1)


def ctc_decode(y_pred: Any, input_length: Any, greedy: bool = True, beam_width: int = 100,
               top_paths: int = 1) -> Tuple[List[Tensor], Tensor]:
    """Decodes softmax outputs [batch, time, classes]: a list of dense [batch, length]
    label tensors (padded with -1), one per path, and their log probabilities."""
    logits = _log_time_major(y_pred)
    seq = A.reshape(A.cast(input_length, _dtypes.int32), [-1])
    if greedy:
        decoded, log_prob = CTC.ctc_greedy_decoder(logits, seq)
    else:
        decoded, log_prob = CTC.ctc_beam_search_decoder(logits, seq, beam_width=beam_width,
                                                        top_paths=top_paths)
    dense = [SP.sparse_tensor_to_dense(st, default_value=-1) for st in decoded]
    return dense, log_prob


# -- rnn -----------------------------------------------------------------------------------

def rnn(step_function: Callable[..., Any], inputs: Any, initial_states: Sequence[Any],
        go_backwards: bool = False, mask: Any = None, constants: Any = None,
        unroll: bool = False, input_length: Optional[int] = None, time_major: bool = False,
        zero_output_for_mask: bool = False) -> Tuple[Tensor, Tensor, List[Tensor]]:
    """Runs ``step_function(x_t, states) -> (output, new_states)`` over the time axis.

    Returns (last output, all outputs [batch, time, ...], final states). With ``mask``
    [batch, time], masked steps keep the previous states and repeat the previous output
    (zeros with ``zero_output_for_mask``). The number of steps must be known: the loop is
    always unrolled, so ``unroll`` changes nothing and ``input_length`` is not needed.
    """
    x = convert_to_tensor(inputs)
    if not time_major:
        perm = [1, 0] + list(range(2, x.shape.ndims))
        x = A.transpose(x, perm)
    steps = x.shape.as_list()[0]
    if steps is None:
        raise ValueError("rnn: the number of time steps must be known when building the graph")
    m = None
    if mask is not None:
        m = convert_to_tensor(mask)
        if not time_major:
            m = A.transpose(m, [1, 0])
        m = A.cast(m, _dtypes.bool)
    order = list(range(steps))[::-1] if go_backwards else list(range(steps))
    states = [convert_to_tensor(s) for s in initial_states]
    extra = {} if constants is None else {"constants": list(constants)}
    outputs: List[Tensor] = []
    prev: Optional[Tensor] = None
    for t in order:
        out, new_states = step_function(x[t], states + extra.get("constants", []))
        new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
        if m is not None:
            keep = m[t]

            def pick(new: Tensor, old: Tensor, keep: Tensor = keep) -> Tensor:
                k = A.reshape(keep, [-1] + [1] * (new.shape.ndims - 1))
                return A.where(A.tile(k, [1] + new.shape.as_list()[1:]) if new.shape.ndims > 1
                               else keep, new, old)
            base = A.zeros_like(out) if (zero_output_for_mask or prev is None) else prev
            out = pick(out, base)
            new_states = [pick(n, o) for n, o in zip(new_states, states)]
        outputs.append(out)
        prev, states = out, new_states
    stacked = A.stack(outputs, axis=0)
    if not time_major:
        stacked = A.transpose(stacked, [1, 0] + list(range(2, stacked.shape.ndims)))
    return outputs[-1], stacked, states


__all__ = ["conv1d", "conv2d", "conv3d", "conv2d_transpose", "depthwise_conv2d",
           "separable_conv2d", "pool2d", "pool3d", "bias_add", "local_conv1d", "local_conv2d",
           "batch_normalization", "normalize_batch_in_training",
           "dropout", "binary_focal_crossentropy", "categorical_focal_crossentropy",
           "ctc_label_dense_to_sparse", "ctc_batch_cost", "ctc_decode", "rnn"]

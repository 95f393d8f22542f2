"""Keras attention layers and the ``Dot`` merge.

``Attention`` (dot-product, Luong) and ``AdditiveAttention`` (Bahdanau) take
``[query, value]`` or ``[query, value, key]``; ``MultiHeadAttention`` is called as
``layer(query, value, key=None)``. Masks are given explicitly (``mask=`` lists of step
masks, or ``attention_mask``); ``use_causal_mask`` hides the future steps.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.keras import regularizers as _regs
from tensorfleet.keras.backend_tensor import batch_dot
from tensorfleet.keras.layers.base import Layer, to_list, weight_options
from tensorfleet.keras.layers.noise import _in_training
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import linalg_ops as L
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N

_NEG = -1e9


class Dot(Layer):
    """Per-sample dot product of two inputs over ``axes`` (L2-normalized first with
    ``normalize``): [b, n] . [b, n] -> [b, 1]; [b, n, d] . [b, m, d] over 2 -> [b, n, m]."""

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        self.axes = axes
        self.normalize = bool(normalize)

    def call(self, inputs: Any) -> Tensor:  # type: ignore[override]
        """The dot product of the two inputs."""
        xs = to_list(inputs)
        if len(xs) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs, got "
                             f"{len(xs)}")
        x, y = xs
        axes = [self.axes, self.axes] if isinstance(self.axes, int) else list(self.axes)
        axes = [a % r for a, r in zip(axes, (x.shape.ndims, y.shape.ndims))]
        if self.normalize:
            x, y = N.l2_normalize(x, axis=axes[0]), N.l2_normalize(y, axis=axes[1])
        return batch_dot(x, y, axes)


def dot(inputs: Sequence[Any], axes: Any, normalize: bool = False, **kwargs: Any) -> Tensor:
    """Functional form of ``Dot``."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(list(inputs))


def _causal(q_len: Any, v_len: Any) -> Tensor:
    """[q, v] bool: true where the value step is not after the query step."""
    rows = A.expand_dims(A.range(q_len), 1)
    cols = A.expand_dims(A.range(v_len), 0)
    return M.greater_equal(rows, cols)


def _masked_softmax(scores: Tensor, mask: Optional[Tensor]) -> Tensor:
    if mask is not None:
        scores = M.add(scores, M.multiply(_NEG, M.subtract(1.0, A.cast(mask, scores.dtype))))
    return N.softmax(scores, axis=-1)


class _BaseAttention(Layer):
    def __init__(self, use_scale: bool = False, dropout: float = 0.0, causal: bool = False,
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.use_scale, self.dropout, self.causal = bool(use_scale), float(dropout), causal
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"{type(self).__name__}: dropout must be in [0, 1), got {dropout}")

    def _scores(self, query: Tensor, key: Tensor) -> Tensor:
        raise ValueError(f"{type(self).__name__} has no score function")

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Applies the layer to ``[query, value]`` or ``[query, value, key]``."""
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(f"{type(self).__name__} layer must be called on a list of inputs, "
                             f"namely [query, value] or [query, value, key]")
        return super().__call__(list(inputs), *args, **kwargs)

    def call(self, inputs: Any, mask: Any = None, training: Any = None,  # type: ignore[override]
             return_attention_scores: bool = False, use_causal_mask: bool = False) -> Any:
        """The attention-weighted values (and the weights with
        ``return_attention_scores``)."""
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        scores = self._scores(q, k)
        v_mask = None
        if mask is not None:
            masks = to_list(mask)
            if len(masks) > 1 and masks[1] is not None:
                v_mask = A.expand_dims(convert_to_tensor(masks[1]), 1)
        if use_causal_mask or self.causal:
            c = A.expand_dims(_causal(A.shape(scores)[1], A.shape(scores)[2]), 0)
            v_mask = c if v_mask is None else M.logical_and(A.cast(v_mask, _dtypes.bool), c)
        weights = _masked_softmax(scores, v_mask)
        dropped = weights
        if self.dropout > 0:
            dropped = _in_training(training, lambda: N.dropout(weights, rate=self.dropout),
                                   weights)
        out = M.matmul(dropped, v)
        if mask is not None:
            masks = to_list(mask)
            if masks[0] is not None:
                out = M.multiply(out, A.expand_dims(A.cast(masks[0], out.dtype), -1))
        return [out, weights] if return_attention_scores else out


class Attention(_BaseAttention):
    """Dot-product attention: ``softmax(scale * q k^T) v`` (``scale`` a learned scalar
    with ``use_scale``); ``score_mode='concat'`` scores with ``tanh(q + k)`` summed."""

    def __init__(self, use_scale: bool = False, score_mode: str = "dot", **kwargs: Any):
        super().__init__(use_scale=use_scale, **kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Attention: score_mode must be 'dot' or 'concat', got "
                             f"{score_mode!r}")
        self.score_mode = score_mode
        self.scale: Any = None
        self.concat_score_weight: Any = None

    def build(self, input_shape: Any) -> None:
        """Creates ``scale`` (with ``use_scale``) and the concat score weight."""
        if self.use_scale:
            self.scale = self.add_weight("scale", [], initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight("concat_score_weight", [],
                                                       initializer="ones")

    def _scores(self, query: Tensor, key: Tensor) -> Tensor:
        if self.score_mode == "dot":
            s = M.matmul(query, key, transpose_b=True)
            return s if self.scale is None else M.multiply(self.scale, s)
        t = M.tanh(M.add(A.expand_dims(query, 2), A.expand_dims(key, 1)))
        if self.scale is not None:
            t = M.multiply(self.scale, t)
        return M.multiply(self.concat_score_weight, M.reduce_sum(t, axis=-1))


class AdditiveAttention(_BaseAttention):
    """Additive attention: scores ``sum(scale * tanh(q + k), -1)`` (``scale`` a learned
    vector with ``use_scale``, the default)."""

    def __init__(self, use_scale: bool = True, **kwargs: Any):
        super().__init__(use_scale=use_scale, **kwargs)
        self.scale: Any = None

    def build(self, input_shape: Any) -> None:
        """Creates ``scale`` [dim] with ``use_scale``."""
        dim = list(input_shape[0])[-1]
        if self.use_scale:
            if dim is None:
                raise ValueError("AdditiveAttention: the feature axis must be known")
            self.scale = self.add_weight("scale", [int(dim)], initializer="glorot_uniform")

    def _scores(self, query: Tensor, key: Tensor) -> Tensor:
        t = M.tanh(M.add(A.expand_dims(query, 2), A.expand_dims(key, 1)))
        if self.scale is not None:
            t = M.multiply(self.scale, t)
        return M.reduce_sum(t, axis=-1)


class MultiHeadAttention(Layer):
    """Multi-head attention over [batch, steps, features] (Vaswani et al.): per head,
    ``softmax(q k^T / sqrt(key_dim)) v`` of projected inputs, heads projected back to
    the query's features (or ``output_shape``)."""

    def __init__(self, num_heads: int, key_dim: int, value_dim: Optional[int] = None,
                 dropout: float = 0.0, use_bias: bool = True, output_shape: Any = None,
                 attention_axes: Any = None, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        if attention_axes is not None:
            raise ValueError("MultiHeadAttention: attention_axes is not supported (attention "
                             "runs over the steps axis of rank-3 inputs)")
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = int(value_dim) if value_dim is not None else self.key_dim
        self.dropout, self.use_bias = float(dropout), bool(use_bias)
        if output_shape is not None and not isinstance(output_shape, int):
            shape = tuple(output_shape)
            if len(shape) != 1:
                raise ValueError(f"MultiHeadAttention: output_shape must be one int, got "
                                 f"{output_shape!r}")
            output_shape = shape[0]
        self._output_dim = output_shape
        self._kw = weight_options(kernel_initializer, kernel_regularizer, kernel_constraint)
        self._bw = weight_options(bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = _regs.get(activity_regularizer)

    def __call__(self, query: Any, value: Any = None, key: Any = None,  # type: ignore[override]
                 **kwargs: Any) -> Any:
        """Applies the layer to ``query`` and ``value`` (``key`` defaults to ``value``)."""
        if value is None:
            raise ValueError("MultiHeadAttention must be called as layer(query, value)")
        inputs = [query, value] + ([] if key is None else [key])
        return super().__call__(inputs, **kwargs)

    def _dense(self, name: str, shape: List[int], bias_shape: List[int]) -> tuple:
        with get_default_graph().name_scope(name):
            k = self.add_weight("kernel", shape, **self._kw)
            b = self.add_weight("bias", bias_shape, **self._bw) if self.use_bias else None
        return k, b

    def build(self, input_shape: Any) -> None:
        """Creates the query, key, value and output projections."""
        dims = [list(s)[-1] for s in input_shape]
        if any(d is None for d in dims):
            raise ValueError("MultiHeadAttention: the feature axes must be known")
        qd, vd = int(dims[0]), int(dims[1])
        kd = int(dims[2]) if len(dims) > 2 else vd
        h = self.num_heads
        self._q = self._dense("query", [qd, h, self.key_dim], [h, self.key_dim])
        self._k = self._dense("key", [kd, h, self.key_dim], [h, self.key_dim])
        self._v = self._dense("value", [vd, h, self.value_dim], [h, self.value_dim])
        out = self._output_dim or qd
        self._o = self._dense("attention_output", [h, self.value_dim, out], [out])

    @staticmethod
    def _project(x: Tensor, kb: tuple) -> Tensor:
        y = L.einsum("abc,cde->abde", x, kb[0])
        return y if kb[1] is None else M.add(y, kb[1])

    def call(self, inputs: Any, attention_mask: Any = None,  # type: ignore[override]
             return_attention_scores: bool = False, training: Any = None,
             use_causal_mask: bool = False) -> Any:
        """The attended output [batch, q_steps, out] (and the per-head weights
        [batch, heads, q_steps, v_steps] with ``return_attention_scores``)."""
        q_in, v_in = inputs[0], inputs[1]
        k_in = inputs[2] if len(inputs) > 2 else v_in
        for t in (q_in, v_in, k_in):
            if t.shape.ndims is not None and t.shape.ndims != 3:
                raise ValueError(f"MultiHeadAttention: inputs must be rank 3, got {t.shape}")
        q = M.multiply(self._project(q_in, self._q), 1.0 / math.sqrt(self.key_dim))
        k = self._project(k_in, self._k)
        v = self._project(v_in, self._v)
        scores = L.einsum("aecd,abcd->acbe", k, q)  # [batch, heads, q, v]
        mask = None
        if attention_mask is not None:
            mask = A.expand_dims(A.cast(attention_mask, _dtypes.bool), 1)
        if use_causal_mask:
            c = _causal(A.shape(q_in)[1], A.shape(v_in)[1])
            mask = c if mask is None else M.logical_and(mask, c)
        weights = _masked_softmax(scores, mask)
        dropped = weights
        if self.dropout > 0:
            dropped = _in_training(training, lambda: N.dropout(weights, rate=self.dropout),
                                   weights)
        ctx = L.einsum("acbe,aecd->abcd", dropped, v)  # [batch, q, heads, value_dim]
        out = L.einsum("abcd,cde->abe", ctx, self._o[0])
        if self._o[1] is not None:
            out = M.add(out, self._o[1])
        if self.activity_regularizer is not None:
            self._keras_losses.append(self.activity_regularizer(out))
        return [out, weights] if return_attention_scores else out


__all__ = ["Dot", "dot", "Attention", "AdditiveAttention", "MultiHeadAttention"]

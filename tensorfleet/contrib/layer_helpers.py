"""Regularizers, initializers and summary helpers of ``tf.contrib.layers``.

A regularizer is a function ``weights -> scalar loss`` (or None when it is
switched off by a zero scale); ``get_variable(..., regularizer=r)`` and the
layers put its loss in ``REGULARIZATION_LOSSES``. The initializers scale their
spread by the fan-in / fan-out of the variable's shape.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from typing import Any, Callable, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, Tensor, convert_to_tensor, \
    get_collection, get_default_graph, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import random_ops as R
from tensorfleet.ops import summary_ops
from tensorfleet.ops.init_ops import Initializer

Regularizer = Callable[[Any], Optional[Tensor]]

# The contrib collection names (not in GraphKeys of every TF version).
WEIGHTS = "weights"
BIASES = "biases"
ACTIVATIONS = "activations"


# -- regularizers ----------------------------------------------------------------------------

def _check_scale(scale: Any, fname: str) -> float:
    # Integers are refused as TF 1.x refuses them: l2_regularizer(1) is usually a
    # typo for a small float scale.
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"{fname}: scale cannot be an integer: {scale!r}")
    if not isinstance(scale, numbers.Real):
        raise TypeError(f"{fname}: scale must be a float, got {scale!r}")
    if scale < 0.0:
        raise ValueError(f"{fname}: setting a scale less than 0 on a regularizer: {scale}")
    return float(scale)


def _scaled(scale: float, penalty: Callable[[Tensor], Tensor], default_name: str,
            scope: Optional[str]) -> Regularizer:
    if scale == 0.0:
        return lambda _: None

    def regularize(weights: Any) -> Tensor:
        with name_scope(scope, default_name) as name:
            w = convert_to_tensor(weights)
            factor = A.constant(scale, dtype=w.dtype, name="scale")
            return M.multiply(factor, penalty(w), name=name[:-1].rsplit("/", 1)[-1])

    return regularize


def l1_regularizer(scale: float, scope: Optional[str] = None) -> Regularizer:
    """``weights -> scale * sum(|weights|)``; a zero scale gives a no-op regularizer.

    Raises:
      TypeError: for a non-numeric scale. ValueError: for an integer or negative one.
    """
    s = _check_scale(scale, "l1_regularizer")
    return _scaled(s, lambda w: M.reduce_sum(M.abs(w)), "l1_regularizer", scope)


def l2_regularizer(scale: float, scope: Optional[str] = None) -> Regularizer:
    """``weights -> scale * sum(weights ** 2) / 2`` (``scale * tf.nn.l2_loss``).

    Raises:
      TypeError: for a non-numeric scale. ValueError: for an integer or negative one.
    """
    s = _check_scale(scale, "l2_regularizer")
    return _scaled(s, N.l2_loss, "l2_regularizer", scope)


def sum_regularizer(regularizer_list: Sequence[Optional[Regularizer]],
                    scope: Optional[str] = None) -> Optional[Regularizer]:
    """A regularizer adding the losses of every regularizer in the list (None entries and
    None losses are skipped); None for an empty list."""
    regs = [r for r in regularizer_list if r is not None]
    if not regs:
        return None

    def regularize(weights: Any) -> Optional[Tensor]:
        with name_scope(scope, "sum_regularizer", [weights]) as name:
            losses = [loss for loss in (r(weights) for r in regs) if loss is not None]
            if not losses:
                return None
            return M.add_n(losses, name=name[:-1].rsplit("/", 1)[-1])

    return regularize


def l1_l2_regularizer(scale_l1: float = 1.0, scale_l2: float = 1.0,
                      scope: Optional[str] = None) -> Optional[Regularizer]:
    """The sum of ``l1_regularizer(scale_l1)`` and ``l2_regularizer(scale_l2)`` (just the
    other one when a scale is 0).

    Raises:
      ValueError: for an integer or negative scale. TypeError: for a non-number.
    """
    s1 = _check_scale(scale_l1, "l1_l2_regularizer")
    s2 = _check_scale(scale_l2, "l1_l2_regularizer")
    scope = scope or "l1_l2_regularizer"
    if s1 == 0.0:
        return l2_regularizer(s2, scope)
    if s2 == 0.0:
        return l1_regularizer(s1, scope)
    return sum_regularizer([l1_regularizer(s1), l2_regularizer(s2)], scope=scope)


def apply_regularization(regularizer: Regularizer,
                         weights_list: Optional[Sequence[Any]] = None) -> Tensor:
    """Sums ``regularizer`` over ``weights_list`` (default: the ``weights`` collection),
    adds the sum to ``REGULARIZATION_LOSSES`` and returns it.

    Raises:
      ValueError: when there are no weights, or the regularizer gives no loss.
    """
    if not weights_list:
        weights_list = get_collection(WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty"):
        penalties = [p for p in (regularizer(w) for w in weights_list) if p is not None]
        if not penalties:
            raise ValueError("No regularization penalties were produced by the regularizer "
                             "(a zero scale?)")
        total = M.add_n(penalties)
    get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES, total)
    return total


# -- initializers ----------------------------------------------------------------------------

class ContribVarianceScaling(Initializer):
    """Random values with variance ``factor / n``, n from the shape's fans (``mode``):
    uniform in ``±sqrt(3 factor / n)`` or truncated normal with stddev
    ``sqrt(1.3 factor / n)``."""

    def __init__(self, factor: float = 2.0, mode: str = "FAN_IN", uniform: bool = False,
                 seed: Optional[int] = None, dtype: Any = _dtypes.float32):
        if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
            raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")
        dt = _dtypes.as_dtype(dtype)
        if not dt.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        self.factor, self.mode, self.uniform, self.seed, self.dtype = \
            float(factor), mode, bool(uniform), seed, dt

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        dt = _dtypes.as_dtype(dtype) if dtype is not None else self.dtype
        if not dt.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        dims = [int(d) for d in shape]
        if partition_info is not None and getattr(partition_info, "full_shape", None):
            dims = [int(d) for d in partition_info.full_shape]
        fan_in = float(dims[-2]) if len(dims) > 1 else float(dims[-1]) if dims else 1.0
        fan_out = float(dims[-1]) if dims else 1.0
        for d in dims[:-2]:
            fan_in *= d
            fan_out *= d
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[
            self.mode]
        if self.uniform:
            limit = math.sqrt(3.0 * self.factor / n)
            return R.random_uniform(shape, -limit, limit, dt, seed=self.seed)
        return R.truncated_normal(shape, 0.0, math.sqrt(1.3 * self.factor / n), dt,
                                  seed=self.seed)

    def get_config(self) -> dict:
        """The constructor arguments, for ``from_config``."""
        return {"factor": self.factor, "mode": self.mode, "uniform": self.uniform,
                "seed": self.seed, "dtype": self.dtype.name}


def variance_scaling_initializer(factor: float = 2.0, mode: str = "FAN_IN",
                                 uniform: bool = False, seed: Optional[int] = None,
                                 dtype: Any = _dtypes.float32) -> ContribVarianceScaling:
    """He-style initializer: variance ``factor / fan`` (see ``ContribVarianceScaling``).

    Raises:
      TypeError: for an unknown mode or a non-floating dtype.
    """
    return ContribVarianceScaling(factor, mode, uniform, seed, dtype)


def xavier_initializer(uniform: bool = True, seed: Optional[int] = None,
                       dtype: Any = _dtypes.float32) -> ContribVarianceScaling:
    """Glorot's initializer: variance ``1 / mean(fan_in, fan_out)``."""
    return ContribVarianceScaling(1.0, "FAN_AVG", uniform, seed, dtype)


xavier_initializer_conv2d = xavier_initializer


# -- summaries -------------------------------------------------------------------------------

def _zero_fraction(x: Tensor) -> Tensor:
    return M.reduce_mean(A.cast(M.equal(x, A.zeros_like(x)), _dtypes.float32))


def summarize_tensor(tensor: Any, tag: Optional[str] = None) -> Tensor:
    """A scalar summary for a scalar tensor, a histogram for any other, tagged ``tag``
    (default: the tensor's op name)."""
    t = convert_to_tensor(tensor)
    tag = tag or t.op.name
    if t.shape.ndims == 0:
        return summary_ops.scalar(tag, t)
    return summary_ops.histogram(tag, t)


def summarize_activation(op: Any) -> Tensor:
    """A histogram ``<op>/activation``, plus ``<op>/zeros`` (fraction of zeros) for
    Relu/Relu6/Softplus outputs and ``<op>/sixes`` for Relu6."""
    t = convert_to_tensor(op)
    name = t.op.name
    if t.op.type in ("Relu", "Softplus", "Relu6"):
        summary_ops.scalar(f"{name}/zeros", _zero_fraction(t))
    if t.op.type == "Relu6":
        summary_ops.scalar(f"{name}/sixes",
                           M.reduce_mean(A.cast(M.greater(t, 6.0), _dtypes.float32)))
    return summary_ops.histogram(f"{name}/activation", t)


def summarize_tensors(tensors: Sequence[Any],
                      summarizer: Callable[[Any], Tensor] = summarize_tensor) -> List[Tensor]:
    """``summarizer`` applied to each tensor."""
    return [summarizer(t) for t in tensors]


def summarize_collection(collection: str, name_filter: Optional[str] = None,
                         summarizer: Callable[[Any], Tensor] = summarize_tensor
                         ) -> List[Tensor]:
    """Summaries of the members of ``collection`` whose name matches the regex
    ``name_filter`` (from its start)."""
    items = get_collection(collection)
    if name_filter is not None:
        pat = re.compile(name_filter)
        items = [t for t in items if pat.match(t.name)]
    return summarize_tensors(items, summarizer)


summarize_variables = functools.partial(summarize_collection, GraphKeys.TRAINABLE_VARIABLES)
summarize_variables.__doc__ = "Summaries of the trainable variables (optionally filtered)."
summarize_weights = functools.partial(summarize_collection, WEIGHTS)
summarize_weights.__doc__ = "Summaries of the ``weights`` collection (optionally filtered)."
summarize_biases = functools.partial(summarize_collection, BIASES)
summarize_biases.__doc__ = "Summaries of the ``biases`` collection (optionally filtered)."
summarize_activations = functools.partial(summarize_collection, ACTIVATIONS,
                                          summarizer=summarize_activation)
summarize_activations.__doc__ = "Activation summaries of the ``activations`` collection."

__all__ = ["l1_regularizer", "l2_regularizer", "l1_l2_regularizer", "sum_regularizer",
           "apply_regularization", "variance_scaling_initializer", "xavier_initializer",
           "xavier_initializer_conv2d", "summarize_tensor", "summarize_activation",
           "summarize_tensors", "summarize_collection", "summarize_variables",
           "summarize_weights", "summarize_biases", "summarize_activations"]

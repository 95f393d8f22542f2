"""Statistics over tensors, composed of existing ops: ``tf.math.reduce_variance``,
``tf.math.reduce_std``, ``tf.math.reduce_euclidean_norm``, ``tf.confusion_matrix`` and the
fixed-width histograms ``tf.histogram_fixed_width`` / ``tf.histogram_fixed_width_bins``.

Their gradients come from the ops they are built of. Names follow TensorFlow: the
variance and the standard deviation open a ``reduce_variance`` / ``reduce_std`` scope,
the norm's result is named ``EuclideanNorm``, and the confusion matrix is built inside
a ``confusion_matrix`` scope with run-time checks that the class ids are in range.
"""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Tensor, control_dependencies, convert_to_tensor,
                                         name_scope)
from tensorfleet.ops.array_ops import (cast, identity, ones, ones_like, reshape, shape, squeeze,
                                       stack)
from tensorfleet.ops.array_ops import unsorted_segment_sum
from tensorfleet.ops.check_ops import assert_less, assert_non_negative
from tensorfleet.ops.math_ops import (add, clip_by_value, floor, maximum, minimum, multiply,
                                      reduce_max, reduce_mean, reduce_sum, sqrt, square,
                                      subtract)


def _floating(x: Tensor, fname: str) -> None:
    if x.dtype.np.kind != "f":
        raise TypeError(f"{fname} needs a floating-point input, got {x.dtype.name}")


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                    name: Optional[str] = None) -> Tensor:
    """Population variance over ``axis`` (every axis when None): the mean of the
    squared deviations from the mean."""
    with name_scope(name, "reduce_variance"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        _floating(x, "reduce_variance")
        means = reduce_mean(x, axis=axis, keepdims=True)
        return reduce_mean(square(subtract(x, means)), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: Optional[str] = None) -> Tensor:
    """Population standard deviation over ``axis``: the square root of
    :func:`reduce_variance`."""
    with name_scope(name, "reduce_std"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        _floating(x, "reduce_std")
        return sqrt(reduce_variance(x, axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: Optional[str] = None) -> Tensor:
    """Square root of the sum of squares over ``axis``. Integer inputs give the
    integer part of the norm in their own dtype, as TensorFlow's kernel does."""
    x = convert_to_tensor(input_tensor, name="input_tensor")
    if x.dtype.np.kind not in "iuf":
        raise TypeError(f"reduce_euclidean_norm needs a numeric input, got {x.dtype.name}")
    out_name = name or "EuclideanNorm"
    if x.dtype.np.kind == "f":
        return sqrt(reduce_sum(square(x), axis=axis, keepdims=keepdims), name=out_name)
    squares = reduce_sum(square(cast(x, _dtypes.float64)), axis=axis, keepdims=keepdims)
    return cast(sqrt(squares), x.dtype, name=out_name)


def _match_ranks(labels: Tensor, predictions: Tensor) -> List[Tensor]:
    """Drops a trailing dimension of size 1 that one of the two has and the other not."""
    lr, pr = labels.shape.ndims, predictions.shape.ndims
    if lr is not None and pr is not None:
        if lr == pr + 1 and labels.shape.as_list()[-1] == 1:
            labels = squeeze(labels, [-1])
        elif pr == lr + 1 and predictions.shape.as_list()[-1] == 1:
            predictions = squeeze(predictions, [-1])
    return [labels, predictions]


def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None,
                     dtype: Any = _dtypes.int32, name: Optional[str] = None,
                     weights: Any = None) -> Tensor:
    """``[num_classes, num_classes]`` counts (or summed ``weights``) of each
    ``(label, prediction)`` pair: rows are labels, columns predictions.

    ``num_classes`` defaults to one more than the largest id seen. Negative ids, and
    ids not below a given ``num_classes``, fail at run time with
    ``InvalidArgumentError``.
    """
    dtype = _dtypes.as_dtype(dtype)
    with name_scope(name, "confusion_matrix"):
        labels = cast(convert_to_tensor(labels, name="labels"), _dtypes.int64)
        predictions = cast(convert_to_tensor(predictions, name="predictions"),
                           _dtypes.int64)
        labels, predictions = _match_ranks(labels, predictions)
        checks = [assert_non_negative(labels, message="`labels` contains negative values"),
                  assert_non_negative(predictions,
                                      message="`predictions` contains negative values")]
        if num_classes is None:
            n = add(maximum(reduce_max(predictions), reduce_max(labels)), 1)
        else:
            n = cast(convert_to_tensor(num_classes), _dtypes.int64)
            checks += [assert_less(labels, n, message="`labels` out of bound"),
                       assert_less(predictions, n, message="`predictions` out of bound")]
        with control_dependencies([c for c in checks if c is not None]):
            labels = identity(labels)
        if weights is None:
            values = ones_like(predictions, dtype=dtype)
        else:
            values = cast(convert_to_tensor(weights, name="weights"), dtype)
        cells = add(multiply(labels, n), predictions)
        counts = unsorted_segment_sum(reshape(values, [-1]), reshape(cells, [-1]),
                                      multiply(n, n))
        matrix = reshape(counts, cast(stack([n, n]), _dtypes.int32))
        if isinstance(num_classes, int):
            matrix.set_shape([num_classes, num_classes])
        return matrix


def histogram_fixed_width_bins(values: Any, value_range: Any, nbins: int = 100,
                               dtype: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """The bin (0 .. nbins-1) of each of ``values`` among ``nbins`` equal bins spanning
    ``value_range``; values outside the range go to the first or last bin."""
    with name_scope(name or "histogram_fixed_width_bins"):
        v = convert_to_tensor(values)
        out_shape = shape(v)
        v = reshape(v, [-1])
        rng = convert_to_tensor(value_range, dtype=v.dtype)
        nb = cast(nbins, v.dtype)
        scaled = (v - rng[0]) / (rng[1] - rng[0])
        idx = clip_by_value(floor(nb * scaled), 0, nb - 1)
        return reshape(cast(idx, dtype), out_shape)


def histogram_fixed_width(values: Any, value_range: Any, nbins: int = 100,
                          dtype: Any = _dtypes.int32, name: Optional[str] = None) -> Tensor:
    """Counts of ``values`` in ``nbins`` equal bins spanning ``value_range`` (values outside
    the range counted in the first or last bin), as TensorFlow's ``HistogramFixedWidth``."""
    with name_scope(name or "HistogramFixedWidth"):
        v = cast(reshape(convert_to_tensor(values), [-1]), _dtypes.float64)
        rng = cast(convert_to_tensor(value_range), _dtypes.float64)
        step = (rng[1] - rng[0]) / cast(nbins, _dtypes.float64)
        idx = minimum(floor((maximum(v, rng[0]) - rng[0]) / step),
                      cast(nbins - 1, _dtypes.float64))
        idx = cast(idx, _dtypes.int32)
        counts = unsorted_segment_sum(ones(shape(idx), _dtypes.int32), idx, nbins)
        return cast(counts, dtype)


__all__ = ["confusion_matrix", "histogram_fixed_width", "histogram_fixed_width_bins"]

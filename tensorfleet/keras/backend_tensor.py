"""``tf.keras.backend`` tensor functions beyond ``backend_math``: comparisons, reductions,
shape manipulation (``permute_dimensions``, ``repeat_elements``, ``batch_dot`` ...),
padding and resizing of images and volumes, and the functional loops (``map_fn``,
``foldl``, ``foldr``). Each is a thin form of the matching TF 1.x op."""

from __future__ import annotations

import builtins
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.api import image as _image
from tensorfleet.api import math as _math
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import array_ops_core as AC
from tensorfleet.ops import functional_ops as F
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops import sparse_ops as SP
from tensorfleet.ops.array_repeat_ops import repeat as _repeat
from tensorfleet.ops.nn_composite_ops import softsign as _softsign
from tensorfleet.ops.sort_ops import reverse as _reverse

def _t(x: Any) -> Tensor:
    return convert_to_tensor(x)


# -- elementwise ---------------------------------------------------------------------------

def greater(x: Any, y: Any) -> Tensor:
    """Elementwise ``x > y``."""
    return M.greater(x, y)


def greater_equal(x: Any, y: Any) -> Tensor:
    """Elementwise ``x >= y``."""
    return M.greater_equal(x, y)


def less(x: Any, y: Any) -> Tensor:
    """Elementwise ``x < y``."""
    return M.less(x, y)


def less_equal(x: Any, y: Any) -> Tensor:
    """Elementwise ``x <= y``."""
    return M.less_equal(x, y)


def not_equal(x: Any, y: Any) -> Tensor:
    """Elementwise ``x != y``."""
    return M.not_equal(x, y)


def sign(x: Any) -> Tensor:
    """Elementwise sign (-1, 0 or 1)."""
    return M.sign(x)


def round(x: Any) -> Tensor:  # noqa: A001  (the Keras name)
    """Elementwise rounding, halves to even."""
    return M.round(x)


def sin(x: Any) -> Tensor:
    """Elementwise sine."""
    return M.sin(x)


def cos(x: Any) -> Tensor:
    """Elementwise cosine."""
    return M.cos(x)


def softplus(x: Any) -> Tensor:
    """``log(1 + exp(x))``."""
    return N.softplus(x)


def softsign(x: Any) -> Tensor:
    """``x / (1 + |x|)``."""
    return _softsign(x)


def elu(x: Any, alpha: float = 1.0) -> Tensor:
    """``x`` if positive else ``alpha * (exp(x) - 1)``."""
    y = N.elu(x)
    if alpha == 1:
        return y
    return A.where(M.greater(x, 0.0), y, M.multiply(float(alpha), y))


def l2_normalize(x: Any, axis: Any = None) -> Tensor:
    """``x`` divided by its L2 norm over ``axis``."""
    return N.l2_normalize(x, axis=axis)


def stop_gradient(variables: Any) -> Any:
    """The input(s) with gradients stopped (a list maps to a list)."""
    if isinstance(variables, (list, tuple)):
        return [AC.stop_gradient(v) for v in variables]
    return AC.stop_gradient(variables)


# -- reductions ----------------------------------------------------------------------------

def all(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Logical and over ``axis`` (non-zero entries are true)."""
    x = _t(x)
    if x.dtype != _dtypes.bool:
        x = M.not_equal(x, 0)
    return M.reduce_all(x, axis=axis, keepdims=keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Logical or over ``axis`` (non-zero entries are true)."""
    x = _t(x)
    if x.dtype != _dtypes.bool:
        x = M.not_equal(x, 0)
    return M.reduce_any(x, axis=axis, keepdims=keepdims)


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Product over ``axis``."""
    return M.reduce_prod(x, axis=axis, keepdims=keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Standard deviation over ``axis`` (biased)."""
    return _math.reduce_std(x, axis=axis, keepdims=keepdims)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Variance over ``axis`` (biased)."""
    return _math.reduce_variance(x, axis=axis, keepdims=keepdims)


def argmin(x: Any, axis: int = -1) -> Tensor:
    """Index of the minimum along ``axis``."""
    return M.argmin(x, axis=axis)


def cumsum(x: Any, axis: int = 0) -> Tensor:
    """Running sum along ``axis``."""
    return M.cumsum(x, axis=axis)


def cumprod(x: Any, axis: int = 0) -> Tensor:
    """Running product along ``axis``."""
    return M.cumprod(x, axis=axis)


def in_top_k(predictions: Any, targets: Any, k: int) -> Tensor:
    """Whether ``targets[i]`` is among the ``k`` largest of ``predictions[i]``."""
    return N.in_top_k(predictions, targets, k)


# -- construction --------------------------------------------------------------------------

def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = "int32") -> Tensor:
    """``start, start + step ...`` below ``stop`` (``arange(n)`` counts 0..n-1)."""
    if stop is None:
        start, stop = 0, start
    return A.cast(A.range(start, stop, step), _dtypes.as_dtype(dtype))


def ones_like(x: Any, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    """Ones shaped like ``x``."""
    return AC.ones_like(x, dtype=None if dtype is None else _dtypes.as_dtype(dtype), name=name)


def zeros_like(x: Any, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    """Zeros shaped like ``x``."""
    return AC.zeros_like(x, dtype=None if dtype is None else _dtypes.as_dtype(dtype),
                         name=name)


def one_hot(indices: Any, num_classes: int) -> Tensor:
    """``indices`` [..] as one-hot vectors [.., num_classes]."""
    return A.one_hot(A.cast(indices, _dtypes.int32), num_classes)


def is_sparse(tensor: Any) -> bool:
    """Whether ``tensor`` is a ``SparseTensor``."""
    return isinstance(tensor, SparseTensor)


def to_dense(tensor: Any) -> Tensor:
    """A ``SparseTensor`` as a dense tensor (a dense tensor unchanged)."""
    if isinstance(tensor, SparseTensor):
        return SP.sparse_tensor_to_dense(tensor)
    return tensor


def count_params(x: Any) -> int:
    """The number of entries of the variable or tensor ``x`` (static shape)."""
    shape = _t(x).shape.as_list() if not hasattr(x, "get_shape") else x.get_shape().as_list()
    return int(np.prod(shape))


# -- shape manipulation --------------------------------------------------------------------

def permute_dimensions(x: Any, pattern: Sequence[int]) -> Tensor:
    """``x`` with its axes reordered by ``pattern``."""
    return A.transpose(x, list(pattern))


def repeat_elements(x: Any, rep: int, axis: int) -> Tensor:
    """Each slice of ``x`` along ``axis`` repeated ``rep`` times (``np.repeat``)."""
    return _repeat(x, int(rep), axis=axis)


def repeat(x: Any, n: int) -> Tensor:
    """[batch, dim] repeated ``n`` times: [batch, n, dim]."""
    x = _t(x)
    if x.shape.ndims is not None and x.shape.ndims != 2:
        raise ValueError(f"repeat: x must be rank 2, got shape {x.shape}")
    return A.tile(A.expand_dims(x, 1), [1, int(n), 1])


def tile(x: Any, n: Any) -> Tensor:
    """``x`` tiled ``n`` times per axis (an int tiles a vector)."""
    if isinstance(n, int):
        n = [n]
    return A.tile(x, n)


def reverse(x: Any, axes: Any) -> Tensor:
    """``x`` reversed along ``axes`` (an int or a list)."""
    if isinstance(axes, int):
        axes = [axes]
    return _reverse(x, list(axes))


def batch_dot(x: Any, y: Any, axes: Any = None) -> Tensor:
    """Per-sample dot product of ``x`` and ``y`` over ``axes`` (one axis of each).

    The result has the remaining axes of ``x`` then those of ``y`` (batch first); a
    result of rank 1 becomes [batch, 1], as in Keras.
    """
    x, y = _t(x), _t(y)
    xs, ys = x.shape.as_list(), y.shape.as_list()
    if len(xs) < 2 or len(ys) < 2:
        raise ValueError(f"batch_dot: inputs must be at least rank 2, got {x.shape} and "
                         f"{y.shape}")
    if axes is None:
        axes = [len(xs) - 1, len(ys) - 2 if len(ys) > 2 else 1]
    if isinstance(axes, int):
        axes = [axes, axes]
    ax, ay = [int(a) % r for a, r in zip(axes, (len(xs), len(ys)))]
    if ax == 0 or ay == 0:
        raise ValueError("batch_dot: cannot reduce over the batch axis")
    if xs[ax] is not None and ys[ay] is not None and xs[ax] != ys[ay]:
        raise ValueError(f"batch_dot: axes {axes} have sizes {xs[ax]} and {ys[ay]}")
    x_rest = [i for i in builtins.range(1, len(xs)) if i != ax]
    y_rest = [i for i in builtins.range(1, len(ys)) if i != ay]
    rest_shape = [xs[i] for i in x_rest] + [ys[i] for i in y_rest]
    if builtins.any(d is None for d in rest_shape) or (xs[ax] is None and ys[ay] is None):
        raise ValueError(f"batch_dot: the non-batch axes must be known, got {x.shape} and "
                         f"{y.shape}")
    d = xs[ax] if xs[ax] is not None else ys[ay]
    px = int(np.prod([xs[i] for i in x_rest])) if x_rest else 1
    py = int(np.prod([ys[i] for i in y_rest])) if y_rest else 1
    xt = A.reshape(A.transpose(x, [0] + x_rest + [ax]), [-1, px, d])
    yt = A.reshape(A.transpose(y, [0, ay] + y_rest), [-1, d, py])
    out = M.matmul(xt, yt)
    if not rest_shape:
        return A.reshape(out, [-1, 1])
    return A.reshape(out, [-1] + rest_shape)


def _pad(x: Any, pads: List[List[int]], data_format: Optional[str], what: str) -> Tensor:
    fmt = data_format or "channels_last"
    if fmt == "channels_last":
        full = [[0, 0]] + pads + [[0, 0]]
    elif fmt == "channels_first":
        full = [[0, 0], [0, 0]] + pads
    else:
        raise ValueError(f"{what}: unknown data_format {data_format!r}")
    return A.pad(x, full)


def temporal_padding(x: Any, padding: Any = (1, 1)) -> Tensor:
    """Zero-pads the steps axis of [batch, steps, features]."""
    return A.pad(x, [[0, 0], [int(padding[0]), int(padding[1])], [0, 0]])


def spatial_2d_padding(x: Any, padding: Any = ((1, 1), (1, 1)),
                       data_format: Optional[str] = None) -> Tensor:
    """Zero-pads height and width of a 4-D tensor."""
    return _pad(x, [[int(a), int(b)] for a, b in padding], data_format, "spatial_2d_padding")


def spatial_3d_padding(x: Any, padding: Any = ((1, 1), (1, 1), (1, 1)),
                       data_format: Optional[str] = None) -> Tensor:
    """Zero-pads depth, height and width of a 5-D tensor."""
    return _pad(x, [[int(a), int(b)] for a, b in padding], data_format, "spatial_3d_padding")


def resize_images(x: Any, height_factor: int, width_factor: int, data_format: str,
                  interpolation: str = "nearest") -> Tensor:
    """Images upscaled by integer factors (``nearest`` repeats pixels, ``bilinear``
    interpolates)."""
    if data_format != "channels_last":
        raise ValueError(f"resize_images: only data_format='channels_last' is supported, got "
                         f"{data_format!r}")
    x = _t(x)
    if interpolation == "nearest":
        return _repeat(_repeat(x, int(height_factor), axis=1), int(width_factor), axis=2)
    if interpolation == "bilinear":
        h, w = x.shape.as_list()[1:3]
        if h is None or w is None:
            raise ValueError("resize_images: bilinear needs the height and width known")
        return _image.resize_bilinear(x, [h * int(height_factor), w * int(width_factor)])
    raise ValueError(f"resize_images: interpolation must be 'nearest' or 'bilinear', got "
                     f"{interpolation!r}")


def resize_volumes(x: Any, depth_factor: int, height_factor: int, width_factor: int,
                   data_format: str) -> Tensor:
    """A 5-D tensor upscaled by repeating entries along depth, height and width."""
    if data_format != "channels_last":
        raise ValueError(f"resize_volumes: only data_format='channels_last' is supported, "
                         f"got {data_format!r}")
    x = _repeat(_t(x), int(depth_factor), axis=1)
    x = _repeat(x, int(height_factor), axis=2)
    return _repeat(x, int(width_factor), axis=3)


# -- loops ---------------------------------------------------------------------------------

def map_fn(fn: Callable[..., Any], elems: Any, name: Optional[str] = None,
           dtype: Any = None) -> Any:
    """``fn`` applied to each slice of ``elems`` along axis 0, results stacked."""
    return F.map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn: Callable[..., Any], elems: Any, initializer: Any = None,
          name: Optional[str] = None) -> Any:
    """``fn(acc, x)`` folded over ``elems`` from the first slice."""
    return F.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn: Callable[..., Any], elems: Any, initializer: Any = None,
          name: Optional[str] = None) -> Any:
    """``fn(acc, x)`` folded over ``elems`` from the last slice."""
    return F.foldr(fn, elems, initializer=initializer, name=name)


__all__ = ["greater", "greater_equal", "less", "less_equal", "not_equal", "sign", "round",
           "sin", "cos", "softplus", "softsign", "elu", "l2_normalize", "stop_gradient",
           "all", "any", "prod", "std", "var", "argmin", "cumsum",
           "cumprod", "in_top_k", "arange", "ones_like", "zeros_like", "one_hot",
           "is_sparse", "to_dense", "count_params", "permute_dimensions", "repeat_elements",
           "repeat", "tile", "reverse", "batch_dot", "temporal_padding",
           "spatial_2d_padding", "spatial_3d_padding", "resize_images", "resize_volumes",
           "map_fn", "foldl", "foldr"]

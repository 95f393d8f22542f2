"""``tf.test.compute_gradient`` and ``compute_gradient_error`` (TF 1.x gradient checker).

Both run in the default session, as in TensorFlow: the symbolic Jacobian comes from
``tf.gradients`` with a one-hot ``grad_ys`` per output element, the numeric one from
central differences of ``y`` as each element of ``x`` moves by ``±delta``. ``x`` is fed
(a constant or any other tensor may be), so the graph does not change between the two.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.gradients.gradients_impl import gradients
from tensorfleet.ops.array_ops import placeholder
from tensorfleet.runtime.session import get_default_session

Shape = Sequence[int]


def _size(shape: Shape) -> int:
    return int(np.prod([int(d) for d in shape], dtype=np.int64))


def _dense(value: Any, shape: Shape) -> np.ndarray:
    """A gradient value as a dense array of ``shape`` (IndexedSlices are scattered)."""
    if value is None:
        return np.zeros(shape, dtype=np.float64)
    if hasattr(value, "indices") and hasattr(value, "values"):
        out = np.zeros(shape, dtype=np.float64)
        np.add.at(out, np.asarray(value.indices), np.asarray(value.values, dtype=np.float64))
        return out
    return np.asarray(value, dtype=np.float64).reshape(shape)


def _session() -> Any:
    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: call it inside "
                         "`with tf.Session():` or `with self.test_session():`")
    return sess


def _init_values(xs: List[Tensor], shapes: List[Shape], init: Optional[List[Any]]
                 ) -> List[np.ndarray]:
    values = []
    rng = np.random.RandomState(0)
    for i, (x, shape) in enumerate(zip(xs, shapes)):
        dt = x.dtype.as_numpy_dtype if hasattr(x.dtype, "as_numpy_dtype") else np.float64
        if init is not None and init[i] is not None:
            v = np.asarray(init[i], dtype=dt)
            if list(v.shape) != [int(d) for d in shape]:
                raise ValueError(f"compute_gradient: x_init_value {i} has shape "
                                 f"{list(v.shape)}, expected {list(shape)}")
        else:
            v = rng.random_sample([int(d) for d in shape]).astype(dt)
        values.append(v)
    return values


def _jacobians(xs: List[Tensor], x_shapes: List[Shape], y: Tensor, y_shape: Shape,
               x_values: List[np.ndarray], delta: float,
               extra_feed: Dict[Any, Any]) -> List[Tuple[np.ndarray, np.ndarray]]:
    sess = _session()
    y_size = _size(y_shape)
    dy = placeholder(y.dtype, [int(d) for d in y_shape], name="compute_gradient_dy")
    grads = gradients(y, xs, grad_ys=dy)
    wanted = [g for g in grads if g is not None]
    base_feed = dict(extra_feed)
    base_feed.update(zip(xs, x_values))
    theory = [np.zeros((_size(s), y_size)) for s in x_shapes]
    one_hot = np.zeros(y_size, dtype=dy.dtype.as_numpy_dtype)
    for k in range(y_size):
        one_hot[:] = 0
        one_hot[k] = 1
        feed = dict(base_feed)
        feed[dy] = one_hot.reshape([int(d) for d in y_shape])
        vals = iter(sess.run(wanted, feed) if wanted else [])
        for i, g in enumerate(grads):
            value = next(vals) if g is not None else None
            theory[i][:, k] = _dense(value, x_shapes[i]).reshape(-1)
    out = []
    for i, x in enumerate(xs):
        numeric = np.zeros_like(theory[i])
        flat = x_values[i].reshape(-1).copy()
        for j in range(flat.size):
            feed = dict(base_feed)
            old = flat[j]
            flat[j] = old + delta
            feed[x] = flat.reshape(x_values[i].shape)
            hi = np.asarray(sess.run(y, feed), dtype=np.float64).reshape(-1)
            flat[j] = old - delta
            feed[x] = flat.reshape(x_values[i].shape)
            lo = np.asarray(sess.run(y, feed), dtype=np.float64).reshape(-1)
            flat[j] = old
            numeric[j, :] = (hi - lo) / (2 * delta)
        out.append((theory[i], numeric))
    return out


def compute_gradient(x: Union[Any, List[Any]], x_shape: Union[Shape, List[Shape]], y: Any,
                     y_shape: Shape, x_init_value: Any = None, delta: float = 1e-3,
                     init_targets: Optional[Sequence[Any]] = None,
                     extra_feed_dict: Optional[Dict[Any, Any]] = None) -> Any:
    """The symbolic and numeric Jacobians of ``y`` with respect to ``x``.

    Args:
      x: a tensor, or a list of tensors (then ``x_shape`` and ``x_init_value`` are lists).
      x_shape, y_shape: the shapes of ``x`` and ``y``.
      x_init_value: the value(s) fed for ``x``; random in [0, 1) when None.
      delta: the step of the central differences.
      init_targets: ops run first (variable initializers).
      extra_feed_dict: further feeds for every run.

    Returns:
      ``(theoretical, numerical)``, each shaped ``[x size, y size]`` (entry ``[i, k]`` is
      ``dy_k / dx_i``); a list of such pairs when ``x`` is a list.
    """
    many = isinstance(x, (list, tuple))
    xs = [convert_to_tensor(t) for t in (x if many else [x])]
    shapes = list(x_shape) if many else [x_shape]
    if len(shapes) != len(xs):
        raise ValueError(f"compute_gradient: {len(xs)} tensors but {len(shapes)} shapes")
    inits = (list(x_init_value) if many else [x_init_value]) if x_init_value is not None else None
    y = convert_to_tensor(y)
    if init_targets:
        _session().run(list(init_targets))
    values = _init_values(xs, shapes, inits)
    result = _jacobians(xs, shapes, y, y_shape, values, delta, extra_feed_dict or {})
    return result if many else result[0]


def compute_gradient_error(x: Union[Any, List[Any]], x_shape: Union[Shape, List[Shape]],
                           y: Any, y_shape: Shape, x_init_value: Any = None,
                           delta: float = 1e-3, init_targets: Optional[Sequence[Any]] = None,
                           extra_feed_dict: Optional[Dict[Any, Any]] = None) -> float:
    """The largest absolute difference between the symbolic and numeric Jacobians that
    ``compute_gradient`` returns for the same arguments."""
    result = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                              extra_feed_dict)
    pairs = result if isinstance(result, list) else [result]
    return float(max((np.max(np.abs(t - n)) if t.size else 0.0) for t, n in pairs))


__all__ = ["compute_gradient", "compute_gradient_error"]

"""Keras metric objects in graph mode: state in non-trainable variables, ``update_state``
returning the op that accumulates a batch, ``result()`` the tensor of the value so far,
``reset_state()`` zeroing the state in the Keras session. Calling a metric
``m(y_true, y_pred)`` updates it and returns its result.

``Mean``/``Sum``/``MeanTensor`` reduce values; ``MeanMetricWrapper`` is the mean of a
per-sample function, the base of the accuracy, cross-entropy and error metrics here.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.keras import backend as K
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.math_ops_special import div_no_nan as _div_no_nan
from tensorfleet.ops import state_ops as S
from tensorfleet.ops import variables as V


class Metric:
    """Base of the stateful metrics: subclasses make state with ``add_weight`` and define
    ``update_state`` and ``result``."""

    def __init__(self, name: Optional[str] = None, dtype: Any = None, **kwargs: Any):
        if kwargs:
            raise ValueError(f"{type(self).__name__}: unsupported arguments {sorted(kwargs)}")
        self._name = name or K.unique_object_name(_snake(type(self).__name__))
        self._dtype = _dtypes.as_dtype(dtype or K.floatx())
        self._weights: List[Any] = []
        self._inits: List[np.ndarray] = []
        self.stateful = True
        self.built = True

    @property
    def name(self) -> str:
        """The metric's name (its result's key in ``fit`` logs)."""
        return self._name

    @property
    def dtype(self) -> str:
        """The dtype of the metric's result."""
        return self._dtype.name

    @property
    def variables(self) -> List[Any]:
        """The state variables."""
        return list(self._weights)

    weights = variables
    non_trainable_weights = variables

    @property
    def trainable_weights(self) -> List[Any]:
        """None: a metric does not train."""
        return []

    def add_weight(self, name: str, shape: Any = (), dtype: Any = None,
                   initializer: Any = "zeros") -> Any:
        """A non-trainable state variable of ``shape`` filled with zeros (or the float
        ``initializer``)."""
        dt = _dtypes.as_dtype(dtype or self._dtype)
        fill = 0.0 if initializer in ("zeros", None) else float(initializer)
        value = np.full(tuple(int(d) for d in shape), fill, dtype=dt.as_numpy_dtype)
        g = get_default_graph()
        with g.control_dependencies(None), g.name_scope(self._name):
            v = V.Variable(value, name=name, trainable=False, dtype=dt,
                           collections=[GraphKeys.LOCAL_VARIABLES,
                                        GraphKeys.METRIC_VARIABLES])
        K.track_variable(v)
        self._weights.append(v)
        self._inits.append(value)
        return v

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        """The op accumulating one batch; a subclass defines it."""
        raise TypeError(f"{type(self).__name__} must define update_state")

    def result(self) -> Tensor:
        """The metric's value; a subclass defines it."""
        raise TypeError(f"{type(self).__name__} must define result")

    def reset_state(self) -> None:
        """Sets the state back to its initial values (in the Keras session)."""
        K.batch_set_value(list(zip(self._weights, self._inits)))

    reset_states = reset_state

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        """Updates the state with a batch and returns the result after the update."""
        op = self.update_state(*args, **kwargs)
        with get_default_graph().control_dependencies([op]):
            return A.identity(self.result())

    def get_config(self) -> Dict[str, Any]:
        """The name and dtype."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Metric":
        """The metric made from ``get_config()``'s dict."""
        return cls(**config)


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and (not name[i - 1].isupper() or
                                   (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def weighted(values: Tensor, sample_weight: Any) -> tuple:
    """``(values * w, w)`` with ``sample_weight`` broadcast to ``values`` (ones if None)."""
    values = convert_to_tensor(values)
    if sample_weight is None:
        return values, A.ones_like(values)
    w = A.cast(sample_weight, values.dtype)
    if w.shape.ndims is not None and values.shape.ndims is not None:
        while w.shape.ndims > values.shape.ndims and w.shape.as_list()[-1] == 1:
            w = A.squeeze(w, [-1])
        while w.shape.ndims < values.shape.ndims:
            w = A.expand_dims(w, -1)
    w = M.multiply(w, A.ones_like(values))
    return M.multiply(values, w), w


class Sum(Metric):
    """The (weighted) sum of every value seen."""

    def __init__(self, name: str = "sum", dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        """Adds the values' weighted sum."""
        v, _ = weighted(A.cast(values, self._dtype), sample_weight)
        return S.assign_add(self.total, M.reduce_sum(v))

    def result(self) -> Tensor:
        """The sum."""
        return self.total.read_value()


class Mean(Metric):
    """The (weighted) mean of every value seen."""

    def __init__(self, name: str = "mean", dtype: Any = None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")
        self.count = self.add_weight("count")

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        """Adds the values' weighted sum and their weight."""
        v, w = weighted(A.cast(values, self._dtype), sample_weight)
        return CF.group(S.assign_add(self.total, M.reduce_sum(v)),
                        S.assign_add(self.count, M.reduce_sum(w)))

    def result(self) -> Tensor:
        """``total / count`` (0 before any value)."""
        return _div_no_nan(self.total.read_value(), self.count.read_value())


class MeanTensor(Metric):
    """The elementwise (weighted) mean of same-shaped tensors; the shape is taken from
    the first update (``shape`` fixes it up front)."""

    def __init__(self, name: str = "mean_tensor", dtype: Any = None, shape: Any = None):
        super().__init__(name=name, dtype=dtype)
        self._shape = None if shape is None else tuple(int(d) for d in shape)
        self.total: Any = None
        self.count: Any = None
        if self._shape is not None:
            self._build(self._shape)

    def _build(self, shape: tuple) -> None:
        self.total = self.add_weight("total", shape)
        self.count = self.add_weight("count", shape)

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        """Adds the weighted values and weights elementwise."""
        values = A.cast(values, self._dtype)
        shape = tuple(values.shape.as_list())
        if self.total is None:
            if any(d is None for d in shape):
                raise ValueError(f"MeanTensor: the values' shape must be known, got {shape}")
            self._build(shape)
        elif shape != tuple(self.total.get_shape().as_list()):
            raise ValueError(f"MeanTensor: values of shape {shape} do not match the state "
                             f"shape {tuple(self.total.get_shape().as_list())}")
        v, w = weighted(values, sample_weight)
        return CF.group(S.assign_add(self.total, v), S.assign_add(self.count, w))

    def result(self) -> Tensor:
        """The elementwise mean."""
        if self.total is None:
            raise ValueError("MeanTensor has no result before its first update")
        return _div_no_nan(self.total.read_value(), self.count.read_value())


class MeanMetricWrapper(Mean):
    """The weighted mean of ``fn(y_true, y_pred, **kwargs)`` per sample."""

    def __init__(self, fn: Callable[..., Tensor], name: Optional[str] = None,
                 dtype: Any = None, **kwargs: Any):
        Mean.__init__(self, name=name or getattr(fn, "__name__", "mean_metric_wrapper"),
                      dtype=dtype)
        self._fn, self._fn_kwargs = fn, kwargs

    def per_sample(self, y_true: Any, y_pred: Any) -> Tensor:
        """``fn`` of the batch, per sample."""
        return self._fn(y_true, y_pred, **self._fn_kwargs)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Adds the batch's per-sample values of ``fn``."""
        return Mean.update_state(self, self._fn(y_true, y_pred, **self._fn_kwargs),
                                 sample_weight)

    def get_config(self) -> Dict[str, Any]:
        """The name, dtype and the function's options."""
        return {**Metric.get_config(self), **self._fn_kwargs}


__all__ = ["Metric", "Sum", "Mean", "MeanTensor", "MeanMetricWrapper", "weighted"]

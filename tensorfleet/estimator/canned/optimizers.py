"""Optimizers of the canned estimators, given by name, instance or factory.

The names are TensorFlow's: ``'Adagrad'``, ``'Adam'``, ``'Ftrl'``, ``'RMSProp'``,
``'SGD'``; a name gets the estimator's default learning rate. ``'Ftrl'`` needs
``tf.train.FtrlOptimizer``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from tensorfleet.api import train as train_lib
from tensorfleet.training.optimizer import Optimizer

_OPTIMIZER_NAMES = {"Adagrad": "AdagradOptimizer", "Adam": "AdamOptimizer",
                    "Ftrl": "FtrlOptimizer", "RMSProp": "RMSPropOptimizer",
                    "SGD": "GradientDescentOptimizer"}


def get_optimizer_instance(opt: Any, learning_rate: float) -> Optimizer:
    """An ``Optimizer`` from a name (with ``learning_rate``), an instance, or a
    zero-argument callable returning one.

    Raises:
      ValueError: an unknown name, or an optimizer this tensorfleet lacks.
      TypeError: anything else.
    """
    if isinstance(opt, str):
        if opt not in _OPTIMIZER_NAMES:
            raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: "
                             f"{tuple(sorted(_OPTIMIZER_NAMES))}")
        cls = getattr(train_lib, _OPTIMIZER_NAMES[opt], None)
        if cls is None:
            raise ValueError(f"Optimizer {opt!r} needs tf.train.{_OPTIMIZER_NAMES[opt]}, "
                             f"which this tensorfleet does not have; pass an optimizer "
                             f"instance instead")
        return cls(learning_rate=learning_rate)
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise TypeError(f"The given object is not an Optimizer instance. Given: {opt!r}")
    return opt


def linear_learning_rate(num_linear_feature_columns: int, cap: float) -> float:
    """``min(cap, 1/sqrt(number of columns))``: TensorFlow's default for linear models."""
    return min(cap, 1.0 / math.sqrt(max(1, num_linear_feature_columns)))


def check_feature_columns(feature_columns: Any, what: str) -> Sequence[Any]:
    """``feature_columns`` as a tuple; ValueError when empty."""
    if feature_columns is None:
        raise ValueError(f"{what}: feature_columns must be given")
    cols = tuple([feature_columns] if not isinstance(feature_columns, (list, tuple, set))
                 else feature_columns)
    if not cols:
        raise ValueError(f"{what}: feature_columns must not be empty")
    return cols


__all__ = ["get_optimizer_instance", "linear_learning_rate", "check_feature_columns"]

"""``BaselineClassifier`` and ``BaselineRegressor``: models that ignore the feature
values and learn one bias per output (the label prior, or the mean label), the bar a
real model has to clear.

The logits are ``baseline/bias * ones([batch, outputs])``, the batch size taken from the
first dimension of the features (all of which must agree; the weight column is left
out so that serving does not need it). The default optimizer is FTRL with learning rate
0.3, as in TensorFlow.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.estimator.canned.head import RegressionHead, _Head, classification_head
from tensorfleet.estimator.canned.linear import _check_loss_reduction
from tensorfleet.estimator.canned.optimizers import get_optimizer_instance
from tensorfleet.estimator.estimator import Estimator, EstimatorSpec
from tensorfleet.estimator.run_config import RunConfig
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops, init_ops, math_ops
from tensorfleet.ops.check_ops import assert_equal
from tensorfleet.ops.variable_scope import get_variable, variable_scope
from tensorfleet.training.training_util import get_global_step

_LEARNING_RATE = 0.3


def _weight_key(weight_column: Any) -> Optional[str]:
    if weight_column is None:
        return None
    if isinstance(weight_column, str):
        return weight_column
    key = getattr(weight_column, "key", None)
    if not isinstance(key, str):
        raise TypeError(f"weight_column must be a string or a numeric column, got "
                        f"{weight_column!r}")
    return key


def _batch_size(features: Dict[str, Any], weight_key: Optional[str]) -> Tuple[Any, List[Any]]:
    """The batch size (first dimension of the first feature) and the checks that every
    other feature agrees."""
    batch = None
    checks: List[Any] = []
    for key in sorted(features):
        if key == weight_key:
            continue
        feature = features[key]
        if isinstance(feature, SparseTensor):
            first = array_ops.cast(feature.dense_shape[0], _dtypes.int32)
        else:
            first = array_ops.shape(convert_to_tensor(feature))[0]
        if batch is None:
            batch = first
        else:
            checks.append(assert_equal(batch, first, message=f"feature {key!r} has another "
                                                             f"batch size"))
    if batch is None:
        raise ValueError("Baseline estimators need at least one feature (besides the weight "
                         "column) to know the batch size")
    return batch, checks


def baseline_logits(features: Dict[str, Any], num_outputs: int,
                    weight_column: Any = None) -> Tensor:
    """``baseline/bias * ones([batch, num_outputs])``."""
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features).__name__}")
    batch, checks = _batch_size(features, _weight_key(weight_column))
    with get_default_graph().control_dependencies(checks):
        with variable_scope("baseline"):
            bias = get_variable("bias", shape=[num_outputs],
                                initializer=init_ops.zeros_initializer())
            return math_ops.multiply(bias, array_ops.ones(array_ops.stack([batch,
                                                                           num_outputs])))


def _baseline_model_fn(features: Dict[str, Any], labels: Any, mode: str, head: _Head,
                       optimizer: Any, weight_column: Any) -> EstimatorSpec:
    logits = baseline_logits(features, head.logits_dimension, weight_column)

    def train_op_fn(loss: Any) -> Any:
        opt = get_optimizer_instance(optimizer, _LEARNING_RATE)
        return opt.minimize(loss, global_step=get_global_step())

    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)


class _BaselineEstimator(Estimator):
    def __init__(self, head: _Head, model_dir: Optional[str], optimizer: Any,
                 config: Optional[RunConfig], weight_column: Any):
        if isinstance(optimizer, str):
            get_optimizer_instance(optimizer, _LEARNING_RATE)  # an unknown name fails here
        _weight_key(weight_column)

        def _model_fn(features: Any, labels: Any, mode: str, config: RunConfig) -> Any:
            return _baseline_model_fn(features, labels, mode, head, optimizer, weight_column)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineClassifier(_BaselineEstimator):
    """Predicts each class with its learnt prior, whatever the features."""

    def __init__(self, model_dir: Optional[str] = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Optional[Sequence[str]] = None,
                 optimizer: Any = "Ftrl", config: Optional[RunConfig] = None,
                 loss_reduction: Any = None):
        _check_loss_reduction(loss_reduction)
        super().__init__(classification_head(n_classes, weight_column, label_vocabulary),
                         model_dir, optimizer, config, weight_column)


class BaselineRegressor(_BaselineEstimator):
    """Predicts the learnt mean label, whatever the features."""

    def __init__(self, model_dir: Optional[str] = None, label_dimension: int = 1,
                 weight_column: Any = None, optimizer: Any = "Ftrl",
                 config: Optional[RunConfig] = None, loss_reduction: Any = None):
        _check_loss_reduction(loss_reduction)
        super().__init__(RegressionHead(label_dimension, weight_column), model_dir, optimizer,
                         config, weight_column)


__all__ = ["BaselineClassifier", "BaselineRegressor", "baseline_logits"]

"""``DNNClassifier`` and ``DNNRegressor``: fully connected layers over ``input_layer``.

Variable names are TensorFlow's: ``dnn/input_from_feature_columns/input_layer/...``
for the columns (embeddings), ``dnn/hiddenlayer_<i>/kernel|bias`` and
``dnn/logits/kernel|bias``. Dropout applies in training only. The default
optimizer is Adagrad with learning rate 0.05.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

from tensorfleet.estimator.canned.head import RegressionHead, _Head, classification_head
from tensorfleet.estimator.canned.linear import (_check_loss_reduction, default_partitioner,
                                                 num_ps_tasks)
from tensorfleet.estimator.canned.optimizers import (check_feature_columns,
                                                     get_optimizer_instance)
from tensorfleet.estimator.estimator import Estimator, EstimatorSpec, ModeKeys
from tensorfleet.estimator.run_config import RunConfig
from tensorfleet.feature_column.base import DenseColumn
from tensorfleet.feature_column.layers import input_layer
from tensorfleet.nn_layers.functional import dense, dropout as dropout_layer
from tensorfleet.ops.init_ops import GlorotUniform
from tensorfleet.ops.nn_ops import relu
from tensorfleet.ops.partitioned_variables import min_max_variable_partitioner
from tensorfleet.ops.variable_scope import variable_scope
from tensorfleet.training.training_util import get_global_step

_LEARNING_RATE = 0.05


def check_dnn_args(hidden_units: Any, feature_columns: Sequence[Any], dropout: Any,
                   activation_fn: Any, what: str) -> Sequence[int]:
    """The hidden layer sizes, after checking the DNN arguments."""
    if not hidden_units or any(int(u) < 1 for u in hidden_units):
        raise ValueError(f"{what}: hidden_units must be a non-empty list of positive sizes, "
                         f"got {hidden_units!r}")
    if dropout is not None and not 0.0 <= float(dropout) < 1.0:
        raise ValueError(f"{what}: dropout must be in [0, 1), got {dropout!r}")
    if not callable(activation_fn):
        raise TypeError(f"{what}: activation_fn must be callable, got {activation_fn!r}")
    for c in feature_columns:
        if not isinstance(c, DenseColumn):
            raise ValueError(f"{what}: DNN feature columns must be dense (numeric, "
                             f"embedding, indicator, bucketized), got {c!r}; wrap "
                             f"categorical columns in embedding_column or indicator_column")
    return [int(u) for u in hidden_units]


def dnn_logits(features: Dict[str, Any], mode: str, feature_columns: Sequence[Any],
               hidden_units: Sequence[int], units: int, activation_fn: Callable[..., Any],
               dropout: Optional[float], input_layer_partitioner: Any) -> Any:
    """The logits of the DNN, built in the current variable scope (``dnn``)."""
    with variable_scope("input_from_feature_columns", values=list(features.values()),
                        partitioner=input_layer_partitioner):
        net = input_layer(features, feature_columns)
    for i, n in enumerate(hidden_units):
        with variable_scope(f"hiddenlayer_{i}", values=[net]) as scope:
            net = dense(net, n, activation=activation_fn, kernel_initializer=GlorotUniform(),
                        name=scope)
            if dropout is not None and mode == ModeKeys.TRAIN:
                net = dropout_layer(net, rate=dropout, training=True)
    with variable_scope("logits", values=[net]) as scope:
        return dense(net, units, activation=None, kernel_initializer=GlorotUniform(),
                     name=scope)


def _dnn_model_fn(features: Dict[str, Any], labels: Any, mode: str, head: _Head,
                  hidden_units: Sequence[int], feature_columns: Sequence[Any], optimizer: Any,
                  activation_fn: Callable[..., Any], dropout: Optional[float],
                  input_layer_partitioner: Any, config: RunConfig) -> EstimatorSpec:
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features).__name__}")
    num_ps = max(1, num_ps_tasks(config))
    part = input_layer_partitioner if input_layer_partitioner is not None else \
        default_partitioner(config)
    with variable_scope("dnn", values=list(features.values()),
                        partitioner=min_max_variable_partitioner(max_partitions=num_ps)):
        logits = dnn_logits(features, mode, feature_columns, hidden_units,
                            head.logits_dimension, activation_fn, dropout, part)
    opt = get_optimizer_instance(optimizer, _LEARNING_RATE)

    def train_op_fn(loss: Any) -> Any:
        return opt.minimize(loss, global_step=get_global_step())

    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)


class _DNNEstimator(Estimator):
    def __init__(self, head: _Head, hidden_units: Any, feature_columns: Any,
                 model_dir: Optional[str], optimizer: Any, activation_fn: Any, dropout: Any,
                 input_layer_partitioner: Any, config: Optional[RunConfig],
                 warm_start_from: Any, batch_norm: bool, what: str):
        cols = check_feature_columns(feature_columns, what)
        units = check_dnn_args(hidden_units, cols, dropout, activation_fn, what)
        if batch_norm:
            raise ValueError(f"{what}: batch_norm=True is not supported")
        if isinstance(optimizer, str):
            get_optimizer_instance(optimizer, _LEARNING_RATE)

        def _model_fn(features: Any, labels: Any, mode: str, config: RunConfig) -> Any:
            return _dnn_model_fn(features, labels, mode, head, units, cols, optimizer,
                                 activation_fn, dropout, input_layer_partitioner, config)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNClassifier(_DNNEstimator):
    """A feed-forward network classifier."""

    def __init__(self, hidden_units: Sequence[int], feature_columns: Any,
                 model_dir: Optional[str] = None, n_classes: int = 2, weight_column: Any = None,
                 label_vocabulary: Optional[Sequence[str]] = None, optimizer: Any = "Adagrad",
                 activation_fn: Callable[..., Any] = relu, dropout: Optional[float] = None,
                 input_layer_partitioner: Any = None, config: Optional[RunConfig] = None,
                 warm_start_from: Any = None, loss_reduction: Any = None,
                 batch_norm: bool = False):
        _check_loss_reduction(loss_reduction)
        super().__init__(classification_head(n_classes, weight_column, label_vocabulary),
                         hidden_units, feature_columns, model_dir, optimizer, activation_fn,
                         dropout, input_layer_partitioner, config, warm_start_from, batch_norm,
                         "DNNClassifier")


class DNNRegressor(_DNNEstimator):
    """A feed-forward network regressor (squared error)."""

    def __init__(self, hidden_units: Sequence[int], feature_columns: Any,
                 model_dir: Optional[str] = None, label_dimension: int = 1,
                 weight_column: Any = None, optimizer: Any = "Adagrad",
                 activation_fn: Callable[..., Any] = relu, dropout: Optional[float] = None,
                 input_layer_partitioner: Any = None, config: Optional[RunConfig] = None,
                 warm_start_from: Any = None, loss_reduction: Any = None,
                 batch_norm: bool = False):
        _check_loss_reduction(loss_reduction)
        super().__init__(RegressionHead(label_dimension, weight_column), hidden_units,
                         feature_columns, model_dir, optimizer, activation_fn, dropout,
                         input_layer_partitioner, config, warm_start_from, batch_norm,
                         "DNNRegressor")


__all__ = ["DNNClassifier", "DNNRegressor", "dnn_logits", "check_dnn_args"]
